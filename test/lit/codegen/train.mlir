// fp8c --train --emit=cuda: with tensor scales, the backward's cast of each gradient, its
// transposed FP8 copy (for the weight-gradient GEMM) and the bias gradient (a column sum) are
// one cast-transpose launch (transpose.cuh with kRowCastBuf and kColSum), the activation
// derivative computed inline; the forward's casts write both FP8 copies the same way. With row
// (1x128 block) scales the transposed copy has scales of its own, per row (block) of the
// transpose: one cooperative cast-transpose launch reduces them per input column, casts, and
// sums the columns for the bias gradient; no bf16 transpose and no column-sum launch. The
// same launch also casts its input untransposed with scales per row of its own (kRowCast),
// the GELU / gelu_grad computed inline: one launch per tensor, not a quantize launch beside it.
// RUN: fp8c %s --train --recipe=tensorwise --tokens=64 --emit=cuda | FileCheck %s
// RUN: fp8c %s --train --recipe=rowwise --tokens=64 --emit=cuda | FileCheck %s --check-prefix=ROW
// RUN: fp8c %s --train --recipe=blockwise --tokens=64 --emit=cuda | FileCheck %s --check-prefix=BLOCK
// Unquantized (recipe none), cuBLASLt reads each transposed bf16 operand in place (TRANSA /
// TRANSB): the backward writes no transposed copy.
// RUN: fp8c %s --train --recipe=none --tokens=64 --emit=cuda | FileCheck %s --check-prefix=NONE
// Delayed scaling with gelu_saved=input: the first GEMM's epilogue writes %h as a second
// output, the FP8 GELU as D and its transpose as a third (the generated GEMM; after cuBLASLt a
// transpose launch): no launch reads %h back. With --backend=cublaslt the GELU cast-transpose
// reads %h back (cuBLASLt's GELU_AUX plus a transpose was measured slower on an H200).
// RUN: fp8c %s --train --recipe=delayed --recipe-options='gelu_saved=input' --tokens=64 --emit=cuda | FileCheck %s --check-prefixes=DELAYED,DELAYED-AUTO
// RUN: fp8c %s --train --recipe=delayed --recipe-options='gelu_saved=input' --tokens=64 --backend=generated --emit=cuda | FileCheck %s --check-prefixes=DELAYED,DELAYED-GEN
// RUN: fp8c %s --train --recipe=delayed --recipe-options='gelu_saved=input' --tokens=64 --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=DELAYED-LT
// Delayed's default, gelu_saved=e4m3: the generated GEMM alone writes the e4m3 copy of %h as
// its aux output (8-bit: `_aux8`), and the backward's gelu_grad launch reads that copy.
// RUN: fp8c %s --train --recipe=delayed --tokens=64 --emit=cuda | FileCheck %s --check-prefix=E4M3
// On cuBLASLt the GELU cast-transpose that reads %h back writes the copy from the same read.
// RUN: fp8c %s --train --recipe=delayed --tokens=64 --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=E4M3-LT

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
// CHECK: fp8c::enterLaunch(); fp8c::transposeKernel<Spec>(args);
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
// Cooperative cast-transposes ask for 4 resident blocks with one input, 3 with two; a
// (cast-)transpose with a tensor scale takes its Args as a __grid_constant__ parameter.
// CHECK: __launch_bounds__(256, 3) fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose(const __grid_constant__ fp8c::Args<
// CHECK-NOT: colSumKernel

