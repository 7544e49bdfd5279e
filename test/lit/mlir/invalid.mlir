// REQUIRES: mlir
// Negative cases only MLIR's syntax can write (generic op form, MLIR types and attributes
// fp8c's IR has no place for), and the translation's errors. The IR's own negative tests
// (test/lit/ir/invalid*.mlir) are checked against both parsers by parity.test.
// RUN: %expect-exit 1 fp8c-opt %s --split-input-file --fp8c-verify 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op operand #0 has type tensor<4xf64>, which is not a tensor of f32, f16, bf16, f8E4M3FN, f8E5M2 or i32
  %y = fp8.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

func.func @memref(%x: memref<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op operand #0 has type memref<4xf32>, which is not a tensor of f32, f16, bf16, f8E4M3FN, f8E5M2 or i32
  %y = fp8.relu %x : (memref<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @array_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op attribute 'approximate': value ["tanh"] is not a bool, an integer, a string or a dtype
  %y = fp8.gelu %x {approximate = ["tanh"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The generic form reaches the same verifier (located at the op's name here: MLIR's parser
// locates generic ops itself).
func.func @generic_form(%x: tensor<4x8xf32>, %w: tensor<16x4xf32>) -> tensor<4x16xf32> {
  // CHECK: invalid.mlir:[[@LINE+1]]:8: error: 'fp8.linear' op K mismatch: input has 8, weight has 4
  %y = "fp8.linear"(%x, %w) : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid.mlir:[[@LINE+1]]:8: error: 'fp8.kernel' op region must have one block, got 2
  %k = "fp8.kernel"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    "fp8.yield"(%a) : (tensor<4xf32>) -> ()
  ^bb1:
    "fp8.yield"(%x) : (tensor<4xf32>) -> ()
  }) {kind = "pointwise"} : (tensor<4xf32>) -> tensor<4xf32>
  return %k : tensor<4xf32>
}

// -----

// Ops fp8c's IR cannot hold are errors of the translation, naming the op.
func.func @upstream(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid.mlir:[[@LINE+1]]:8: error: unsupported op 'arith.negf': fp8c's IR holds func.func, func.return and fp8 ops
  %y = arith.negf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// An fp8 op that ends a function body: the function does not end in func.return.
// CHECK: invalid.mlir:[[@LINE+1]]:1: error: function @no_return must end with 'func.return'
func.func @no_return(%x: tensor<4xf32>) {
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
}
