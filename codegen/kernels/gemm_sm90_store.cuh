// The Hopper FP8 GEMM's epilogue through shared memory and the tensor memory accelerator
// (gemm_sm90.cuh with EB > 0): one consumer warpgroup's 64 x WN results leave in chunks of 64
// rows x 128 bytes (64 columns of a 16-bit D, 128 of an FP8 D). Each thread writes its packed
// pairs into a chunk buffer, with stmatrix for a 16-bit D (the wgmma accumulator layout is
// stmatrix's fragment layout) or 2-byte shared stores for an FP8 D, at the 128-byte swizzle
// D's tensor map reads; one thread stores the chunk with cp.async.bulk.tensor (TMA clips rows
// >= M and columns >= N, so no store is predicated), and the warpgroup goes on while the store
// drains.
// EB buffers per warpgroup rotate; a buffer is rewritten once the store that read it has
// (cp.async.bulk.wait_group.read). The register epilogue (gemm_sm90_epilogue.cuh) executed
// about 1,600 instructions per warp and 128 x 256 tile, three quarters of them quad exchanges,
// bounds checks and branches (ncu SASS counts, H200), while the tensor cores idled: this one
// does the math, 4 stmatrix per chunk and two named barriers.
#pragma once

#include "fp8c/gemm_sm90_epilogue.cuh"

