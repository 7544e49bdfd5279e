// fp8c --train --emit=cuda: with tensor scales, the backward's cast of each gradient, its
// transposed FP8 copy (for the weight-gradient GEMM) and the bias gradient (a column sum) are
// one cast-transpose launch (transpose.cuh with kRowCastBuf and kColSum), the activation
// derivative computed inline; the forward's casts write both FP8 copies the same way. With row
// scales the transposed copy has scales of its own, so the bias gradient stays a column-sum
// launch (colsum.cuh).
// RUN: fp8c %s --train --recipe=tensorwise --tokens=64 --emit=cuda | FileCheck %s
// RUN: fp8c %s --train --recipe=rowwise --tokens=64 --emit=cuda | FileCheck %s --check-prefix=ROW

func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x512xbf16>, tensor<256x512xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// CHECK-LABEL: fp8c CUDA for @mlp_fwd
// CHECK: fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8,
// CHECK-NEXT: fp8.transpose %x_fp8_t
// CHECK: static constexpr int kRowCastBuf =
// CHECK: fp8c::transposeKernel<Spec>(args);
// CHECK-LABEL: fp8c CUDA for @mlp_bwd
// CHECK-NOT: colSumKernel
// CHECK: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.amax %y_grad_amax, fp8.scale %y_grad_scale, fp8.cast
// CHECK-NEXT: %y_grad_fp8, fp8.transpose %y_grad_fp8_t, fp8.col_sum %b2_grad
// CHECK: static constexpr fp8c::OutDesc kColSum = fp8c::OutDesc::to({{[0-9]+}}, fp8c::Dt::BF16, 0);
// CHECK: fp8c::transposeKernel<Spec>(args);
// CHECK: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.scale
// CHECK-NEXT: %h_grad_scale, fp8.cast %h_grad_fp8, fp8.transpose %h_grad_fp8_t, fp8.col_sum %b1_grad
// CHECK: fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::geluTanhGrad(x[0], x[1]))
// CHECK: static constexpr fp8c::OutDesc kColSum =
// CHECK-NOT: colSumKernel

// ROW-LABEL: fp8c CUDA for @mlp_bwd
// ROW: fp8c_mlp_bwd_k{{[0-9]+}}_col_sum: fp8.col_sum %b2_grad
// ROW: #include "fp8c/colsum.cuh"
// ROW: static constexpr int kE = 8, kChunks = 4;
// ROW: fp8c::colSumKernel<Spec>(args);
