// The generated Hopper GEMM configs the compile test (GemmSm90CompileTest.cpp) compiles: every
// tile shape the heuristic and the benchmark use, both schedules, clusters, the bf16-A prologue,
// the extra epilogue outputs, per-row amax, each epilogue and dtype.
#include "unit/runtime/GemmSm90Configs.h"

namespace fp8c::sm90configs {


GemmSm90Spec kernel(int bn, int stages, bool overlap) {
  GemmSm90Spec k;
  k.bn = bn;
  k.stages = stages;
  k.overlap = overlap;
  return k;
}

GemmSm90Spec pingPong(int bm, int bn, int stages, bool overlap) {
  GemmSm90Spec k = kernel(bn, stages, overlap);
  k.bm = bm;
  k.schedule = GemmSchedule::PingPong;
  return k;
}

namespace {

/// The ping-pong configs: every tile shape it takes, each epilogue and dtype.
std::vector<GemmSm90Spec> pingPongConfigs() {
  std::vector<GemmSm90Spec> out;
  out.push_back(pingPong(128, 128, 6));
  out.push_back(pingPong(128, 128, 7));
  out.push_back(pingPong(128, 128, 6, false));
  out.push_back(pingPong(128, 64, 8));
  out.push_back(pingPong(64, 256, 5));
  out.push_back(pingPong(64, 128, 8));
  out.push_back(pingPong(64, 64, 8));
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  out.push_back(k);
  k.activation = Activation::GeluErf;
  k.biasType = DType::F32;
  k.dType = DType::F32;
  out.push_back(k);
  k = pingPong(64, 256, 5);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.activation = Activation::Silu;
  k.biasType = DType::F16;
  k.amaxD = true;
  out.push_back(k);
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k);
  k.activation = Activation::Relu;
  k.dType = DType::F8E5M2;
  out.push_back(k);
  k = pingPong(128, 128, 6);
  k.aType = DType::F8E5M2;
  k.dType = DType::F16;
  out.push_back(k);
  k = pingPong(128, 128, 6);
  k.bType = DType::F8E5M2;
  k.dType = DType::F32;
  out.push_back(k);
  return out;
}

/// Clusters of two blocks sharing B (TMA multicast): both schedules, the decode tile, an
/// epilogue with column inputs, promotion.
std::vector<GemmSm90Spec> clusterConfigs() {
  std::vector<GemmSm90Spec> out;
  for (GemmSm90Spec k : {pingPong(128, 128, 6), kernel(256, 4), kernel(128, 6)}) {
    k.clusterM = 2;
    out.push_back(k);
  }
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.clusterM = 2;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  out.push_back(k);
  k = kernel(256, 4);
  k.clusterM = 2;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k);
  k = kernel(128, 6, false);
  k.clusterM = 2;
  k.scaleMode = GemmScaleMode::Block128;
  out.push_back(k);
  k = kernel(128, 8);
  k.bm = 64;
  k.clusterM = 2;
  out.push_back(k);
  // The training MLP's first GEMM paired (an autotuner candidate): FP8 D, bias, GELU, amax, the
  // pre-activation and D^T.
  for (GemmSm90Spec x : {pingPong(128, 128, 4), kernel(256, 3)}) {
    x.clusterM = 2;
    out.push_back(withTrainingForwardEpilogue(x));
  }
  return out;
}

/// The bf16-A prologue (castA): the tile configs the heuristic gives it (stages cut to fit the
/// staging slots), tensor and row scales, amax of A, e5m2 A, promotion, three slots.
std::vector<GemmSm90Spec> castConfigs() {
  std::vector<GemmSm90Spec> out;
  auto cast = [](GemmSm90Spec k, int stages) {
    k.castA = true;
    k.stages = stages;
    return k;
  };
  GemmSm90Spec k = cast(pingPong(128, 128, 4), 4);
  k.amaxA = true;
  out.push_back(k);
  k = cast(pingPong(128, 128, 4), 4);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  out.push_back(k);
  k = cast(kernel(256, 3), 3);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  k.amaxA = true;
  out.push_back(k);
  k = cast(kernel(128, 4), 4);
  k.aType = DType::F8E5M2;
  k.fastAccum = false;
  k.overlap = false;
  out.push_back(k);
  k = cast(kernel(128, 7), 7);
  k.bm = 64;
  k.amaxA = true;
  out.push_back(k);
  k = cast(pingPong(128, 128, 3), 3);
  k.castSlots = 3;
  out.push_back(k);
  return out;
}