// ROW-LABEL: fp8c CUDA for @mlp_fwd
// ROW-NOT: fp8c_mlp_fwd_k{{[0-9]+}}_transpose:
// ROW-NOT: _quantize:
// ROW: fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose: fp8.transpose %x_t, fp8.amax %x_t_amax, fp8.scale %x_t_scale,
// ROW-NEXT: fp8.cast %x_t_fp8, fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// ROW: fp8c::CastDesc::to({{[0-9]+}}, fp8c::Dt::E4M3, 64, fp8c::Gran::Row, 1)
// ROW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false)
// ROW: static constexpr int kBarrierBuf =
// ROW: static constexpr fp8c::CastDesc kRowCast =
// ROW-NEXT: fp8c::CastDesc::to({{[0-9]+}}, fp8c::Dt::E4M3, 256, fp8c::Gran::Row, 1)
// ROW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false).scaleOut({{[0-9]+}}).invOut({{[0-9]+}}, fp8c::InvLayout::RowMajor).amaxOut(
// Per-output-row casts keep the unskewed staging tile (ptxas holds them at 64 registers), and
// Args by value (as a __grid_constant__ parameter they spilled).
// ROW: static constexpr bool kSkewTile = false;
// ROW: __launch_bounds__(256, 4) fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose(fp8c::Args<
// ROW: fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose: fp8.gelu %g, fp8.transpose %g_t, fp8.amax %g_t_amax, fp8.scale
// ROW-NEXT: %g_t_scale, fp8.cast %g_t_fp8, fp8.amax %g_amax, fp8.scale %g_scale, fp8.cast %g_fp8
// ROW: fp8c::op::geluTanh(x[0])
// ROW: static constexpr fp8c::CastDesc kRowCast =
// ROW-NOT: _pointwise:
// ROW-LABEL: fp8c CUDA for @mlp_bwd
// ROW-NOT: colSumKernel
// ROW-NOT: fp8c_mlp_bwd_k{{[0-9]+}}_transpose:
// ROW-NOT: _quantize:
// ROW: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.transpose %y_grad_t, fp8.amax %y_grad_t_amax, fp8.scale
// ROW-NEXT: %y_grad_t_scale, fp8.cast %y_grad_t_fp8, fp8.amax %y_grad_amax, fp8.scale %y_grad_scale,
// ROW-NEXT: fp8.cast %y_grad_fp8, fp8.col_sum %b2_grad
// ROW: fp8c::CastDesc::to({{[0-9]+}}, fp8c::Dt::E5M2, 64, fp8c::Gran::Row, 1)
// ROW-NEXT: .localScale(fp8c::Dt::E5M2, 0, false)
// ROW: static constexpr fp8c::CastDesc kRowCast =
// ROW: static constexpr fp8c::OutDesc kColSum =
// ROW: fp8c::transposeKernel<Spec>(args);
// ROW: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.gelu_grad %h_grad, fp8.transpose %h_grad_t, fp8.amax
// ROW-NEXT: %h_grad_t_amax, fp8.scale %h_grad_t_scale, fp8.cast %h_grad_t_fp8, fp8.amax %h_grad_amax,
// ROW-NEXT: fp8.scale %h_grad_scale, fp8.cast %h_grad_fp8, fp8.col_sum %b1_grad
// ROW: static constexpr fp8c::CastDesc kRowCast =
// ROW-NOT: colSumKernel
// ROW-NOT: _quantize:
// ROW-NOT: _pointwise:

// BLOCK-LABEL: fp8c CUDA for @mlp_bwd
// BLOCK-NOT: colSumKernel
// BLOCK: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.transpose %y_grad_t, fp8.amax %y_grad_t_amax, fp8.scale
// BLOCK-NEXT: %y_grad_t_scale, fp8.cast %y_grad_t_fp8, fp8.amax %y_grad_amax, fp8.scale %y_grad_scale,
// BLOCK-NEXT: fp8.cast %y_grad_fp8, fp8.col_sum %b2_grad
// BLOCK: fp8c::CastDesc::to({{[0-9]+}}, fp8c::Dt::E4M3, 64, fp8c::Gran::Block1x128, 1)
// BLOCK-NEXT: .localScale(fp8c::Dt::E4M3, 0, true).scaleOut({{[0-9]+}}).invOut({{[0-9]+}}, fp8c::InvLayout::KBlockMajor).amaxOut(
// BLOCK: static constexpr fp8c::CastDesc kRowCast =
// BLOCK-NEXT: fp8c::CastDesc::to({{[0-9]+}}, fp8c::Dt::E4M3, 256, fp8c::Gran::Block1x128, 2)
// BLOCK-NEXT: .localScale(fp8c::Dt::E4M3, 0, true).scaleOut({{[0-9]+}}).invOut({{[0-9]+}}, fp8c::InvLayout::KBlockMajor).amaxOut(
// BLOCK-NOT: colSumKernel

