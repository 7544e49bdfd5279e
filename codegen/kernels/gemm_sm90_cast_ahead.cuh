// The Hopper FP8 GEMM's cast-ahead A (gemm_sm90.cuh, CA = true): A is bf16 in memory and the
// kernel itself writes its FP8 copy, q = sat(rne(a * scale)) with the quantization scale known
// before the launch (one per tensor, or one per row of A), into a global buffer that the main
// loop then loads by TMA as usual. No standalone cast kernel runs, and the cast of all but the
// first wave's rows runs beside the main loops instead of before them.
//
// Rows are cast by whole warps (one row at a time: 16-byte bf16 loads, 8 in flight per lane,
// 8-byte FP8 stores) and published per run of rows within one tile row: each lane fences (its
// generic-proxy stores before later async-proxy reads, then gpu scope) and lane 0 adds the
// run's rows to the tile row's ready counter (p.aReady[tm]). The producer thread, before the
// first stage of a tile, waits until its tile row's counter reaches the rows the tile row holds
// (ld.acquire.gpu), fences the async proxy, and issues the TMA loads. Two phases:
//   1. at entry, before the warpgroups take their roles, all twelve warps of every block cast
//      the tile rows the first wave of tiles reads (runs of a power of two rows per warp);
//   2. then warps 1-3 of the producer warpgroup, which issue no TMA, cast the remaining rows
//      in runs of 8, in row order (the tile order's order of need), while the main loops run.
// Warps never wait on other blocks while casting, so with every block resident the producers'
// waits always end; the host launches these kernels cooperatively, which guarantees that or
// fails (GemmSm90Runner::run). The counters must be zero before the launch; the
// last block to finish its loads (counter p.aReady[tilesM]) zeroes them again, so the buffer
// is reused by the next launch without a memset (none of its rows can still be pending then:
// every tile row was waited for by some block before that block finished).
// With AmaxA, max |a| over the bf16 values (integer max of the magnitude bits, NaN wins) goes
// into *p.amaxA, one atomic per warp.
//
// Measured (H200, docs/gemm.md): 3-5 % over the e4m3-A kernel at
// M 8192 K 4096 N 14336 and 8-9 % at K 14336 N 4096, against a separate cast's 3 % / 11 % floor:
// the overlap hides only part of the cast. Variants measured and not kept: one publication per
// row (the fences dominated when every warp cast all of A), 4 loads in flight, runs of 32 rows,
// no phase 1, all of A in phase 1, waits per group of the tile order, groupM 9.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_cast.cuh"
#include "fp8c/gemm_sm90_defs.cuh"