/// Cast-ahead A (castAhead): the heuristic's tiles for large Linear shapes (ping-pong
/// 128 x 128 and cooperative 128 x 256), tensor and row scales, amax of A, an FP8 D with bias,
/// GELU and amax, 64-row tiles, e5m2 A with promotion.
std::vector<GemmSm90Spec> castAheadConfigs() {
  std::vector<GemmSm90Spec> out;
  auto ahead = [](GemmSm90Spec k) {
    k.castAhead = true;
    return k;
  };
  GemmSm90Spec k = ahead(pingPong(128, 128, 6));
  k.amaxA = true;
  out.push_back(k);
  k = ahead(kernel(256, 4));
  k.scaleMode = GemmScaleMode::OuterVector;
  out.push_back(k);
  k = ahead(pingPong(128, 128, 5));
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  out.push_back(k);
  k = ahead(kernel(128, 8));
  k.bm = 64;
  k.amaxA = true;
  out.push_back(k);
  k = ahead(kernel(128, 6, false));
  k.aType = DType::F8E5M2;
  k.fastAccum = false;
  k.overlap = false;
  out.push_back(k);
  return out;
}

} // namespace

/// The backward's gelu_grad epilogue (the saved input read, its column sums): the MLP's second
/// dgrad GEMM as the heuristic picks it (e5m2 dY, promotion, 128 x 192 x 5), ping-pong 128 x 128
/// with f32 sums, 64-row tiles for small M; then the offloaded epilogue (on the producer's idle
/// warps): that dgrad GEMM at 128 x 128 x 4, the same reading the GELU input's e4m3 copy (its
/// derivative from tables), and the training MLP's first GEMM (the GELU with bias, the
/// pre-activation, amax and D^T; fast accumulation).
std::vector<GemmSm90Spec> geluGradConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = kernel(192, 5, false);
  k.aType = DType::F8E5M2;
  k.fastAccum = false;
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  k.transD = true;
  k.geluGradIn = true;
  k.colSumType = DType::BF16;
  out.push_back(k);
  k = pingPong(128, 128, 5);
  k.aType = DType::F8E5M2;
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  k.transD = true;
  k.geluGradIn = true;
  k.colSumType = DType::F32;
  out.push_back(k);
  k = kernel(128, 8);
  k.bm = 64;
  k.dType = DType::F8E4M3FN;
  k.geluGradIn = true;
  k.colSumType = DType::BF16;
  out.push_back(k);
  k = out.front(); // the dgrad GEMM, offloaded
  k.bn = 128;
  k.stages = 4;
  k.epilogueWarps = true;
  out.push_back(k);
  k.geluGradInFp8 = true;
  out.push_back(k);
  k = withTrainingForwardEpilogue(kernel(128, 4));
  k.epilogueWarps = true;
  out.push_back(k);
  return out;
}

std::vector<GemmSm90Spec> swigluConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = kernel(256, 4);
  k.swiglu = true;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k); // the delayed recipe's: FP8 h, TMA stores
  k = pingPong(128, 128, 6);
  k.swiglu = true;
  k.amaxD = true;
  out.push_back(k); // tensorwise: bf16 h and its amax
  k.dType = DType::F8E4M3FN;
  out.push_back(k); // FP8 h from the register epilogue (64 output columns)
  k = kernel(192, 5, false);
  k.swiglu = true;
  k.fastAccum = false;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k); // promotion, 96 output columns
  const GemmSm90Spec promoting = k;
  k = pingPong(64, 128, 8);
  k.swiglu = true;
  k.amaxD = true;
  out.push_back(k); // decode
  k = pingPong(64, 256, 4);
  k.swiglu = true;
  k.dType = DType::F8E4M3FN;
  out.push_back(k);
  k = promoting;
  k.scaleMode = GemmScaleMode::Block128;
  k.dType = DType::BF16;
  k.amaxD = false;
  out.push_back(k); // blockwise: bf16 h (its 1x128 cast is a launch of its own), 96 columns
  k.bn = 128;
  k.stages = 6;
  out.push_back(k); // 64 output columns
  k = pingPong(128, 128, 6);
  k.swiglu = true;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.amaxD = k.amaxRows = true;
  out.push_back(k); // rowwise: bf16 h and its per-row amax (the row cast needs whole rows)
  k = kernel(256, 4);
  k.swiglu = true;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.amaxD = k.amaxRows = true;
  out.push_back(k); // the same through TMA stores, 128 output columns
  k = pingPong(64, 128, 8);
  k.swiglu = true;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k); // decode, row scales into an FP8 h with its tensor amax
  return out;
}