// NONE-LABEL: fp8c CUDA for @mlp_fwd: 0 generated launches, 2 cuBLASLt GEMMs
// NONE: ops: fp8.linear %h, fp8.gelu %g (its input %h written as the aux output)
// NONE: epilogue GELU_BIAS, bias #{{[0-9]+}} %b1, GELU input to aux #{{[0-9]+}} %h
// NONE: fallback (where cuBLASLt has no GELU_AUX algorithm): launch fp8c_mlp_fwd_k0_aux_fallback
// NONE-LABEL: fp8c CUDA for @mlp_bwd: 3 generated launches, 4 cuBLASLt GEMMs
// NONE-NOT: transposeKernel
// NONE: ops: fp8.linear %g_grad, fp8.transpose %w2_t (read in place)
// NONE-NEXT: D[64, 512] = A[64, 256] * B[256, 512]
// NONE-NEXT: A #{{[0-9]+}} %y_grad, B #{{[0-9]+}} %w2, D #{{[0-9]+}} %g_grad
// NONE: ops: fp8.linear %w2_grad, fp8.transpose %y_grad_t (read in place), fp8.transpose %g_t (read in place)
// NONE-NEXT: D[256, 512] = A[64, 256]^T * B[64, 512]
// NONE-NEXT: A #{{[0-9]+}} %y_grad, B #{{[0-9]+}} %g, D #{{[0-9]+}} %w2_grad
// NONE: ops: fp8.linear %x_grad, fp8.transpose %w1_t (read in place)
// NONE: ops: fp8.linear %w1_grad, fp8.transpose %h_grad_t (read in place), fp8.transpose %x_t (read in place)
// NONE-NEXT: D[512, 256] = A[64, 512]^T * B[64, 256]
// NONE-NOT: transposeKernel

