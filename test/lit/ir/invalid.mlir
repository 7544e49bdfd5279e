// Negative tests of the parser and of the verifier's per-op rules: operand and result counts
// (Ops.def), attributes, and the type rules of the model ops (TypeRules.cpp). One case per split;
// each checks the message and its location (an op's location is its first token). The quant
// ops' type rules are in invalid-quant.mlir, kernels in invalid-kernel.mlir, function-level
// rules in invalid-func.mlir.
// RUN: %expect-exit 1 fp8c %s --split-input-file --emit=ir 2>&1 | FileCheck %s --implicit-check-not=error:

// --- parser errors ------------------------------------------------------------------------------

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:8: error: unknown op 'fp8.sigmoid'
  %y = fp8.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @undefined_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:17: error: use of undefined value '%z'
  %y = fp8.relu %z : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @type_mismatch_at_use(%x: tensor<4xf32>) -> tensor<4xf16> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:17: error: use of value '%x' expects type tensor<4xf16> but it has type tensor<4xf32>
  %y = fp8.relu %x : (tensor<4xf16>) -> tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

func.func @type_mismatch_at_return(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:10: error: use of value '%x' expects type tensor<8xf32> but it has type tensor<4xf32>
  return %x : tensor<8xf32>
}

// -----

func.func @redefinition(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: redefinition of value '%x'
  %x = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

func.func @result_type_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:41: error: result type list has 2 types but 'fp8.relu' defines 1 result
  %y = fp8.relu %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4xf32>
}

// -----

// --- rule 1: operand and result counts ----------------------------------------------------------

