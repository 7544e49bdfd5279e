// Negative tests of the function-level rules: func.return (placement and signature), dynamic
// dims of inputs, `fp8.state` pairing and other `fp8.*` argument / result attributes, and
// function names unique in a module. Errors about the signature are located at `func.func`.
// RUN: %expect-exit 1 fp8c %s --split-input-file --emit=ir 2>&1 | FileCheck %s --implicit-check-not=error:

// --- rule 5: func.return ------------------------------------------------------------------------

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: function @no_return must end with 'func.return'
func.func @no_return(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: function @empty_body must end with 'func.return'
func.func @empty_body() {
}

// -----

func.func @return_not_last(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:3: error: 'func.return' op must be the last op of the function body
  return %x : tensor<4xf32>
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @return_count(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:3: error: 'func.return' op has 1 operand, but @return_count returns 2 values
  return %x : tensor<4xf32>
}

// -----

func.func @return_nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:3: error: 'func.return' op has 0 operands, but @return_nothing returns 1 value
  return
}

// -----

func.func @return_type(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:3: error: 'func.return' op type of operand #1 is tensor<4xbf16>, but result #1 of @return_type is tensor<4xf32>
  func.return %x, %y : tensor<4xf32>, tensor<4xbf16>
}

// -----

// --- rule 7: only the leading dim of an input may be dynamic ------------------------------------

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: input %w: only the leading dim may be dynamic, got tensor<4x?xf32>
func.func @dynamic_inner_dim(%x: tensor<?x4xf32>, %w: tensor<4x?xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: input %x: only the leading dim may be dynamic, got tensor<?x?xbf16>
func.func @dynamic_both_dims(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  return %x : tensor<?x?xbf16>
}

// -----

// --- rule 8: fp8.state pairing ------------------------------------------------------------------

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: input %h: attribute 'fp8.state' must be a string key, got 1
func.func @state_key_not_string(%h: tensor<16xf32> {fp8.state = 1}) -> tensor<16xf32> {
  return %h : tensor<16xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: input %h: state key "hist" has no result with the same key
func.func @state_input_without_result(%h: tensor<16xf32> {fp8.state = "hist"}) -> tensor<f32> {
  %s = fp8.history_scale %h : (tensor<16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: result #0: state key "hist" has no input with the same key
func.func @state_result_without_input(%h: tensor<16xf32>) -> (tensor<16xf32> {fp8.state = "hist"}) {
  return %h : tensor<16xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: input %h2: state key "hist" is already used by input %h1
func.func @state_key_on_two_inputs(%h1: tensor<16xf32> {fp8.state = "hist"}, %h2: tensor<16xf32> {fp8.state = "hist"}) -> (tensor<16xf32> {fp8.state = "hist"}) {
  return %h1 : tensor<16xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: result #1: state key "hist" is already used by result #0
func.func @state_key_on_two_results(%h: tensor<16xf32> {fp8.state = "hist"}) -> (tensor<16xf32> {fp8.state = "hist"}, tensor<16xf32> {fp8.state = "hist"}) {
  return %h, %h : tensor<16xf32>, tensor<16xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: state key "hist": input %h has type tensor<16xf32>, but result #0 has type tensor<8xf32>
func.func @state_types_differ(%h: tensor<16xf32> {fp8.state = "hist"}, %g: tensor<8xf32>) -> (tensor<8xf32> {fp8.state = "hist"}) {
  return %g : tensor<8xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+2]]:1: error: input %x: unknown attribute 'fp8.stat' (known: fp8.grad, fp8.param, fp8.saved, fp8.state)
// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: result #0: unknown attribute 'fp8.scale' (known: fp8.grad, fp8.param, fp8.saved, fp8.state)
func.func @unknown_fp8_attributes(%x: tensor<4xf32> {fp8.stat = "k", note = "other names are fine"}) -> (tensor<4xf32> {fp8.scale = 2}) {
  return %x : tensor<4xf32>
}

// -----

// CHECK: {{.*}}invalid-func.mlir:[[@LINE+2]]:1: error: input %w: attribute 'fp8.param' must be true or false, got "yes"
// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: result #0: attribute 'fp8.param' applies to inputs only
func.func @bad_param(%w: tensor<4xf32> {fp8.param = "yes"}) -> (tensor<4xf32> {fp8.param = true}) {
  return %w : tensor<4xf32>
}

// -----

// --- rule 9: function names are unique ----------------------------------------------------------

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// CHECK: {{.*}}invalid-func.mlir:[[@LINE+1]]:1: error: redefinition of function @f (first defined at {{.*}}invalid-func.mlir:[[@LINE-3]]:1)
func.func @f(%y: tensor<8xf32>) -> tensor<8xf32> {
  return %y : tensor<8xf32>
}
