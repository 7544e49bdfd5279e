// The Hopper FP8 GEMM's shared-memory ring and its fast-accumulation main loop (gemm_sm90.cuh):
// the layout of the dynamic shared memory (stages, TMA-store chunk buffers, staging slots,
// column-sum exchange, mbarriers, column buffers), the release of a stage to the producer(s),
// and one stage's wgmmas.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_block_scales.cuh"
#include "fp8c/gemm_sm90_defs.cuh"
#include "fp8c/gemm_sm90_store.cuh"
#include "fp8c/gemm_sm90_wgmma.cuh"

namespace fp8c {
namespace sm90 {

// --- the shared-memory ring ---------------------------------------------------------------------

/// Addresses of the ring (aligned to 1024 bytes for the 128-byte swizzle), the TMA-store
/// epilogue's chunk buffers (`epiBufs` of 64 x 64 16-bit values per consumer warpgroup,
/// gemm_sm90_store.cuh), the bf16-A prologue's `castSlots` staging slots (BM x 128 bf16 each, gemm_sm90_cast.cuh),
/// the column-sum exchange (kColSumBytes per consumer warpgroup, with XO & kXoColSum), the
/// blockwise scales of every stage (with Scale::Block; gemm_sm90_block_scales.cuh), the
/// mbarriers (full[Stages], empty[Stages], turn[2], stagingFull[castSlots],
/// stagingEmpty[castSlots], and with the offloaded epilogue yFull[2], yEmpty[2]) and, after them, the consumers' column buffers (EpilogueInputs:
/// BN / 2 float4 per consumer warpgroup, when the epilogue has per-column inputs; sharedBytes
/// counts them).
template <int BM, int BN, int Stages> struct Ring {
  static constexpr u32 kStageA = BM * kBK, kStageB = BN * kBK;
  u32 a, b, epi, staging, colSum, scales, scaleStageBytes, bars, cols;
  int castSlots, epiBufs;
  bool offload;
  /// With `offload_` (the offloaded epilogue, gemm_sm90_offload.cuh) the epilogue region holds
  /// two 32 KB tile slots, then `epiBufs_` 8 KB unit buffers per epilogue warp (3), instead of
  /// `epiBufs_` chunk buffers per consumer warpgroup.
  __device__ __forceinline__ Ring(u32 raw, int castSlots_ = 0, int epiBufs_ = 0,
                                  bool colSums = false, bool blockScales = false,
                                  bool dual = false, bool offload_ = false)
      : castSlots(castSlots_), epiBufs(epiBufs_), offload(offload_) {
    a = (raw + 1023u) & ~1023u;
    b = a + Stages * kStageA;
    epi = b + Stages * kStageB; // stages are multiples of 1024 bytes: aligned for the swizzle
    staging = epi + (offload ? 2u * u32(BM * BN * 2) + 3u * u32(epiBufs) * kEpiChunkBytes
                             : 2u * u32(epiBufs) * kEpiChunkBytes);
    colSum = staging + u32(castSlots) * 2u * kStageA;
    scales = colSum + (colSums ? 2u * u32(kColSumBytes) : 0u);
    scaleStageBytes = dual ? blockScaleStageBytes<BM, true>() : blockScaleStageBytes<BM>();
    bars = scales + (blockScales ? Stages * scaleStageBytes : 0u);
    // 16-byte aligned: bars is, and the barrier count is even.
    cols = bars + 8u * u32(2 * Stages + 2 + 2 * castSlots + (offload ? 4 : 0));
  }
  /// Consumer warpgroup cw's column buffer as a generic pointer (`raw` is the shared array).
  __device__ __forceinline__ float4 *colBuffer(u8 *raw, int cw) const {
    return reinterpret_cast<float4 *>(raw + (cols - smemAddr(raw))) + cw * (BN / 2);
  }
  /// Consumer warpgroup cw's TMA-store chunk buffers.
  __device__ __forceinline__ u32 epiBuffer(int cw) const {
    return epi + u32(cw * epiBufs) * kEpiChunkBytes;
  }
  /// Consumer warpgroup cw's column-sum exchange.
  __device__ __forceinline__ u32 colSumBuffer(int cw) const {
    return colSum + u32(cw) * u32(kColSumBytes);
  }
  /// Stage s's blockwise scales (A's BM, then B's 4 x 2, then the dual GEMM's up weight's).
  __device__ __forceinline__ u32 scaleStage(int s) const { return scales + u32(s) * scaleStageBytes; }
  __device__ __forceinline__ u32 full(int s) const { return bars + 8u * u32(s); }
  __device__ __forceinline__ u32 empty(int s) const { return bars + 8u * u32(Stages + s); }
  __device__ __forceinline__ u32 turn(int w) const { return bars + 8u * u32(2 * Stages + w); }
  __device__ __forceinline__ u32 stagingFull(int j) const {
    return bars + 8u * u32(2 * Stages + 2 + j);
  }
  __device__ __forceinline__ u32 stagingEmpty(int j) const {
    return bars + 8u * u32(2 * Stages + 2 + castSlots + j);
  }
  /// The offloaded epilogue: tile slot j (BM x BN bf16), epilogue warp ew's unit buffer, and
  /// slot j's two mbarriers.
  __device__ __forceinline__ u32 tileSlot(int j) const { return epi + u32(j * BM * BN * 2); }
  __device__ __forceinline__ u32 unitBuffer(int ew) const {
    return epi + 2u * u32(BM * BN * 2) + u32(ew * epiBufs) * kEpiChunkBytes;
  }
  __device__ __forceinline__ u32 yFull(int j) const {
    return bars + 8u * u32(2 * Stages + 2 + 2 * castSlots + j);
  }
  __device__ __forceinline__ u32 yEmpty(int j) const {
    return bars + 8u * u32(2 * Stages + 2 + 2 * castSlots + 2 + j);
  }
};

/// Hands stage `empty` back to the producer(s): with a cluster (Cm > 1) the stage is filled by
/// every block's producer (B multicast), so each consumer warp arrives on the stage's `empty`
/// barrier in every block of the cluster.
template <int Cm> __device__ __forceinline__ void releaseStage(u32 empty) {
  if constexpr (Cm == 1) {
    mbarArrive(empty);
  } else {
#pragma unroll
    for (int r = 0; r < Cm; ++r)
      mbarArriveCluster(empty, r);
  }
}

/// One stage's wgmmas: K = 128 in four k32 steps, for each 64-row slice `h` of the warpgroup's
/// rows (A from shared address a + 64 h rows), WN columns of B from shared address b; the first
/// k32 step scales the old accumulators by `scaleD` (0: overwrite). Fenced and committed by the
/// caller.
template <int WN, int Slices, Dt TA, Dt TB>
__device__ __forceinline__ void stageMma(float (&acc)[Slices][WN / 2], u32 a, u32 b, int scaleD) {
#pragma unroll
  for (int kk = 0; kk < kBK / 32; ++kk)
#pragma unroll
    for (int h = 0; h < Slices; ++h)
      wgmma<WN, TA, TB>(acc[h], smemDesc(a + u32(h) * 64u * kBK + kk * 32), smemDesc(b + kk * 32),
                        kk > 0 ? 1 : scaleD);
}

/// The main loop over one tile's kBlocks stages with fast accumulation, from ring position
/// (s, phase), which it advances. With `Overlap` the previous stage's wgmmas stay in flight
/// while the next stage is waited for (wait_group 1, then the previous stage is released);
/// otherwise each stage is released after wait_group 0. `onIssued` runs once the last stage's
/// wgmmas are issued (before the last wait).
template <int WN, int Slices, int BM, int BN, int Stages, Dt TA, Dt TB, bool Overlap, int Cm,
          typename OnIssued>
__device__ __forceinline__ void mainLoop(float (&acc)[Slices][WN / 2],
                                         const Ring<BM, BN, Stages> &ring, u32 aOff, u32 bOff,
                                         int kBlocks, int &s, u32 &phase, OnIssued onIssued) {
  using R = Ring<BM, BN, Stages>;
  const int lane = threadIdx.x % 32;
  int prev = 0;
  for (int kb = 0; kb < kBlocks; ++kb) {
    mbarWait(ring.full(s), phase);
    wgmmaFence();
    stageMma<WN, Slices, TA, TB>(acc, ring.a + s * R::kStageA + aOff, ring.b + s * R::kStageB + bOff,
                                 1);
    wgmmaCommit();
    if constexpr (Overlap) {
      // The previous stage's wgmmas are done once at most this one group is pending.
      wgmmaWait<1>();
      if (kb > 0 && lane == 0)
        releaseStage<Cm>(ring.empty(prev));
    } else {
      wgmmaWait<0>();
      if (lane == 0)
        releaseStage<Cm>(ring.empty(s));
    }
    prev = s;
    if (++s == Stages) {
      s = 0;
      phase ^= 1u;
    }
  }
  onIssued();
  if constexpr (Overlap) {
    wgmmaWait<0>();
    if (kBlocks > 0 && lane == 0)
      releaseStage<Cm>(ring.empty(prev));
  }
#pragma unroll
  for (int h = 0; h < Slices; ++h)
#pragma unroll
    for (int i = 0; i < WN / 2; ++i)
      fenceReg(acc[h][i]);
}

} // namespace sm90
} // namespace fp8c