std::vector<GemmSm90Spec> residualConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.residualIn = true;
  out.push_back(k); // the down projection plus the residual stream (K 14336: ping-pong)
  k = kernel(256, 4);
  k.residualIn = true;
  k.amaxD = true;
  out.push_back(k); // wide cooperative tiles with the tensor amax of the sum
  k = pingPong(128, 128, 6);
  k.residualIn = true;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = k.amaxRows = true;
  out.push_back(k); // row scales, bias and GELU before the add, per-row amax
  k = kernel(256, 4);
  k.residualIn = true;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k); // the delayed recipe's FP8 sum through TMA stores
  k = kernel(192, 5, false);
  k.residualIn = true;
  k.fastAccum = false;
  k.biasType = DType::F32;
  out.push_back(k); // promotion
  k = kernel(128, 8);
  k.bm = 64;
  k.residualIn = true;
  k.tmaStore = false;
  out.push_back(k); // decode, the register epilogue
  return out;
}

/// The extra epilogue outputs (the bf16 pre-activation, D transposed) of an FP8 D: the
/// training MLP's first GEMM (ping-pong and cooperative 128 x 128), the transposed D
/// alone on wide cooperative tiles, the pre-activation alone on 64-row tiles, and with
/// promotion on 128 x 192 tiles; and the backward's gelu_grad epilogue with column sums.
std::vector<GemmSm90Spec> auxConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = withTrainingForwardEpilogue(pingPong(128, 128, 5));
  out.push_back(k);
  k.schedule = GemmSchedule::Cooperative;
  out.push_back(k);
  k = kernel(256, 3);
  k.dType = DType::F8E5M2;
  k.transD = true;
  out.push_back(k);
  k = kernel(128, 8);
  k.bm = 64;
  k.dType = DType::F8E4M3FN;
  k.activation = Activation::Relu;
  k.auxOut = true;
  out.push_back(k);
  k = kernel(192, 4, false);
  k.fastAccum = false;
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::F32;
  k.activation = Activation::GeluTanh;
  k.auxOut = true;
  k.transD = true;
  out.push_back(k);
  for (const GemmSm90Spec &g : geluGradConfigs())
    out.push_back(g);
  for (const GemmSm90Spec &g : auxFp8Configs())
    out.push_back(g);
  for (const GemmSm90Spec &g : auxBf16DConfigs())
    out.push_back(g);
  return out;
}

/// The bf16 pre-activation beside a bf16 D = GELU, with its amax (a current-scaling training
/// MLP's first GEMM, whose GELU is cast once its amax is known): ping-pong and cooperative
/// 128 x 128, cooperative 128 x 256 and 128 x 192, and 64-row tiles (the autotuner's
/// candidates).
std::vector<GemmSm90Spec> auxBf16DConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = withTrainingForwardEpilogue(pingPong(128, 128, 5));
  k.dType = DType::BF16;
  k.transD = false;
  out.push_back(k);
  k.schedule = GemmSchedule::Cooperative;
  out.push_back(k);
  k.bn = 256;
  k.stages = 3;
  out.push_back(k);
  k.bn = 192; // three 64-column units per warpgroup
  k.stages = 4;
  out.push_back(k);
  k.bm = 64;
  k.bn = 128;
  k.stages = 6;
  out.push_back(k);
  return out;
}

/// The pre-activation written as its e4m3 copy (auxFp8, gelu_saved=e4m3): the delayed training
/// MLP's first GEMM, ping-pong and cooperative 128 x 128.
std::vector<GemmSm90Spec> auxFp8Configs() {
  GemmSm90Spec k = withTrainingForwardEpilogue(pingPong(128, 128, 5));
  k.auxFp8 = true;
  GemmSm90Spec c = k;
  c.schedule = GemmSchedule::Cooperative;
  return {k, c};
}

std::vector<GemmSm90Spec> blockCastConfigs() {
  std::vector<GemmSm90Spec> out;
  GemmSm90Spec k = kernel(128, 6, false);
  k.scaleMode = GemmScaleMode::Block128;
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.blockCast = true;
  out.push_back(k); // the blockwise MLP's first GEMM (promotion, TMA stores)
  k.biasType.reset();
  k.activation = Activation::Silu;
  k.tmaStore = false;
  out.push_back(k); // the register epilogue (N or D's pitch not in 16-byte units)
  k = kernel(256, 5, false);
  k.bm = 64;
  k.scaleMode = GemmScaleMode::Block128;
  k.dType = DType::F8E4M3FN;
  k.activation = Activation::Relu;
  k.blockCast = true;
  out.push_back(k); // decode: 64 x 256, 128 columns per warpgroup
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E5M2;
  k.activation = Activation::GeluErf;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.blockCast = true;
  out.push_back(k); // row scales, ping-pong, e5m2
  return out;
}

