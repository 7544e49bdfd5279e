// `fp8c --emit=cuda` of fp8.linear on inputs of rank > 2, per recipe: each GEMM buffer of rank
// > 2 is the [prod(leading dims), K] matrix (D[4*M, 512] for x [?, 4, 256]), launches run over
// those rows, a padded FP8 copy keeps its pitch, and the bias is the GEMM epilogue's. Rowwise and
// blockwise refuse the rank-3 input (located errors).
// RUN: fp8c %s --emit=cuda | FileCheck %s --check-prefix=NONE
// RUN: fp8c %s --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefixes=TW,FP8
// RUN: fp8c %s --recipe=delayed --emit=cuda | FileCheck %s --check-prefixes=DL,FP8
// RUN: fp8c %s --recipe=tensorwise --backend=generated --emit=cuda | FileCheck %s --check-prefix=GEN
// RUN: fp8c %s --recipe=tensorwise --emit=ptx > /dev/null
// RUN: %expect-exit 1 fp8c %s --recipe=rowwise --emit=cuda 2>&1 | FileCheck %s --check-prefix=RW
// RUN: %expect-exit 1 fp8c %s --recipe=blockwise --emit=cuda 2>&1 | FileCheck %s --check-prefix=BW

func.func @linear3d(%x: tensor<?x4x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x4x512xbf16> {
  // RW: linear-rank3.mlir:[[@LINE+2]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe rowwise
  // BW: linear-rank3.mlir:[[@LINE+1]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe blockwise
  %y = fp8.linear %x, %w, %b : (tensor<?x4x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
  return %y : tensor<?x4x512xbf16>
}

// K = 100: the FP8 copy of x [2, 3, 5, 100] has rows of 112 bytes; the second GEMM's bf16 D
// [30, 100] has rows of 104 elements, which the residual add reads.
func.func @mlp4d(%x: tensor<2x3x5x100xbf16>, %w1: tensor<64x100xbf16>, %b1: tensor<64xbf16>, %w2: tensor<100x64xbf16>) -> tensor<2x3x5x100xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<2x3x5x100xbf16>, tensor<64x100xbf16>, tensor<64xbf16>) -> tensor<2x3x5x64xbf16>
  %g = fp8.gelu %h : (tensor<2x3x5x64xbf16>) -> tensor<2x3x5x64xbf16>
  %y = fp8.linear %g, %w2 : (tensor<2x3x5x64xbf16>, tensor<100x64xbf16>) -> tensor<2x3x5x100xbf16>
  %r = fp8.add %y, %x : (tensor<2x3x5x100xbf16>, tensor<2x3x5x100xbf16>) -> tensor<2x3x5x100xbf16>
  return %r : tensor<2x3x5x100xbf16>
}

// NONE-LABEL: // fp8c CUDA for @linear3d: 0 generated launches, 1 cuBLASLt GEMMs
// NONE: // ===== step 0: cuBLASLt GEMM fp8c_linear3d_k0_gemm =====
// NONE-NEXT: //   ops: fp8.linear %y
// NONE-NEXT: //   D[4*M, 512] = A[4*M, 256] * B[512, 256]^T (TN)
// NONE-NEXT: //   A #0 %x, B #1 %w, D #3 %y
// NONE-NEXT: //   epilogue BIAS, bias #2 %b
// NONE-LABEL: // fp8c CUDA for @mlp4d:
// NONE: //   D[30, 64] = A[30, 100] * B[64, 100]^T (TN), run with K 104 (zero pad columns)

// FP8-LABEL: // fp8c CUDA for @linear3d:
// FP8: //   #{{[0-9]+}} %x_fp8 tensor<?x4x256xf8E4M3FN> temp
// TW: fp8c_linear3d_k0_quantize: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// DL: fp8c_linear3d_k1_prologue: fp8.history_scale %x_scale, fp8.amax %x_amax, fp8.cast %x_fp8
// FP8: static constexpr fp8c::Extent kRows = {4, 0};
// FP8-NEXT: static constexpr long long kCols = 256;
// FP8: fp8c::CastDesc::to({{[12]}}, fp8c::Dt::E4M3, 256, fp8c::Gran::Tensor
// FP8: cuBLASLt GEMM fp8c_linear3d_k{{[0-9]}}_gemm =====
// FP8-NEXT: //   ops: fp8.scaled_matmul %y
// FP8-NEXT: //   D[4*M, 512] = A[4*M, 256] * B[512, 256]^T (TN)
// FP8-NEXT: //   A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w_fp8, D #{{[0-9]+}} %y
// FP8-NEXT: //   scales SCALAR_32F: 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_scale.inv, fast accumulation
// FP8-NEXT: //   epilogue BIAS, bias #2 %b
// FP8-LABEL: // fp8c CUDA for @mlp4d:
// FP8: //   #{{[0-9]+}} %x_fp8 tensor<2x3x5x100xf8E4M3FN> temp, pitch 112
// FP8: //   #{{[0-9]+}} %y tensor<2x3x5x100xbf16> temp, pitch 104
// FP8: static constexpr fp8c::Extent kRows = {0, 30};
// FP8: fp8c::CastDesc::to({{[12]}}, fp8c::Dt::E4M3, 112, fp8c::Gran::Tensor
// FP8: //   D[30, 64] = A[30, 100] * B[64, 100]^T (TN)
// FP8: //   epilogue BIAS, bias #2 %b1
// FP8: //   D[30, 100] = A[30, 64] * B[100, 64]^T (TN)
// FP8: fp8c_mlp4d_k{{[0-9]}}_epilogue: fp8.add %r
// FP8: fp8c::InDesc::full(0, fp8c::Dt::BF16, 104), // %y

// GEN-LABEL: // fp8c CUDA for @linear3d:
// GEN: // ===== step {{[0-9]}}: generated sm90 GEMM fp8c_linear3d_k2_gemm =====
// GEN-NEXT: //   ops: fp8.scaled_matmul %y
// GEN-NEXT: //   D[4*M, 512] = A[4*M, 256] * B[512, 256]^T (TN)
