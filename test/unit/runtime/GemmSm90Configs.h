// The generated Hopper GEMM configs the compile test compiles (GemmSm90Configs.cpp).
#pragma once

#include "runtime/gpu/GemmSm90.h"

#include <vector>

namespace fp8c::sm90configs {

/// The default kernel with a cooperative bn x stages tile.
GemmSm90Spec kernel(int bn, int stages, bool overlap = true);
/// The default kernel with a ping-pong bm x bn x stages tile.
GemmSm90Spec pingPong(int bm, int bn, int stages, bool overlap = true);
/// The extra epilogue outputs (pre-activation, D transposed) of an FP8 D.
std::vector<GemmSm90Spec> auxConfigs();
/// The backward's gelu_grad epilogue with column sums: promoted 128 x 192, ping-pong, 64 rows.
std::vector<GemmSm90Spec> geluGradConfigs();
/// The pre-activation as its e4m3 copy (auxFp8) beside the FP8 GELU, amax and D^T.
std::vector<GemmSm90Spec> auxFp8Configs();
/// The bf16 pre-activation beside a bf16 D = GELU with its amax (auxBesideBf16D).
std::vector<GemmSm90Spec> auxBf16DConfigs();
/// The dual GEMM with the swiglu epilogue: each tile the heuristic or the autotuner picks (FP8 D
/// 128 x 256 with the TMA-store epilogue, bf16 and FP8 D ping-pong 128 x 128, promotion
/// 128 x 192 with the register epilogue, decode ping-pong 64-row tiles) with its amax.
std::vector<GemmSm90Spec> swigluConfigs();
/// The residual add in the epilogue: ping-pong and cooperative bf16 D (with the sum's amax),
/// row scales with bias, GELU and a per-row amax, an FP8 D, promotion, and 64-row tiles storing
/// from registers.
std::vector<GemmSm90Spec> residualConfigs();
/// The 1x128-block FP8 cast of D: promoted 128 x 128 with bias and GELU (TMA and register
/// stores), decode 64 x 256, ping-pong with row scales into e5m2.
std::vector<GemmSm90Spec> blockCastConfigs();
/// A given MN-major (aTransposed, the weight gradient's dY read untransposed): the promoting
/// e5m2 x e4m3 tiles the tuner tries for it (128 x 192, 128 x 256 in halves, 128 x 128), fast
/// accumulation with a bias, an FP8 D with amax, an f16 D.
std::vector<GemmSm90Spec> aTransposedConfigs();
/// `k` with the training MLP's first GEMM's epilogue: an FP8 D with bias, tanh GELU and amax,
/// the bf16 pre-activation (auxOut) and D transposed (transD).
GemmSm90Spec withTrainingForwardEpilogue(GemmSm90Spec k);
/// Every config: the heuristic's and the benchmark's, plus each epilogue and dtype.
std::vector<GemmSm90Spec> configs();

} // namespace fp8c::sm90configs
