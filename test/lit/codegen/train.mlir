// fp8c --train --emit=cuda: the backward's reduce kernel lowers the activation derivative as
// pointwise code, the bias gradient as a column-sum launch (colsum.cuh) and the FP8 transpose of
// the gradient's cast as a transpose launch.
// RUN: fp8c %s --train --recipe=tensorwise --tokens=64 --emit=cuda | FileCheck %s

func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x512xbf16>, tensor<256x512xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// CHECK-LABEL: fp8c CUDA for @mlp_fwd
// CHECK-LABEL: fp8c CUDA for @mlp_bwd
// CHECK: fp8c_mlp_bwd_k{{[0-9]+}}_col_sum: fp8.col_sum %b2_grad
// CHECK: #include "fp8c/colsum.cuh"
// CHECK: static constexpr int kE = 8, kChunks = 4;
// CHECK: fp8c::colSumKernel<Spec>(args);
// CHECK: fp8.gelu_grad %h_grad
// CHECK: fp8c::op::geluTanhGrad(x[0], x[1])
// CHECK: fp8c_mlp_bwd_k{{[0-9]+}}_col_sum: fp8.gelu_grad %h_grad, fp8.col_sum %b1_grad
// CHECK: fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::geluTanhGrad(x[0], x[1]))
// CHECK: fp8c_mlp_bwd_k{{[0-9]+}}_transpose: fp8.transpose %h_grad_fp8_t
