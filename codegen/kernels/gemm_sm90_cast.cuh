// The Hopper FP8 GEMM's bf16-A prologue (gemm_sm90.cuh, CS > 0): A is read as bf16 and cast
// to FP8 inside the GEMM, q = sat(rne(a * scale)) with the quantization scale known before the
// launch (one per tensor, or one per row of A), so that no standalone cast kernel runs and the
// FP8 copy of A never exists in global memory.
//
// The producer warpgroup does it. Thread 0 loads each stage's BM x 128 bf16 A tile with TMA
// (two boxes of 64 columns, 128-byte swizzle) into a staging ring of CS slots, CS - 1 stages
// ahead, and B's BN x 128 FP8 tile straight into the main ring. All 128 threads then read the
// staged bf16 (thread t owns row t of a 128-row tile: one row scale per thread), multiply by
// the scale in f32, convert to e4m3 / e5m2 with cvt.rn.satfinite, and write the FP8 bytes into
// the stage's A tile in the layout TMA would have written (128-byte swizzle, so the consumers'
// wgmma descriptors are unchanged). The writes go through the generic proxy and wgmma reads
// through the async proxy: each writer fences (fence.proxy.async.shared::cta) before its warp
// arrives on the stage's `full` barrier, which thus completes on B's bytes plus four warp
// arrivals. Bank conflicts: eight consecutive threads take eight consecutive rows at the same
// 16-byte chunk, which the swizzle spreads over all banks, for the loads and the stores.
// With AmaxA, the threads also take max |a| over the raw bf16 values (integer max on the
// magnitude bits, so a NaN wins) and add it into *amaxA once at the end (tiles are cast once
// per tile column, so every element is seen at least once).
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_defs.cuh"