func.func @linear_one_operand(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op takes 2 to 3 operands, got 1
  %y = fp8.linear %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_three_operands(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op takes 2 operands, got 3
  %y = fp8.matmul %x, %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @relu_two_operands(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op takes 1 operand, got 2
  %y = fp8.relu %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @scaled_matmul_three_operands(%a: tensor<4x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op takes 4 to 5 operands, got 3
  %y = fp8.scaled_matmul %a, %a, %s : (tensor<4x32xf8E4M3FN>, tensor<4x32xf8E4M3FN>, tensor<f32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.add' op has 1 result, got 2
  %y, %z = fp8.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4xf32>
}

// -----

func.func @no_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op has 1 result, got 0
  fp8.relu %x : (tensor<4xf32>) -> ()
  return %x : tensor<4xf32>
}

// -----

// --- rule 2: attributes -------------------------------------------------------------------------

func.func @unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op unknown attribute 'approx' (known: approximate)
  %y = fp8.gelu %x {approx = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @attribute_on_op_without_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op unknown attribute 'inplace' (the op takes none)
  %y = fp8.relu %x {inplace = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @attribute_on_return(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'func.return' op unknown attribute 'foo' (the op takes none)
  return %x {foo = 1} : tensor<4xf32>
}

// -----

func.func @attribute_wrong_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op attribute 'approximate' must be a string, got true
  %y = fp8.gelu %x {approximate = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @attribute_wrong_kind_int(%a: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op attribute 'margin' must be an integer, got "1"
  %s = fp8.scale %a {margin = "1"} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @attribute_wrong_kind_dtype(%a: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op attribute 'dtype' must be a type, got "f8E4M3FN"
  %s = fp8.scale %a {dtype = "f8E4M3FN"} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @attribute_value_not_allowed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op attribute 'approximate' has value "erf"; expected one of: none|tanh
  %y = fp8.gelu %x {approximate = "erf"} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @scale_dtype_not_fp8(%a: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op attribute 'dtype' has value bf16; expected one of: f8E4M3FN|f8E5M2
  %s = fp8.scale %a {dtype = bf16} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @margin_out_of_range(%a: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op attribute 'margin' must be in [0, 64], got 65
  %s = fp8.scale %a {margin = 65} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @negative_margin(%h: tensor<16xf32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.history_scale' op attribute 'margin' must be in [0, 64], got -1
  %s = fp8.history_scale %h {margin = -1} : (tensor<16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @bad_attribute_and_bad_types(%a: tensor<bf16>) -> tensor<bf16> {
  // An attribute the type rules do not read does not hide a type error.
  // CHECK: {{.*}}invalid.mlir:[[@LINE+2]]:3: error: 'fp8.scale' op attribute 'pow2' must be a bool, got 1
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op amax must be f32, got bf16
  %s = fp8.scale %a {pow2 = 1} : (tensor<bf16>) -> tensor<bf16>
  return %s : tensor<bf16>
}

// -----

func.func @bad_granularity_hides_type_rules(%x: tensor<4x8x2xf32>) -> tensor<4xf32> {
  // A bad granularity is reported once, not again as a shape error.
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.amax' op attribute 'granularity' has value "rows"; expected one of: tensor|row|col|block_1x128|block_128x128
  %m = fp8.amax %x {granularity = "rows"} : (tensor<4x8x2xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// --- rule 3: type rules of the model ops, and the declared result type --------------------------

func.func @result_type_mismatch(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op result type tensor<4x8xf32> does not match the inferred type tensor<4x16xf32>
  %y = fp8.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @result_dtype_mismatch(%x: tensor<4xbf16>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.silu' op result type tensor<4xf32> does not match the inferred type tensor<4xbf16>
  %y = fp8.silu %x : (tensor<4xbf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @result_static_where_inferred_dynamic(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op result type tensor<4x16xf32> does not match the inferred type tensor<?x16xf32>
  %y = fp8.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @linear_fp8_input(%x: tensor<4x8xf8E4M3FN>, %w: tensor<16x8xf8E4M3FN>) -> tensor<4x16xf8E4M3FN> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op input (operand #0) must be f32, f16 or bf16, got f8E4M3FN
  %y = fp8.linear %x, %w : (tensor<4x8xf8E4M3FN>, tensor<16x8xf8E4M3FN>) -> tensor<4x16xf8E4M3FN>
  return %y : tensor<4x16xf8E4M3FN>
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<16x8xf32>) -> tensor<16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op input must have rank >= 1, got rank 0
  %y = fp8.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op weight must be 2-D [N, K], got rank 1
  %y = fp8.linear %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @linear_weight_dtype(%x: tensor<4x8xbf16>, %w: tensor<16x8xf32>) -> tensor<4x16xbf16> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op weight dtype f32 differs from input dtype bf16
  %y = fp8.linear %x, %w : (tensor<4x8xbf16>, tensor<16x8xf32>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

func.func @linear_k_mismatch(%x: tensor<?x4096xbf16>, %w: tensor<14336x512xbf16>) -> tensor<?x14336xbf16> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op K mismatch: input has 4096, weight has 512
  %y = fp8.linear %x, %w : (tensor<?x4096xbf16>, tensor<14336x512xbf16>) -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}

// -----

func.func @linear_bias_shape(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op bias must be [16], got [8]
  %y = fp8.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @linear_bias_dtype(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xbf16>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op bias dtype bf16 differs from input dtype f32
  %y = fp8.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xbf16>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @matmul_fp8(%a: tensor<4x8xf8E5M2>, %b: tensor<8x4xf8E5M2>) -> tensor<4x4xf8E5M2> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op lhs (operand #0) must be f32, f16 or bf16, got f8E5M2
  %y = fp8.matmul %a, %b : (tensor<4x8xf8E5M2>, tensor<8x4xf8E5M2>) -> tensor<4x4xf8E5M2>
  return %y : tensor<4x4xf8E5M2>
}

// -----

func.func @matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op operands must be 2-D, got ranks 3 and 2
  %y = fp8.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @matmul_dtypes(%a: tensor<4x8xf32>, %b: tensor<8x4xf16>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op operand dtypes differ: f32 and f16
  %y = fp8.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf16>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<16x4xf32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op K mismatch: lhs has 8, rhs has 16
  %y = fp8.matmul %a, %b : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @add_fp8(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.add' op lhs (operand #0) must be f32, f16 or bf16, got f8E4M3FN
  %y = fp8.add %a, %a : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %y : tensor<4xf8E4M3FN>
}

// -----

func.func @mul_dtypes(%a: tensor<4xf32>, %b: tensor<4xbf16>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.mul' op operand dtypes differ: f32 and bf16
  %y = fp8.mul %a, %b : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @add_shapes(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.add' op operand shapes differ: [4, 8] and [4, 16]
  %y = fp8.add %a, %b : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @swiglu_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.swiglu' op operand shapes differ: [4, 8] and []
  %y = fp8.swiglu %a, %b : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @relu_fp8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op input (operand #0) must be f32, f16 or bf16, got f8E4M3FN
  %y = fp8.relu %x : (tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %y : tensor<4xf8E4M3FN>
}

// -----

func.func @gelu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op input (operand #0) must be f32, f16 or bf16, got i32
  %y = fp8.gelu %x : (tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @silu_fp8(%x: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.silu' op input (operand #0) must be f32, f16 or bf16, got f8E5M2
  %y = fp8.silu %x : (tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  return %y : tensor<4xf8E5M2>
}

// -----

func.func @convert_from_int(%x: tensor<4xi32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.convert' op input must be a float type, got i32
  %y = fp8.convert %x : (tensor<4xi32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @convert_to_int(%x: tensor<4xf32>) -> tensor<4xi32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.convert' op result must be a float type, got i32
  %y = fp8.convert %x : (tensor<4xf32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @convert_shape(%x: tensor<4xf32>) -> tensor<8xbf16> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.convert' op result type tensor<8xbf16> does not match the inferred type tensor<4xbf16>
  %y = fp8.convert %x : (tensor<4xf32>) -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}

// -----

func.func @transpose_rank(%x: tensor<2x4x8xf32>) -> tensor<8x4x2xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.transpose' op input must be 2-D, got rank 3
  %y = fp8.transpose %x : (tensor<2x4x8xf32>) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// -----

func.func @transpose_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.transpose' op result type tensor<4x8xf32> does not match the inferred type tensor<8x4xf32>
  %y = fp8.transpose %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @independent_errors(%x: tensor<4xf8E4M3FN>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // Independent errors in one function are all reported, each at its op.
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op input (operand #0) must be f32, f16 or bf16, got f8E4M3FN
  %a = fp8.relu %x : (tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.gelu' op attribute 'approximate' has value "exact"; expected one of: none|tanh
  %b = fp8.gelu %y {approximate = "exact"} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: {{.*}}invalid.mlir:[[@LINE+1]]:3: error: 'fp8.add' op result type tensor<4xbf16> does not match the inferred type tensor<4xf32>
  %c = fp8.add %b, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return %y : tensor<4xf32>
}