// The scales from the amax histories are computed by the cast-transposes that use them (which
// also write the scales the backward reads, and their inverses for cuBLASLt): no launch of their
// own. The first GEMM's D scale (%g_scale) is computed by block 0 of the cast-transpose right
// before the GEMM (Lowerer::foldScalarLaunch). The backward's first launch inverts the saved
// scales for its GEMMs.
// DELAYED-LABEL: fp8c CUDA for @mlp_fwd
// DELAYED-NOT: {{aux|_scales|_inverse}}
// DELAYED: fp8c_mlp_fwd_k0_cast_transpose: fp8.history_scale %x_scale, fp8.amax %x_amax, fp8.cast
// DELAYED-NOT: {{aux|_scales|_inverse}}
// DELAYED: fp8c_mlp_fwd_k2_cast_transpose: fp8.history_scale %w2_scale, fp8.amax %w2_amax, fp8.cast %w2_fp8,
// DELAYED-NEXT: fp8.transpose %w2_fp8_t, fp8.history_scale %g_scale
// DELAYED: __device__ static void scalars(void *const *buf, long long m, float *slot, bool leader) {
// DELAYED: fp8c::f32p(buf[{{[0-9]+}}])[0] = fp8c::reciprocal(s0);
// DELAYED-NEXT: }
// DELAYED-NEXT: if (leader) {
// DELAYED-NEXT: float slot[1];
// DELAYED-NEXT: const float s0 = fp8c::historyScale<fp8c::Dt::E4M3, fp8c::HistoryAlgo::Max>
// DELAYED-NOT: {{_scales|_inverse}}
// DELAYED: GEMM fp8c_mlp_fwd_k3_gemm =====
// DELAYED: ops: fp8.scaled_matmul %h, fp8.gelu %g (its input %h written as the aux output), fp8.amax %g_amax, fp8.cast %g_fp8, fp8.transpose %g_fp8_t
// DELAYED: epilogue GELU_BIAS, bias #{{[0-9]+}} %b1, AMAX_D #{{[0-9]+}} %g_amax, FP8 D scale #{{[0-9]+}} %g_scale, GELU input to aux #{{[0-9]+}} %h, D transposed to #{{[0-9]+}} %g_fp8_t
// DELAYED-GEN-NOT: transpose_fallback
// DELAYED-NOT: {{_cast_transpose|_inverse}}
// DELAYED: ops: fp8.scaled_matmul %y{{$}}
// DELAYED-NOT: {{_cast_transpose|_inverse}}
// DELAYED-LT-LABEL: fp8c CUDA for @mlp_fwd
// DELAYED-LT: ops: fp8.scaled_matmul %h{{$}}
// DELAYED-LT: fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose: fp8.history_scale %g_scale, fp8.gelu %g, fp8.amax %g_amax,
// DELAYED-LT-NEXT: fp8.cast %g_fp8, fp8.transpose %g_fp8_t
// DELAYED-LABEL: fp8c CUDA for @mlp_bwd
// DELAYED-NOT: _inverse
// DELAYED: fp8c_mlp_bwd_k0_cast_transpose: fp8.history_scale %y_grad_scale
// DELAYED: 1 / %w2_scale for cuBLASLt
// DELAYED: if (leader) fp8c::f32p(buf[{{[0-9]+}}])[0] = fp8c::reciprocal(fp8c::f32p(buf[{{[0-9]+}}])[0]);
// DELAYED-NOT: _inverse
// The second layer's dgrad GEMM takes gelu_grad with the saved %h, the cast, amax, transpose
// and the column sums of the first layer's bias; on cuBLASLt (auto, untuned at 64 tokens) it
// writes %g_grad and one cast-transpose launch computes the rest from it. On the generated GEMM
// alone (--backend=generated) %g_grad has no buffer.
// DELAYED: GEMM fp8c_mlp_bwd_k1_gemm =====
// DELAYED-NEXT: ops: fp8.scaled_matmul %g_grad, fp8.gelu_grad %h_grad (its saved input %h read in the epilogue), fp8.amax %h_grad_amax, fp8.cast %h_grad_fp8, fp8.col_sum %b1_grad, fp8.transpose %h_grad_fp8_t
// DELAYED-AUTO: D transposed to #{{[0-9]+}} %h_grad_fp8_t, D from gelu_grad(result, #{{[0-9]+}} %h) (cuBLASLt: the result to #{{[0-9]+}} %g_grad), column sums to #{{[0-9]+}} %b1_grad (partials per 64 rows in #{{[0-9]+}} %b1_grad.partials)
// DELAYED-GEN: D transposed to #{{[0-9]+}} %h_grad_fp8_t, D from gelu_grad(result, #{{[0-9]+}} %h), column sums to #{{[0-9]+}} %b1_grad (partials per 64 rows in #{{[0-9]+}} %b1_grad.partials)
// DELAYED-GEN-NEXT: backend generated
// DELAYED-GEN-NOT: {{_cast_transpose|gelu_grad}}
// DELAYED-AUTO: after cuBLASLt (the epilogue from its bf16 result #{{[0-9]+}} %g_grad): launch fp8c_mlp_bwd_k1_grad_fallback
// DELAYED-AUTO-NEXT: grid:
// DELAYED-AUTO-NEXT: fp8c_mlp_bwd_k1_grad_fallback: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.cast
// DELAYED-LT-LABEL: fp8c CUDA for @mlp_bwd
// DELAYED-LT: ops: fp8.scaled_matmul %g_grad{{$}}
// DELAYED-LT: fp8c_mlp_bwd_k{{[0-9]+}}_cast_transpose: fp8.history_scale %h_grad_scale, fp8.gelu_grad %h_grad,