/// Every config the runner's heuristic and the benchmark use, plus each epilogue and dtype.
std::vector<GemmSm90Spec> aTransposedConfigs() {
  std::vector<GemmSm90Spec> out;
  for (GemmSm90Spec k : {kernel(192, 5, false), kernel(256, 4, false), kernel(128, 6, false)}) {
    k.aTransposed = true;
    k.fastAccum = false;
    k.aType = DType::F8E5M2;
    out.push_back(k);
  }
  GemmSm90Spec k = kernel(256, 4);
  k.aTransposed = true;
  k.biasType = DType::BF16;
  out.push_back(k);
  k = kernel(128, 6);
  k.aTransposed = true;
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  out.push_back(k);
  k.dType = DType::F16;
  k.amaxD = false;
  k.bType = DType::F8E5M2;
  out.push_back(k);
  return out;
}

std::vector<GemmSm90Spec> configs() {
  std::vector<GemmSm90Spec> out;
  out.push_back(kernel(256, 4));
  out.push_back(kernel(256, 4, false));
  out.push_back(kernel(256, 3));
  out.push_back(kernel(128, 6));
  out.push_back(kernel(128, 4));
  out.push_back(kernel(192, 5));
  out.push_back(kernel(64, 8));
  GemmSm90Spec k = kernel(128, 8);
  k.bm = 64;
  out.push_back(k);
  k = kernel(256, 5);
  k.bm = 64;
  out.push_back(k);
  k.scaleMode = GemmScaleMode::Block128;
  k.overlap = false;
  out.push_back(k);
  k.bn = 128;
  k.stages = 8;
  out.push_back(k);
  k = kernel(128, 6);
  k.dType = DType::F32;
  k.aType = DType::F8E5M2;
  out.push_back(k);
  k = kernel(256, 4);
  k.bType = DType::F8E5M2;
  k.dType = DType::F16;
  out.push_back(k);
  k = kernel(256, 4);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  out.push_back(k);
  k.activation = Activation::GeluErf;
  k.biasType = DType::F32;
  out.push_back(k);
  k.activation = Activation::Silu;
  k.biasType = DType::F16;
  k.bn = 128;
  k.stages = 6;
  out.push_back(k);
  k = kernel(256, 4);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  k.activation = Activation::Relu;
  out.push_back(k);
  k = kernel(128, 6, false);
  k.fastAccum = false;
  out.push_back(k);
  GemmSm90Spec halves = kernel(256, 4, false); // promotion in two 128-column halves
  halves.fastAccum = false;
  halves.aType = DType::F8E5M2;
  out.push_back(halves);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.bn = 64;
  k.stages = 8;
  out.push_back(k);
  k = kernel(128, 6, false);
  k.scaleMode = GemmScaleMode::Block128;
  out.push_back(k);
  k.bn = 192; // two B scale blocks per slice
  k.stages = 5;
  out.push_back(k);
  k.stages = 4;
  out.push_back(k);
  k.bn = 128;
  k.stages = 6;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  out.push_back(k);
  for (const GemmSm90Spec &p : pingPongConfigs())
    out.push_back(p);
  for (const GemmSm90Spec &c : clusterConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : castConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : castAheadConfigs())
    out.push_back(c);
  // The register epilogue of a 16-bit D (TMA stores off, or a D pitch that is not a multiple of
  // 16 bytes), in both schedules and with the column inputs.
  k = kernel(256, 4);
  k.tmaStore = false;
  out.push_back(k);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  out.push_back(k);
  k = pingPong(128, 128, 6);
  k.tmaStore = false;
  out.push_back(k);
  k.dType = DType::F8E4M3FN; // the register epilogue of an FP8 D
  k.amaxD = true;
  out.push_back(k);
  // Promotion with tensor scales on 128 x 192 tiles (96 + 96 accumulators per thread).
  k = kernel(192, 5, false);
  k.fastAccum = false;
  out.push_back(k);
  for (const GemmSm90Spec &c : auxConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : swigluConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : residualConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : blockCastConfigs())
    out.push_back(c);
  for (const GemmSm90Spec &c : aTransposedConfigs())
    out.push_back(c);
  // Per-row amax: the rowwise MLP's first GEMM (TMA stores), registers, an FP8 D, promotion.
  k = pingPong(128, 128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = k.amaxRows = true;
  out.push_back(k);
  k.tmaStore = false;
  out.push_back(k);
  k = kernel(256, 4);
  k.dType = DType::F8E4M3FN;
  k.amaxD = k.amaxRows = true;
  out.push_back(k);
  k = kernel(192, 5, false);
  k.fastAccum = false;
  k.amaxD = k.amaxRows = true;
  out.push_back(k);
  return out;
}

GemmSm90Spec withTrainingForwardEpilogue(GemmSm90Spec k) {
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  k.auxOut = true;
  k.transD = true;
  return k;
}

} // namespace fp8c::sm90configs
