// Negative tests of the quantization ops' type rules (TypeRules.cpp): amax, scale, cast,
// dequant, scaled_matmul, history_scale, history_push. One case per split, each checking the
// message and its location.
// RUN: %expect-exit 1 fp8c %s --split-input-file --emit=ir 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @amax_int(%x: tensor<4xi32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.amax' op input must be a float type, got i32
  %m = fp8.amax %x : (tensor<4xi32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

func.func @amax_row_needs_2d(%x: tensor<2x4x8xf32>) -> tensor<2xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.amax' op granularity "row" needs a 2-D input, got rank 3
  %m = fp8.amax %x {granularity = "row"} : (tensor<2x4x8xf32>) -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// -----

func.func @amax_result_shape(%x: tensor<256x512xbf16>) -> tensor<256x2xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.amax' op result type tensor<256x2xf32> does not match the inferred type tensor<256x4xf32>
  %m = fp8.amax %x {granularity = "block_1x128"} : (tensor<256x512xbf16>) -> tensor<256x2xf32>
  return %m : tensor<256x2xf32>
}

// -----

func.func @amax_result_dtype(%x: tensor<4x8xbf16>) -> tensor<bf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.amax' op result type tensor<bf16> does not match the inferred type tensor<f32>
  %m = fp8.amax %x : (tensor<4x8xbf16>) -> tensor<bf16>
  return %m : tensor<bf16>
}

// -----

func.func @scale_of_bf16(%a: tensor<bf16>) -> tensor<bf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scale' op amax must be f32, got bf16
  %s = fp8.scale %a : (tensor<bf16>) -> tensor<bf16>
  return %s : tensor<bf16>
}

// -----

func.func @cast_fp8_input(%x: tensor<4xf8E5M2>, %s: tensor<f32>) -> tensor<4xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op input (operand #0) must be f32, f16 or bf16, got f8E5M2
  %q = fp8.cast %x, %s : (tensor<4xf8E5M2>, tensor<f32>) -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

func.func @cast_col_needs_2d(%x: tensor<8xbf16>, %s: tensor<8xf32>) -> tensor<8xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op granularity "col" needs a 2-D input, got rank 1
  %q = fp8.cast %x, %s {granularity = "col"} : (tensor<8xbf16>, tensor<8xf32>) -> tensor<8xf8E4M3FN>
  return %q : tensor<8xf8E4M3FN>
}

// -----

func.func @cast_scale_dtype(%x: tensor<4x8xbf16>, %s: tensor<bf16>) -> tensor<4x8xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op scale must be f32, got bf16
  %q = fp8.cast %x, %s : (tensor<4x8xbf16>, tensor<bf16>) -> tensor<4x8xf8E4M3FN>
  return %q : tensor<4x8xf8E4M3FN>
}

// -----

func.func @cast_scale_shape(%x: tensor<4x8xbf16>, %s: tensor<4xf32>) -> tensor<4x8xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op scale shape [4] does not match granularity "col" of input [4, 8] (expected [8])
  %q = fp8.cast %x, %s {granularity = "col"} : (tensor<4x8xbf16>, tensor<4xf32>) -> tensor<4x8xf8E4M3FN>
  return %q : tensor<4x8xf8E4M3FN>
}

// -----

func.func @cast_block_scale_shape(%x: tensor<256x300xbf16>, %s: tensor<2x2xf32>) -> tensor<256x300xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op scale shape [2, 2] does not match granularity "block_128x128" of input [256, 300] (expected [2, 3])
  %q = fp8.cast %x, %s {granularity = "block_128x128"} : (tensor<256x300xbf16>, tensor<2x2xf32>) -> tensor<256x300xf8E4M3FN>
  return %q : tensor<256x300xf8E4M3FN>
}

// -----

func.func @cast_result_not_fp8(%x: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op result must be f8E4M3FN or f8E5M2, got f16
  %q = fp8.cast %x, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xf16>
  return %q : tensor<4xf16>
}

// -----

func.func @cast_result_shape(%x: tensor<4xbf16>, %s: tensor<f32>) -> tensor<8xf8E4M3FN> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.cast' op result type tensor<8xf8E4M3FN> does not match the inferred type tensor<4xf8E4M3FN>
  %q = fp8.cast %x, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<8xf8E4M3FN>
  return %q : tensor<8xf8E4M3FN>
}

// -----

