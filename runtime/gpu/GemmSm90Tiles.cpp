// GemmSm90 (GemmSm90.h): the tile shape and schedule a problem gets, the config launched for a
// problem, and the tile order's groups.
#include "runtime/gpu/GemmSm90.h"

#include <algorithm>
#include <cmath>

namespace fp8c {
namespace {

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

GemmSm90Spec chooseGemmSm90Tiles(GemmSm90Spec k, const GemmSm90Problem &prob,
                                   const Device &dev) {
  const int sms = std::max(1, dev.smCount);
  const int64_t tiles256 = ceilDiv(prob.m, 128) * ceilDiv(prob.n, 256);
  k.bm = 128;
  k.schedule = GemmSchedule::Cooperative;
  if (prob.m <= 64) {
    // Decode: 64-row tiles, the two consumers split the columns (half the tensor work of a
    // 128-row tile per byte of B, which is all that moves).
    k.bm = 64;
    k.bn = 128;
    k.stages = 8;
  } else if (k.promotes() && ceilDiv(prob.m, 128) * ceilDiv(prob.n, 192) >= sms) {
    // Promotion: the result and one K block's accumulators, 96 + 96 per thread. A 192-wide
    // block keeps the tensor cores busier per promotion than a 128-wide one (H200, M 8192,
    // fast accumulation off: 674.8 vs 739.3 us at K 4096 N 14336, 673.3 vs 739.6 us at K 14336
    // N 4096, cuBLASLt 701.7 / 685.4 us; Block128 scales: 732.4 vs 800.3 us at K 4096, 735.3 vs
    // 799.8 us at K 14336, cuBLASLt Block128 732.8 / 729.3 us).
    k.bn = 192;
    k.stages = 5;
  } else if (k.promotes() || tiles256 < sms) {
    // Promotion with few tiles, or too few wide tiles to fill the SMs.
    k.bn = 128;
    k.stages = 6;
  } else if (prob.k <= kGemmSm90PingPongMaxK) {
    // Short main loops: the epilogue is a large share of a tile, and ping-pong hides it
    // behind the other warpgroup's main loop (H200, M 8192 K 4096 N 14336: 0.94x cuBLASLt vs
    // 0.89x cooperative 128 x 256; with row scales + bias + GELU 0.83x vs 0.78x; e4m3 D +
    // amax 0.90x vs 0.82x). At K 8192 the two tied, at K 14336 cooperative won (0.97x vs
    // 0.93x): docs/gemm.md.
    k.schedule = GemmSchedule::PingPong;
    k.bn = 128;
    k.stages = 6;
  } else {
    k.bn = 256;
    k.stages = 4;
  }
  if (k.swiglu) {
    // The dual GEMM: whole tiles per warpgroup. Decode: ping-pong 64-row tiles; otherwise
    // ping-pong 128 x 128 for any D (64 output columns: an FP8 D leaves from registers), which
    // hides the swiglu epilogue behind the other warpgroup's main loop: the autotuner picked it
    // over 128 x 256 cooperative with TMA stores for an FP8 h (H200, M 8192, D 4096, H 14336:
    // 1449.1 vs 1582.1 us); promotion (cooperative only) as above: 128 x 192 where its tiles
    // fill the SMs, 128 x 128 below (decode included).
    if (k.promotes()) {
      const bool wide = ceilDiv(prob.m, 128) * ceilDiv(prob.n, 96) >= sms;
      k.schedule = GemmSchedule::Cooperative;
      k.bm = 128;
      k.bn = wide ? 192 : 128;
      k.stages = wide ? 5 : 6;
    } else if (prob.m <= 64) {
      k.schedule = GemmSchedule::PingPong;
      k.bm = 64;
      k.bn = 128;
      k.stages = 8;
    } else {
      k.schedule = GemmSchedule::PingPong;
      k.bm = 128;
      k.bn = 128;
      k.stages = 6;
    }
  }
  if (k.blockCast) {
    // Whole 128-column blocks per consumer warpgroup: decode's 64-row tiles as 64 x 256
    // (each warpgroup 128 columns), and 128 x 128 instead of promotion's 128 x 192.
    const int wn = k.schedule == GemmSchedule::PingPong || k.bm == 128 ? k.bn : k.bn / 2;
    if (wn % 128 != 0) {
      if (k.bm == 64) {
        k.bn = 256;
        k.stages = 5;
      } else {
        k.bn = 128;
        k.stages = 6;
      }
    }
  }
  if (k.geluGradInFp8) {
    // The e4m3 saved input of gelu_grad is read on the offloaded epilogue's warps only (their
    // derivative tables): cooperative 128 x 128 tiles, four ring stages beside the tile slots.
    k.bm = 128;
    k.bn = 128;
    k.schedule = GemmSchedule::Cooperative;
    k.stages = 4;
    k.epilogueWarps = true;
  }
  k.overlap = !k.promotes();
  if (k.extraOutputs()) {
    // At least one unit per consumer warpgroup beside the ring.
    while (k.stages > 2 && gemmSm90SharedBytesWith(k, k.extraUnitChunks()) > kGemmSm90MaxSharedBytes)
      --k.stages;
  }
  if (!k.sideSpec.empty()) {
    // The side launch's shared memory comes out of the ring too.
    while (k.stages > 2 && k.sharedBytes() > kGemmSm90MaxSharedBytes)
      --k.stages;
  }
  if (k.castA) {
    // The staging slots of the bf16-A prologue come out of the ring: as many stages as fit.
    k.castSlots = 2;
    while (k.stages > 2 && k.sharedBytes() > kGemmSm90MaxSharedBytes)
      --k.stages;
  }
  return k;
}

GemmSm90Spec launchedGemmSm90Kernel(GemmSm90Spec k, const GemmSm90Problem &prob) {
  // TMA needs a row pitch of whole 16-byte units, and its stores were seen (H200) to write the
  // whole 16-byte unit that holds column N - 1, past N: both must be multiples of 16 bytes.
  const int64_t perUnit = isFp8(k.dType) ? 16 : 8; // elements of D per 16 bytes
  // (The extra outputs have no register form: checkGemmSm90 refuses such shapes for them.)
  if (k.epilogueBuffers() > 0 && !k.extraOutputs() &&
      (prob.ldd % perUnit != 0 || prob.n % perUnit != 0))
    k.tmaStore = false;
  return k;
}

int gemmSm90GroupM(const GemmSm90Spec &k, const GemmSm90Problem &prob, const Device &dev) {
  const int tilesM = static_cast<int>(ceilDiv(prob.m, k.bm));
  const int g = static_cast<int>(
      std::lround(std::sqrt(double(std::max(1, dev.smCount)) * k.bn / k.bm)));
  return std::clamp(g, 1, std::max(1, tilesM));
}

} // namespace fp8c