namespace fp8c {
namespace sm90 {

/// Orders this thread's generic-proxy global writes before async-proxy (TMA) accesses.
__device__ __forceinline__ void fenceProxyAsyncGlobal() {
  asm volatile("fence.proxy.async.global;" ::: "memory");
}
__device__ __forceinline__ u32 ldAcquireGpu(const u32 *addr) {
  u32 v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
  return v;
}
/// A 16-byte load that A's single reader does not keep in L1.
__device__ __forceinline__ uint4 ldStreamV4(const uint4 *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

/// The rows of A that tile row tm holds: its ready counter's final value.
template <int BM> __device__ __forceinline__ u32 tileRowRows(const GemmParams &p, int tm) {
  return u32(min(BM, p.m - tm * BM));
}

/// The rows of A the first wave of tiles (blocks 0 .. gridDim.x - 1, one tile each) reads: the
/// tile rows up to the last one it touches (the tile order: gemm_sm90_defs.cuh, groupedCoords).
template <int BM> __device__ __forceinline__ int firstWaveRows(const GemmParams &p) {
  const int last = min(p.tilesM * p.tilesN, int(gridDim.x)) - 1;
  const int perGroup = p.groupM * p.tilesN, g = last / perGroup, r = last - g * perGroup;
  const int groupRows = min(p.tilesM - g * p.groupM, p.groupM);
  return min(p.m, (g * p.groupM + min(r + 1, groupRows)) * BM);
}

/// This warp casts row r of A. Unroll: 16-byte loads in flight per lane.
template <Dt TA, Scale S, bool AmaxA, int Unroll>
__device__ __forceinline__ void castAheadRow(const GemmParams &p, int r, u32 &mag) {
  const int lane = int(threadIdx.x) % 32;
  const float s = S == Scale::Row ? p.quantA[r] : p.quantA[0];
  const u16 *srcRow = static_cast<const u16 *>(p.aSrc) + i64(r) * p.ldaSrc;
  u8 *dstRow = p.aCast + i64(r) * p.ldaCast;
  const uint4 *src = reinterpret_cast<const uint4 *>(srcRow);
  uint2 *dst = reinterpret_cast<uint2 *>(dstRow);
  const int chunks = p.k / 8; // whole 8-element chunks; the pitches keep them 16-byte aligned
  int c = lane;
  for (; c + 32 * (Unroll - 1) < chunks; c += 32 * Unroll) {
    uint4 v[Unroll];
#pragma unroll
    for (int i = 0; i < Unroll; ++i)
      v[i] = ldStreamV4(src + c + 32 * i);
#pragma unroll
    for (int i = 0; i < Unroll; ++i) {
      if constexpr (AmaxA)
        mag = maxMagBits(mag, v[i]);
      dst[c + 32 * i] = castEight<TA>(v[i], s);
    }
  }
  for (; c < chunks; c += 32) {
    const uint4 v = ldStreamV4(src + c);
    if constexpr (AmaxA)
      mag = maxMagBits(mag, v);
    dst[c] = castEight<TA>(v, s);
  }
  // K % 8 trailing elements, one per lane.
  const int j = chunks * 8 + lane;
  if (j < p.k) {
    const u32 h = srcRow[j];
    if constexpr (AmaxA)
      mag = maxU16x2(mag, h & 0x7FFFu);
    dstRow[j] = u8(castBf16x2<TA>(h, s) & 0xFFu);
  }
}

/// This warp casts rows [r0, r1) of A, all in one tile row, and publishes them: every lane's
/// stores before lane 0's count, for the TMA reads of other blocks.
template <int BM, Dt TA, Scale S, bool AmaxA, int Unroll>
__device__ __forceinline__ void castAheadRows(const GemmParams &p, int r0, int r1, u32 &mag) {
  for (int r = r0; r < r1; ++r)
    castAheadRow<TA, S, AmaxA, Unroll>(p, r, mag);
  fenceProxyAsyncGlobal();
  __threadfence();
  __syncwarp();
  if (threadIdx.x % 32 == 0)
    atomicAdd(p.aReady + r0 / BM, u32(r1 - r0));
}

/// Phase 1, every warp of every block: the first wave's rows. Returns the warp's magnitude bits;
/// the warps that go on casting (producer warps 1-3) flush them later, the others here.
template <int BM, Dt TA, Scale S, bool AmaxA>
__device__ __forceinline__ u32 castAheadFirstWave(const GemmParams &p) {
  constexpr int kWarps = kThreadsSm90 / 32;
  const int warp = int(threadIdx.x) / 32;
  const int rows = firstWaveRows<BM>(p);
  const int warps = int(gridDim.x) * kWarps;
  // Rows per warp: a power of two (so no run crosses a tile row), at most BM.
  int per = 1;
  while (per < BM && per * warps < rows)
    per *= 2;
  u32 mag = 0;
  for (int r = (int(blockIdx.x) * kWarps + warp) * per; r < rows; r += warps * per)
    castAheadRows<BM, TA, S, AmaxA, 8>(p, r, min(r + per, rows), mag);
  if constexpr (AmaxA)
    if (warp == 0 || warp >= 4)
      flushAmaxA(p, mag);
  return mag;
}

/// Phase 2, producer warps 1-3 (`castWarp` 0..2) of every block: the remaining rows, in order.
template <int BM, Dt TA, Scale S, bool AmaxA>
__device__ __forceinline__ void castAheadRest(const GemmParams &p, int castWarp, u32 mag) {
  const int first = firstWaveRows<BM>(p);
  constexpr int kRun = 8; // rows per publication: divides BM, so no run crosses a tile row
  for (int r = first + (int(blockIdx.x) * 3 + castWarp) * kRun; r < p.m;
       r += int(gridDim.x) * 3 * kRun)
    castAheadRows<BM, TA, S, AmaxA, 8>(p, r, min(r + kRun, p.m), mag);
  if constexpr (AmaxA)
    flushAmaxA(p, mag);
}

/// The producer thread, before loading tile row tm's first stage: waits until its rows are cast.
template <int BM> __device__ __forceinline__ void waitTileRowCast(const GemmParams &p, int tm) {
  const u32 want = tileRowRows<BM>(p, tm);
  while (ldAcquireGpu(p.aReady + tm) < want)
    __nanosleep(32);
  fenceProxyAsyncGlobal();
}

/// The producer thread, after its last load: the last block to get here zeroes the counters.
__device__ __forceinline__ void finishCastAhead(const GemmParams &p) {
  __threadfence();
  if (atomicAdd(p.aReady + p.tilesM, 1u) == gridDim.x - 1) {
    for (int i = 0; i <= p.tilesM; ++i)
      p.aReady[i] = 0;
    __threadfence();
  }
}

} // namespace sm90
} // namespace fp8c