namespace fp8c {
namespace sm90 {

__device__ __forceinline__ uint4 ldsV4(u32 addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr));
  return v;
}
__device__ __forceinline__ void stsV4(u32 addr, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}
/// Per-halfword unsigned max.
__device__ __forceinline__ u32 maxU16x2(u32 a, u32 b) {
  u32 r;
  asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/// Two bf16 (one 32-bit word) times `s` in f32, converted to two FP8 bytes.
template <Dt TA> __device__ __forceinline__ u32 castBf16x2(u32 w, float s) {
  const float lo = __fmul_rn(__uint_as_float(w << 16), s);
  const float hi = __fmul_rn(__uint_as_float(w & 0xFFFF0000u), s);
  return packFp8x2<TA>(lo, hi);
}

/// Eight bf16 (one 16-byte chunk) times `s` to eight FP8 bytes.
template <Dt TA> __device__ __forceinline__ uint2 castEight(const uint4 &v, float s) {
  return make_uint2(castBf16x2<TA>(v.x, s) | (castBf16x2<TA>(v.y, s) << 16),
                    castBf16x2<TA>(v.z, s) | (castBf16x2<TA>(v.w, s) << 16));
}

/// 16 bf16 (two 16-byte chunks) times `s` to 16 FP8 bytes.
template <Dt TA> __device__ __forceinline__ uint4 castChunk(const uint4 &a, const uint4 &b, float s) {
  const uint2 lo = castEight<TA>(a, s), hi = castEight<TA>(b, s);
  return make_uint4(lo.x, lo.y, hi.x, hi.y);
}

/// Running max of the bf16 magnitudes of a chunk (per halfword).
__device__ __forceinline__ u32 maxMagBits(u32 m, const uint4 &v) {
  constexpr u32 kAbs = 0x7FFF7FFFu;
  m = maxU16x2(m, v.x & kAbs);
  m = maxU16x2(m, v.y & kAbs);
  m = maxU16x2(m, v.z & kAbs);
  return maxU16x2(m, v.w & kAbs);
}

/// Adds a warp's running max |a| (per-halfword magnitude bits, maxMagBits) into *p.amaxA: one
/// atomic per warp, NaN wins. All 32 lanes must call it.
__device__ __forceinline__ void flushAmaxA(const GemmParams &p, u32 mag) {
  const u32 m = max(mag & 0xFFFFu, mag >> 16);
  float v = m > 0x7F80u ? canonicalNaN() : __uint_as_float(m << 16);
  v = groupMaxMag<32>(v);
  if (threadIdx.x % 32 == 0 && v != 0.0f)
    atomicMaxMag(p.amaxA, v);
}

/// The position (tile, K block) of one stage in the block's sequence of stages.
template <int Cm> struct StageCursor {
  int u, kb, tm, tn;
  __device__ __forceinline__ void start(const TileWalk<Cm> &walk, const GemmParams &p) {
    u = walk.first;
    kb = 0;
    if (u < walk.units)
      walk.coords(u, p, tm, tn);
  }
  __device__ __forceinline__ bool valid(const TileWalk<Cm> &walk) const { return u < walk.units; }
  __device__ __forceinline__ void next(const TileWalk<Cm> &walk, const GemmParams &p) {
    if (++kb == p.kBlocks) {
      kb = 0;
      u += walk.stride;
      if (u < walk.units)
        walk.coords(u, p, tm, tn);
    }
  }
};

/// The producer warpgroup with the bf16-A prologue (see the top of this file). `ring` is the
/// main ring (FP8 A and B stages, full / empty barriers), `stage` the staging slots and their
/// barriers.
template <int BM, int BN, int Stages, int CS, Dt TA, Scale S, bool AmaxA, typename R>
__device__ __forceinline__ void castProducer(const TmaDesc &mapA, const TmaDesc &mapB,
                                             const GemmParams &p, const R &ring) {
  static_assert(CS >= 2, "the staging ring needs at least two slots");
  static_assert(BM == 128 || BM == 64, "BM");
  constexpr int kAhead = CS - 1;            // stages of bf16 A in flight ahead of the cast
  constexpr u32 kHalf = u32(BM) * 128u;     // one 64-column bf16 box: BM rows of 128 bytes
  constexpr int kChunks = BM * 8 / 128;     // 16-byte FP8 chunks per thread and stage
  const int t = threadIdx.x; // 0..127
  const int lane = t % 32;
  const int row = t % BM;    // the tile row this thread casts
  const int q0 = t / BM;     // its first chunk (BM = 64: chunks q0, q0 + 2, ...)
  const TileWalk<1> walk(p);

  StageCursor<1> cur, ahead;
  cur.start(walk, p);
  ahead.start(walk, p);
  int s = 0, j = 0, ja = 0;
  u32 phase = 0, sphase = 0, saPhase = 0;

  // Thread 0: the bf16 A tile of stage `ahead` into staging slot ja.
  auto loadAhead = [&]() {
    if (!ahead.valid(walk))
      return;
    mbarWait(ring.stagingEmpty(ja), saPhase ^ 1u);
    mbarExpectTx(ring.stagingFull(ja), 2u * kHalf);
    const u32 dst = ring.staging + u32(ja) * 2u * kHalf;
    tmaLoad2d(dst, &mapA, ring.stagingFull(ja), ahead.kb * kBK, ahead.tm * BM);
    tmaLoad2d(dst + kHalf, &mapA, ring.stagingFull(ja), ahead.kb * kBK + 64, ahead.tm * BM);
    ahead.next(walk, p);
    if (++ja == CS) {
      ja = 0;
      saPhase ^= 1u;
    }
  };
  if (t == 0) {
    tmaPrefetchMap(&mapA);
    tmaPrefetchMap(&mapB);
    for (int i = 0; i < kAhead; ++i)
      loadAhead();
  }

  u32 mag = 0; // per-halfword max of |a| bits
  float scale = 0.0f;
  int scaledTile = -1;
  for (; cur.valid(walk); cur.next(walk, p)) {
    if (t == 0) {
      loadAhead();
      mbarWait(ring.empty(s), phase ^ 1u);
      mbarExpectTx(ring.full(s), R::kStageB);
      tmaLoad2d(ring.b + s * R::kStageB, &mapB, ring.full(s), cur.kb * kBK, cur.tn * BN);
    }
    if (cur.u != scaledTile) {
      scaledTile = cur.u;
      if constexpr (S == Scale::Row) {
        const int m = cur.tm * BM + row;
        scale = m < p.m ? p.quantA[m] : 0.0f;
      } else {
        scale = p.quantA[0];
      }
    }
    mbarWait(ring.stagingFull(j), sphase);
    mbarWait(ring.empty(s), phase ^ 1u);
    const u32 src = ring.staging + u32(j) * 2u * kHalf + u32(row) * 128u;
    const u32 dst = ring.a + s * R::kStageA + u32(row) * 128u;
    const u32 sw = u32(row) & 7u;
    // Two chunks at a time: four 16-byte loads in flight within the 56 registers the producer
    // keeps (fully unrolled, ptxas hoists all 16 loads and spills).
#pragma unroll 2
    for (int i = 0; i < kChunks; ++i) {
      const u32 q = u32(q0 + i * (128 / BM)); // FP8 chunk: K 16q .. 16q + 15
      const u32 half = src + (q >> 2) * kHalf;
      const u32 w = (q & 3u) * 2u;            // its first bf16 chunk in the half
      const uint4 a = ldsV4(half + (((w) ^ sw) << 4));
      const uint4 b = ldsV4(half + (((w + 1u) ^ sw) << 4));
      if constexpr (AmaxA) {
        mag = maxMagBits(mag, a);
        mag = maxMagBits(mag, b);
      }
      stsV4(dst + ((q ^ sw) << 4), castChunk<TA>(a, b, scale));
    }
    fenceProxyAsyncShared();
    __syncwarp();
    if (lane == 0) {
      mbarArrive(ring.full(s));
      mbarArrive(ring.stagingEmpty(j));
    }
    if (++s == Stages) {
      s = 0;
      phase ^= 1u;
    }
    if (++j == CS) {
      j = 0;
      sphase ^= 1u;
    }
  }
  if constexpr (AmaxA)
    flushAmaxA(p, mag);
}

} // namespace sm90
} // namespace fp8c
