// GemmSm90 (GemmSm90.h): what a kernel config needs in shared memory (the layout of sm90::Ring,
// gemm_sm90_ring.cuh), how many TMA-store buffers fit, and the tile shape a problem gets.
#include "runtime/gpu/GemmSm90Layout.h"

#include <algorithm>
#include <cmath>

namespace fp8c {
namespace {

constexpr int64_t kBK = 128;

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int64_t kEpiChunkBytes = 64 * 128; // one chunk: 64 rows of 128 bytes of D
constexpr int64_t kColSumBytes = 4 * 32 * 8;  // a consumer warpgroup's column-sum exchange
// The offloaded epilogue's derivative tables with an e4m3 gelu_grad input (gemm_sm90_offload.cuh,
// kEpilogueTableBytes): 3 x 256 f32, at the end of the dynamic shared memory.
constexpr int64_t kGemmSm90EpilogueTableBytes = 3 * 256 * 4;
// The side launch's warps (gemm_sm90_side.cuh, kSideSharedBytes): 3 x (a 64 x 68-byte staging
// tile, a 256-entry f32 table, 16 scalar slots, a 6 KB ring of input copies), at the end of
// the dynamic shared memory.
constexpr int64_t kGemmSm90SideSharedBytes = 3 * (64 * 68 + 256 * 4 + 16 * 4 + 6144);

} // namespace

// The ring, the TMA-store epilogue's chunk buffers (epiBufs per consumer warpgroup), the
// bf16-A prologue's staging slots, the full/empty mbarriers with the two turn mbarriers (and
// the staging slots' pairs), the column-sum exchanges, each stage's blockwise scales (A's bm
// floats, B's 4 x 2 padded to 128 bytes), the
// consumers' column buffers (row scales or bias: a float4 per pair of columns per consumer
// warpgroup), 1024 bytes of alignment slack: the layout of sm90::Ring in gemm_sm90_ring.cuh.
// The offloaded epilogue (epilogueWarps) has two bf16 tile slots and epiBufs unit buffers per
// epilogue warp (3) instead of the chunk buffers, and two mbarriers per slot; with an e4m3
// gelu_grad input its derivative tables come last. A side launch's shared memory comes last.
int64_t gemmSm90SharedBytesWith(const GemmSm90Kernel &k, int epiBufs) {
  const bool colInputs = k.scaleMode == GemmScaleMode::OuterVector || k.biasType.has_value();
  const int64_t slots = k.castA ? k.castSlots : 0;
  const int64_t epilogue = k.epilogueWarps
                               ? 2 * int64_t(k.bm) * k.bn * 2 + 3 * epiBufs * kEpiChunkBytes
                               : 2 * epiBufs * kEpiChunkBytes;
  return int64_t(k.stages) * (int64_t(k.bm) * kBK + int64_t(k.bn) * kBK) + epilogue +
         slots * k.bm * kBK * 2 + (k.colSumType ? 2 * kColSumBytes : 0) +
         (k.scaleMode == GemmScaleMode::Block128 ? k.stages * (k.bm * 4 + (k.swiglu ? 256 : 128))
                                                 : 0) +
         (2 * k.stages + 2 + 2 * slots + (k.epilogueWarps ? 4 : 0)) * 8 +
         (colInputs ? 16 * int64_t(k.bn) : 0) + 1024 +
         (k.sideSpec.empty() ? 0 : kGemmSm90SideSharedBytes) +
         (k.epilogueWarps && k.geluGradInFp8 ? kGemmSm90EpilogueTableBytes : 0);
}

int GemmSm90Kernel::epilogueBuffers() const {
  const bool d16 = dType == DType::BF16 || dType == DType::F16;
  const int chunkCols = d16 ? 64 : isFp8(dType) ? 128 : 0; // 128 bytes of a row
  // Output columns of one consumer warpgroup's slice.
  const int wn = (schedule == GemmSchedule::PingPong || bm == 128 ? bn : bn / 2) / (swiglu ? 2 : 1);
  if (extraOutputs()) {
    // Units of 64 x 64 (gemm_sm90_store_aux.cuh): with the pre-activation, one unit of 16 KB
    // (y, D and D^T; two units made ptxas spill 40 bytes in the ping-pong 128 x 128 kernel);
    // otherwise units of 8 KB (D and D^T), two in the cooperative schedule where they fit, so
    // a unit is staged while the other's stores drain (ping-pong keeps one: the gelu_grad
    // kernel spilled 64 bytes with two).
    if (!tmaStore || !extraOutputsTyped() || wn % 64 != 0)
      return 0;
    if (epilogueWarps) // one unit buffer per epilogue warp (gemm_sm90_offload.cuh)
      return gemmSm90SharedBytesWith(*this, 1) <= kGemmSm90MaxSharedBytes ? 1 : 0;
    const int unit = extraUnitChunks();
    if (!auxOut && schedule == GemmSchedule::Cooperative &&
        gemmSm90SharedBytesWith(*this, 2 * unit) <= kGemmSm90MaxSharedBytes)
      return 2 * unit;
    return gemmSm90SharedBytesWith(*this, unit) <= kGemmSm90MaxSharedBytes ? unit : 0;
  }
  if (!tmaStore || chunkCols == 0 || wn % chunkCols != 0)
    return 0;
  for (int eb = 2; eb >= 1; --eb)
    if (gemmSm90SharedBytesWith(*this, eb) <= kGemmSm90MaxSharedBytes)
      return eb;
  return 0;
}

int64_t GemmSm90Kernel::sharedBytes() const { return gemmSm90SharedBytesWith(*this, epilogueBuffers()); }

GemmSm90Kernel chooseGemmSm90Tiles(GemmSm90Kernel k, const GemmSm90Problem &prob,
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

GemmSm90Kernel launchedGemmSm90Kernel(GemmSm90Kernel k, const GemmSm90Problem &prob) {
  // TMA needs a row pitch of whole 16-byte units, and its stores were seen (H200) to write the
  // whole 16-byte unit that holds column N - 1, past N: both must be multiples of 16 bytes.
  const int64_t perUnit = isFp8(k.dType) ? 16 : 8; // elements of D per 16 bytes
  // (The extra outputs have no register form: checkGemmSm90 refuses such shapes for them.)
  if (k.epilogueBuffers() > 0 && !k.extraOutputs() &&
      (prob.ldd % perUnit != 0 || prob.n % perUnit != 0))
    k.tmaStore = false;
  return k;
}

int gemmSm90GroupM(const GemmSm90Kernel &k, const GemmSm90Problem &prob, const Device &dev) {
  const int tilesM = static_cast<int>(ceilDiv(prob.m, k.bm));
  const int g = static_cast<int>(
      std::lround(std::sqrt(double(std::max(1, dev.smCount)) * k.bn / k.bm)));
  return std::clamp(g, 1, std::max(1, tilesM));
}

} // namespace fp8c