namespace fp8c {
namespace sm90 {

constexpr u32 kEpiChunkBytes = 64u * 128u; ///< one chunk: 64 rows of 128 bytes

/// Columns of D per chunk: 64 of a 16-bit D, 128 of an FP8 D.
template <Dt TD> FP8C_HD constexpr int epiChunkCols() { return isFp8(TD) ? 128 : 64; }

__device__ __forceinline__ void stmatrix4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ __forceinline__ void stsU16(u32 addr, u32 v) {
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(static_cast<unsigned short>(v))
               : "memory");
}
__device__ __forceinline__ void tmaStore2d(const TmaDesc *map, u32 src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<u64>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void bulkCommit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/// Waits until at most N of this thread's bulk groups still read shared memory.
template <int N> __device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/// Waits until this thread's bulk groups have completed (before the block exits).
__device__ __forceinline__ void bulkWaitAll() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

/// The row, within a warp's 16, of the accumulators' row half h (0: d[4j + {0,1}], 1:
/// d[4j + {2,3}]) of a thread whose lane / 4 is g: g + 8h, or with A MN-major
/// (gemm_sm90_atrans.cuh) 2g + h.
template <bool AT> __device__ __forceinline__ int rowOfHalf(int g, int h) {
  return AT ? 2 * g + h : g + 8 * h;
}

/// Writes a warpgroup's packed 16-bit pairs of a 64 x 64 chunk (packed[jl][h]: column group jl,
/// row half h, in the wgmma accumulator layout) into `buf` at the 128-byte swizzle: four
/// stmatrix .x4 per thread, `rowOff` and `swz` its lane's row address and swizzle, `mi` = lane / 8.
template <int G>
__device__ __forceinline__ void stmatrixChunk(u32 buf, u32 rowOff, u32 swz, int mi,
                                              const u32 (&packed)[G][2]) {
  static_assert(G == 8, "a 64-column chunk of 16-bit values: 8 column groups");
#pragma unroll
  for (int jl = 0; jl < 8; jl += 2) {
    const u32 unit = u32(jl + (mi >> 1));
    stmatrix4(buf + rowOff + ((unit ^ swz) << 4), packed[jl][0], packed[jl][1], packed[jl + 1][0],
              packed[jl + 1][1]);
  }
}

/// The epilogue of one consumer warpgroup's 64 x WN accumulators through TMA stores (a 16-bit
/// or FP8 D). `bufs` is the shared address of the warpgroup's EB chunk buffers (1024-byte
/// aligned), `seq` the warpgroup's running chunk count (which buffer is next), `bar` its named
/// barrier; the rest as epilogue(). Thread 0 of the warpgroup issues and waits for the stores,
/// and must call bulkWaitAll() before the block exits. With Prescaled the accumulators hold D's
/// values already (the block cast): stored as they are, S, HasBias, A and scaleD unused.
/// With AT (A MN-major, gemm_sm90_atrans.cuh) the accumulators' row halves are the warp's rows
/// 2g and 2g + 1 instead of g and g + 8 (rowOfHalf); a tensor amax only.
template <int WN, int EB, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, int Amax,
          bool Prescaled = false, bool AT = false>
__device__ __forceinline__ void epilogueTma(float (&acc)[WN / 2], const GemmParams &p,
                                            const TmaDesc &mapD, u32 bufs, int &seq, int bar,
                                            int rowBase, int colBase, const float (&sa)[2],
                                            const float4 *cols, float tensorScale, float scaleD) {
  constexpr bool k16 = TD == Dt::BF16 || TD == Dt::F16;
  static_assert(k16 || isFp8(TD), "TMA-store epilogue: a 16-bit or FP8 D");
  constexpr int kCols = epiChunkCols<TD>(), kGroups = kCols / 8; // n8 groups per chunk
  static_assert(WN % kCols == 0, "TMA-store epilogue: whole chunks per warpgroup");
  static_assert(EB == 1 || EB == 2, "one or two chunk buffers per warpgroup");
  constexpr bool kColInputs = S == Scale::Row || HasBias;
  static_assert(!AT || S == Scale::Tensor, "A MN-major: tensor scales");
  static_assert(!AT || Amax == kAmaxNone || Amax == kAmaxTensor, "A MN-major: a tensor amax");
  const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
  const int row0 = rowBase + warp * 16 + rowOfHalf<AT>(lane / 4, 0);
  // stmatrix .x4: lanes 8i .. 8i + 7 give the row addresses of matrix i = (column group
  // jl + i / 2, row half i % 2); a row is 128 bytes, its 16-byte units XOR-swizzled by row % 8.
  const int mi = lane / 8;
  const int chunkRow = warp * 16 + rowOfHalf<AT>(lane % 8, mi & 1);
  const u32 rowOff = u32(chunkRow) * 128u, swz = u32(chunkRow & 7);
  float mags[2] = {0.0f, 0.0f};
#pragma unroll
  for (int c = 0; c < WN / kCols; ++c) {
    u32 packed[kGroups][2];
#pragma unroll
    for (int jl = 0; jl < kGroups; ++jl) {
      const int j = kGroups * c + jl;
      const int col = colBase + 8 * j + 2 * (t % 4);
      float4 cv = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kColInputs && !Prescaled)
        cv = cols[4 * j + t % 4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        if constexpr (Prescaled) {
          static_assert(Amax == kAmaxNone, "a prescaled D takes no amax here");
          packed[jl][h] = k16 ? (TD == Dt::BF16 ? packBf16x2(v0, v1) : packF16x2(v0, v1))
                              : u32(packFp8x2<TD>(v0, v1));
          continue;
        }
        finishPair<S, HasBias, A>(v0, v1, tensorScale, sa[h], cv);
        if constexpr (Amax != kAmaxNone)
          pairMag(mags[h], p, row0 + rowOfHalf<AT>(0, h), col, v0, v1);
        if constexpr (k16)
          packed[jl][h] = TD == Dt::BF16 ? packBf16x2(v0, v1) : packF16x2(v0, v1);
        else
          packed[jl][h] = packFp8x2<TD>(__fmul_rn(v0, scaleD), __fmul_rn(v1, scaleD));
      }
    }
    const u32 buf = bufs + u32(EB == 1 ? 0 : seq & 1) * kEpiChunkBytes;
    if (t == 0)
      bulkWaitRead<EB - 1>(); // the store that last read `buf` is done with it
    namedBarrier(bar, 128);
    if constexpr (k16) {
      stmatrixChunk(buf, rowOff, swz, mi, packed);
    } else {
      // Rows warp * 16 + lane / 4 (+ 8), bytes 8 jl + 2 (lane % 4): a quad writes 8 adjacent
      // bytes, the 8 rows of a warp land in 8 different 16-byte units (conflict-free).
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const u32 r = u32(warp * 16 + rowOfHalf<AT>(lane / 4, h));
#pragma unroll
        for (int jl = 0; jl < kGroups; ++jl) {
          const u32 byte = u32(8 * jl + 2 * (t % 4));
          stsU16(buf + r * 128u + (((byte >> 4) ^ (r & 7u)) << 4) + (byte & 15u), packed[jl][h]);
        }
      }
    }
    fenceProxyAsyncShared();
    namedBarrier(bar, 128);
    if (t == 0) {
      tmaStore2d(&mapD, buf, colBase + kCols * c, rowBase);
      bulkCommit();
    }
    ++seq;
  }
  finishAmax<Amax>(p, mags, row0);
}

} // namespace sm90
} // namespace fp8c