// E4M3-LABEL: fp8c CUDA for @mlp_fwd
// E4M3: #{{[0-9]+}} %h_e4m3 tensor<64x512xf8E4M3FN> output
// E4M3-NOT: %h tensor
// E4M3: generated sm90 GEMM fp8c_mlp_fwd_k3_gemm =====
// E4M3-NEXT: ops: fp8.scaled_matmul %h, fp8.gelu %g, fp8.amax %g_amax, fp8.cast %g_fp8, fp8.transpose %g_fp8_t, fp8.convert %h_e4m3 (the e4m3 copy of its pre-activation, written as the aux output)
// E4M3: GELU input to aux #{{[0-9]+}} %h_e4m3, D transposed to #{{[0-9]+}} %g_fp8_t
// E4M3-NEXT: backend generated: runtime/gpu/GemmSm90 (gemm_sm90.cuh), any M, no fallbacks
// The backward's dgrad GEMM reads the e4m3 copy in its epilogue (gemm_sm90_offload.cuh's
// tables); auto's other choice is cuBLASLt and the launch after it, whose gelu_grad's derivative
// of the e4m3 copy comes from a table of its 256 codes, in 32 KB of dynamic shared memory.
// E4M3-LABEL: fp8c CUDA for @mlp_bwd
// E4M3: %h_e4m3 tensor<64x512xf8E4M3FN> input
// E4M3: ops: fp8.scaled_matmul %g_grad, fp8.convert %h_saved, fp8.gelu_grad %h_grad (its saved input %h_e4m3 read in the epilogue), fp8.amax %h_grad_amax, fp8.cast %h_grad_fp8, fp8.col_sum %b1_grad, fp8.transpose %h_grad_fp8_t
// E4M3: D from gelu_grad(result, #{{[0-9]+}} %h_e4m3) (cuBLASLt: the result to #{{[0-9]+}} %g_grad)
// E4M3: launch fp8c_mlp_bwd_k1_grad_fallback
// E4M3-NEXT: persistent, 32768 B of dynamic shared memory; buffers:
// E4M3: fp8c_mlp_bwd_k1_grad_fallback: fp8.convert %h_saved, fp8.gelu_grad %h_grad, fp8.amax
// E4M3: fp8c::InDesc::full(0, fp8c::Dt::E4M3, 512), // %h_e4m3
// E4M3: const float t0 = fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::mul(x[1], x[0])); // fp8.gelu_grad %h_grad, its derivative from the table
// E4M3-NOT: geluTanhGrad
// E4M3: static constexpr int kTabIn = 0;
// E4M3-NEXT: static float tabulate(float x) { return fp8c::op::geluTanhDeriv(fp8c::roundTo<fp8c::Dt::BF16>(x)); }
// E4M3-LT-LABEL: fp8c CUDA for @mlp_fwd
// E4M3-LT: ops: fp8.scaled_matmul %h{{$}}
// E4M3-LT: fp8c_mlp_fwd_k{{[0-9]+}}_cast_transpose: fp8.history_scale %g_scale, fp8.gelu %g, fp8.amax %g_amax,
// E4M3-LT-NEXT: fp8.cast %g_fp8, fp8.transpose %g_fp8_t, fp8.convert %h_e4m3
// E4M3-LT: fp8c::InDesc::full(0, fp8c::Dt::BF16, 512), // %h
// E4M3-LT: static constexpr int kCopyIn = 0;
// E4M3-LT-NEXT: static constexpr fp8c::OutDesc kCopy = fp8c::OutDesc::to({{[0-9]+}}, fp8c::Dt::E4M3, 512);
// E4M3-LT-NOT: ===== step {{[0-9]+}}: launch fp8c_mlp_fwd_k{{[0-9]+}}_pointwise
// E4M3-LT-LABEL: fp8c CUDA for @mlp_bwd

