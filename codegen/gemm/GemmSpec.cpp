// GemmSm90Spec (GemmSpec.h): the entry name of a spec, and what it needs in shared memory (the
// layout of sm90::Ring, gemm_sm90_ring.cuh) with how many TMA-store buffers fit.
#include "codegen/gemm/GemmSpec.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace fp8c {
namespace {

const char *shortName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F8E4M3FN: return "e4m3";
  case DType::F8E5M2: return "e5m2";
  default: return "?";
  }
}

constexpr int64_t kBK = 128;

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

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
int64_t gemmSm90SharedBytesWith(const GemmSm90Spec &k, int epiBufs) {
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

int GemmSm90Spec::epilogueBuffers() const {
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

int64_t GemmSm90Spec::sharedBytes() const { return gemmSm90SharedBytesWith(*this, epilogueBuffers()); }

std::string GemmSm90Spec::name() const {
  std::string s = std::string("fp8c_gemm_sm90_") + shortName(aType) + "_" + shortName(bType) +
                  "_" + shortName(dType) + "_" +
                  (scaleMode == GemmScaleMode::Tensor        ? "tensor"
                   : scaleMode == GemmScaleMode::OuterVector ? "row"
                                                             : "block128") +
                  "_n" + std::to_string(bn) + "_s" + std::to_string(stages) + "_o" +
                  (overlap ? "1" : "0");
  if (bm != 128)
    s += "_m" + std::to_string(bm);
  if (schedule == GemmSchedule::PingPong)
    s += "_pp";
  if (clusterM != 1)
    s += "_c" + std::to_string(clusterM);
  if (!fastAccum && scaleMode != GemmScaleMode::Block128)
    s += "_promote";
  if (biasType)
    s += std::string("_bias") + shortName(*biasType);
  if (activation != Activation::None) {
    std::string a = activationEnumerator(activation);
    std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return std::tolower(c); });
    s += "_" + a;
  }
  if (amaxD)
    s += amaxRows ? "_amaxrow" : "_amax";
  if (castA)
    s += "_abf16s" + std::to_string(castSlots);
  if (castAhead)
    s += "_aca";
  if (amaxA)
    s += "_amaxa";
  if (const int eb = epilogueBuffers(); eb > 0)
    s += "_tms" + std::to_string(eb);
  if (auxOut)
    s += auxFp8 ? "_aux8" : "_aux";
  if (transD)
    s += "_dt";
  if (geluGradIn)
    s += geluGradInFp8 ? "_dgelu8" : "_dgelu";
  if (residualIn)
    s += "_res";
  if (colSumType)
    s += std::string("_colsum") + shortName(*colSumType);
  if (swiglu)
    s += "_swiglu";
  if (blockCast)
    s += "_bcast";
  if (epilogueWarps)
    s += "_ew";
  if (aTransposed)
    s += "_at";
  if (!sideSpec.empty()) {
    // FNV-1a of the Spec: kernels with different side launches differ in name (the cache
    // keys on the source as well).
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : sideSpec)
      h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    s += "_side" + std::string(hex, 8);
  }
  return s;
}

} // namespace fp8c
