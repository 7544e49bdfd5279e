// `quantize` of an fp8.linear whose input has rank > 2 (x [B, T, K], as nn.Linear takes it): the
// GEMM sees x as [B*T, K]. One scale for the whole tensor covers it as it is (tensorwise,
// delayed); row and block scales are defined on a 2-D [M, K], so rowwise and blockwise refuse it
// with a located error that names the recipe.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise}' | FileCheck %s --check-prefix=TW
// RUN: fp8c %s --passes='quantize{recipe=delayed}' | FileCheck %s --check-prefix=DL
// RUN: fp8c %s --passes='quantize{recipe=tensorwise weights=static}' | FileCheck %s --check-prefix=STATIC
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=rowwise}' 2>&1 | FileCheck %s --check-prefix=RW
// RUN: %expect-exit 1 fp8c %s --recipe=blockwise 2>&1 | FileCheck %s --check-prefix=BW

func.func @linear3d(%x: tensor<?x4x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x4x512xbf16> {
  // RW: quantize-linear-rank3.mlir:[[@LINE+2]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe rowwise (its row scales are defined on [M, K]; tensorwise and delayed take any rank), got tensor<?x4x256xbf16>; flatten the leading dims first
  // BW: quantize-linear-rank3.mlir:[[@LINE+1]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe blockwise (its block_1x128 scales are defined on [M, K]; tensorwise and delayed take any rank), got tensor<?x4x256xbf16>; flatten the leading dims first
  %y = fp8.linear %x, %w, %b : (tensor<?x4x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
  return %y : tensor<?x4x512xbf16>
}

// TW-LABEL: func.func @linear3d(
// TW-NEXT:   %x_amax = fp8.amax %x {granularity = "tensor"} : (tensor<?x4x256xbf16>) -> tensor<f32>
// TW-NEXT:   %x_scale = fp8.scale %x_amax {dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
// TW-NEXT:   %x_fp8 = fp8.cast %x, %x_scale {granularity = "tensor"} : (tensor<?x4x256xbf16>, tensor<f32>) -> tensor<?x4x256xf8E4M3FN>
// TW:        %y = fp8.scaled_matmul %x_fp8, %w_fp8, %x_scale, %w_scale, %b {fast_accum = true, out = bf16} : (tensor<?x4x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
// TW-NEXT:   return %y : tensor<?x4x512xbf16>

// DL-LABEL: func.func @linear3d(
// DL-SAME: %x_amax_history: tensor<16xf32> {fp8.state = "x_amax_history"}
// DL:        %x_amax = fp8.amax %x {granularity = "tensor"} : (tensor<?x4x256xbf16>) -> tensor<f32>
// DL-NEXT:   %x_scale = fp8.history_scale %x_amax_history
// DL-NEXT:   %x_amax_history_next = fp8.history_push %x_amax_history, %x_amax
// DL-NEXT:   %x_fp8 = fp8.cast %x, %x_scale {granularity = "tensor"} : (tensor<?x4x256xbf16>, tensor<f32>) -> tensor<?x4x256xf8E4M3FN>
// DL:        %y = fp8.scaled_matmul %x_fp8, %w_fp8, %x_scale, %w_scale, %b {fast_accum = true, out = bf16} : (tensor<?x4x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x4x512xbf16>

// STATIC-LABEL: func.func @linear3d(
// STATIC-SAME: %w: tensor<512x256xbf16> {fp8.param = true}
// STATIC:        %y = fp8.scaled_matmul %x_fp8, %w_fp8, {{.*}} -> tensor<?x4x512xbf16>