func.func @dequant_not_fp8(%x: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.dequant' op input must be FP8, got bf16
  %y = fp8.dequant %x, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dequant_scale_shape(%q: tensor<4x8xf8E4M3FN>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.dequant' op scale shape [8] does not match granularity "row" of input [4, 8] (expected [4])
  %y = fp8.dequant %q, %s {granularity = "row"} : (tensor<4x8xf8E4M3FN>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @dequant_to_fp8(%q: tensor<4xf8E4M3FN>, %s: tensor<f32>) -> tensor<4xf8E5M2> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.dequant' op result must be f32, f16 or bf16, got f8E5M2
  %y = fp8.dequant %q, %s : (tensor<4xf8E4M3FN>, tensor<f32>) -> tensor<4xf8E5M2>
  return %y : tensor<4xf8E5M2>
}

// -----

func.func @scaled_matmul_not_fp8(%a: tensor<4x32xbf16>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op operands must be FP8, got bf16 and f8E4M3FN
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xbf16>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_e5m2_e5m2(%a: tensor<4x32xf8E5M2>, %b: tensor<8x32xf8E5M2>, %s: tensor<f32>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op f8E5M2 x f8E5M2 has no FP8 tensor-core instruction; make one operand f8E4M3FN
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xf8E5M2>, tensor<8x32xf8E5M2>, tensor<f32>, tensor<f32>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_rank(%a: tensor<4x32xf8E4M3FN>, %b: tensor<2x8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op operands must be a [..., M, K] (rank >= 2) and b [N, K], got ranks 2 and 3
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xf8E4M3FN>, tensor<2x8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_rank1(%a: tensor<32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op operands must be a [..., M, K] (rank >= 2) and b [N, K], got ranks 1 and 2
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}

// -----

// A of rank > 2 is [prod(leading dims), K] to the GEMM: tensor scales only.
func.func @scaled_matmul_rank3_row_scales(%a: tensor<2x4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %sa: tensor<8xf32>, %sb: tensor<8xf32>) -> tensor<2x4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op row and block scales need a 2-D a [M, K], got [2, 4, 32]; a of rank > 2 takes tensor scales ([] and [])
  %y = fp8.scaled_matmul %a, %b, %sa, %sb : (tensor<2x4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xbf16>
  return %y : tensor<2x4x8xbf16>
}

// -----

func.func @scaled_matmul_rank3_result(%a: tensor<2x4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<8x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op result type tensor<8x8xbf16> does not match the inferred type tensor<2x4x8xbf16>
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<2x4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<8x8xbf16>
  return %y : tensor<8x8xbf16>
}

// -----

func.func @scaled_matmul_k_mismatch(%a: tensor<4x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x32xbf16> {
  // The weight is K-major ([N, K], TN layout), not [K, N].
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op K mismatch: a has 32, b has 8
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

func.func @scaled_matmul_scale_dtype(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>, %t: tensor<bf16>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op scales must be f32, got f32 and bf16
  %y = fp8.scaled_matmul %a, %b, %s, %t : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<bf16>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_scale_modes(%a: tensor<4x256xf8E4M3FN>, %b: tensor<8x256xf8E4M3FN>, %sa: tensor<4xf32>, %sb: tensor<f32>) -> tensor<4x8xbf16> {
  // Scaling modes do not mix: a row-wise sa needs a row-wise sb.
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op scale shapes [4] and [] match no scaling mode: expected [] and [] (tensor), [4] and [8] (row), or [4, 2] and [1, 2] (blockwise)
  %y = fp8.scaled_matmul %a, %b, %sa, %sb : (tensor<4x256xf8E4M3FN>, tensor<8x256xf8E4M3FN>, tensor<4xf32>, tensor<f32>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_bias_shape(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>, %bias: tensor<4xbf16>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op bias must be [8], got [4]
  %y = fp8.scaled_matmul %a, %b, %s, %s, %bias : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<4xbf16>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_bias_dtype(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>, %bias: tensor<8xf8E4M3FN>) -> tensor<4x8xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op bias must be f32, f16 or bf16, got f8E4M3FN
  %y = fp8.scaled_matmul %a, %b, %s, %s, %bias : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<8xf8E4M3FN>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @scaled_matmul_out_differs(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op result dtype f16 differs from out = bf16
  %y = fp8.scaled_matmul %a, %b, %s, %s {out = bf16} : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

func.func @scaled_matmul_out_not_allowed(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xi32> {
  // A bad `out` is reported once, not again by the type rules.
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op attribute 'out' has value i32; expected one of: f32|f16|bf16|f8E4M3FN|f8E5M2
  %y = fp8.scaled_matmul %a, %b, %s, %s {out = i32} : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @scaled_matmul_int_result(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xi32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op result dtype must be a float type, got i32
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @scaled_matmul_result_shape(%a: tensor<4x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<8x4xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.scaled_matmul' op result type tensor<8x4xbf16> does not match the inferred type tensor<4x8xbf16>
  %y = fp8.scaled_matmul %a, %b, %s, %s : (tensor<4x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<8x4xbf16>
  return %y : tensor<8x4xbf16>
}

// -----

func.func @history_scale_dynamic(%h: tensor<?xf32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_scale' op history must be a static non-empty 1-D f32 tensor, got tensor<?xf32>
  %s = fp8.history_scale %h : (tensor<?xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @history_scale_algo(%h: tensor<16xf32>) -> tensor<f32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_scale' op attribute 'algo' has value "mean"; expected one of: max|most_recent
  %s = fp8.history_scale %h {algo = "mean"} : (tensor<16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @history_scale_result(%h: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_scale' op result type tensor<16xf32> does not match the inferred type tensor<f32>
  %s = fp8.history_scale %h : (tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

func.func @history_push_history(%h: tensor<16xbf16>, %a: tensor<f32>) -> tensor<16xbf16> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_push' op history must be a static non-empty 1-D f32 tensor, got tensor<16xbf16>
  %n = fp8.history_push %h, %a : (tensor<16xbf16>, tensor<f32>) -> tensor<16xbf16>
  return %n : tensor<16xbf16>
}

// -----

func.func @history_push_empty(%h: tensor<0xf32>, %a: tensor<f32>) -> tensor<0xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_push' op history must be a static non-empty 1-D f32 tensor, got tensor<0xf32>
  %n = fp8.history_push %h, %a : (tensor<0xf32>, tensor<f32>) -> tensor<0xf32>
  return %n : tensor<0xf32>
}

// -----

func.func @history_push_row_amax(%h: tensor<16xf32>, %a: tensor<4xf32>) -> tensor<16xf32> {
  // CHECK: {{.*}}invalid-quant.mlir:[[@LINE+1]]:3: error: 'fp8.history_push' op amax must be tensor<f32>, got tensor<4xf32>
  %n = fp8.history_push %h, %a : (tensor<16xf32>, tensor<4xf32>) -> tensor<16xf32>
  return %n : tensor<16xf32>
}
