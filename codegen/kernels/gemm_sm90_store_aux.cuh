// The Hopper FP8 GEMM's TMA-store epilogue with extra outputs (gemm_sm90.cuh with XO != 0): an
// FP8 D = cast(act(y)) written beside
//   - the pre-activation y = acc * scales + bias rounded to bf16 (kXoAux: the tensor a training
//     step saves for the activation's derivative, cuBLASLt's GELU_AUX), and
//   - D transposed, [N, M] (kXoTrans: the operand of the weight-gradient GEMM, which Hopper's
//     FP8 wgmma reads K-major only),
// so no launch reads y back to apply the activation, cast it and transpose it.
// The activation takes the bf16-rounded y, as the graph's ops do (the GEMM result is bf16).
//
// Unit of work: 64 rows x 64 columns of a consumer warpgroup's slice, staged in a 16 KB buffer:
//   [0, 8 KB)     y, 64 rows x 128 bytes (stmatrix, 128-byte swizzle), if kXoAux;
//   [8, 12 KB)    D, 64 rows x 64 bytes (2-byte stores, 64-byte swizzle);
//   [12, 16 KB)   D^T, 64 rows (the unit's columns) x 64 bytes (its rows; byte stores, 64-byte
//                 swizzle: a warp's 32 stores land on 8 different 16-byte units, conflict-free).
// One thread stores the three boxes with cp.async.bulk.tensor. TMA clips rows >= M of y and D
// and rows >= N of D^T. D^T's map is M rounded up to 16 columns wide (GemmSm90Runner; N and
// every pitch are whole 16-byte units), and rows >= M are staged as zeros: the pad columns of
// the transposed operand are written as zeros.
#pragma once

#include "fp8c/gemm_sm90_store.cuh"

namespace fp8c {
namespace sm90 {

constexpr int kXoAux = 1;   ///< write the bf16 pre-activation through mapAux
constexpr int kXoTrans = 2; ///< write D transposed through mapDT
constexpr u32 kXoUnitBytes = 2u * kEpiChunkBytes; ///< one unit: y, D and D^T of 64 x 64

__device__ __forceinline__ void stsU8(u32 addr, u32 v) {
  asm volatile("st.shared.u8 [%0], %1;" ::"r"(addr), "r"(v)
               : "memory");
}

/// Byte offset of byte `b` of row `r` in a buffer of 64-byte rows at the 64-byte swizzle (the
/// 16-byte unit index XORed with bits 7-8 of the offset, i.e. (r / 2) % 4).
__device__ __forceinline__ u32 swz64(u32 r, u32 b) {
  return r * 64u + ((((b >> 4) ^ (r >> 1)) & 3u) << 4) + (b & 15u);
}

/// The epilogue of one consumer warpgroup's 64 x WN accumulators with the extra outputs of
/// `XO`; EB counts 8 KB chunk buffers (EB / 2 units of 16 KB rotate). The rest as epilogueTma.
template <int WN, int EB, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, int Amax, int XO>
__device__ __forceinline__ void epilogueTmaAux(float (&acc)[WN / 2], const GemmParams &p,
                                               const TmaDesc &mapD, const TmaDesc &mapAux,
                                               const TmaDesc &mapDT, u32 bufs, int &seq, int bar,
                                               int rowBase, int colBase, const float (&sa)[2],
                                               const float4 *cols, float tensorScale,
                                               float scaleD) {
  static_assert(isFp8(TD), "extra epilogue outputs: an FP8 D");
  static_assert(WN % 64 == 0, "extra epilogue outputs: whole 64-column units per warpgroup");
  static_assert(EB == 2 || EB == 4, "extra epilogue outputs: one or two 16 KB units");
  constexpr bool kAux = (XO & kXoAux) != 0, kTrans = (XO & kXoTrans) != 0;
  constexpr int kUnits = EB / 2;
  constexpr bool kColInputs = S == Scale::Row || HasBias;
  const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32, q = t % 4;
  const int row0 = rowBase + warp * 16 + lane / 4;
  // stmatrix .x4 row addresses, as epilogueTma's.
  const int mi = lane / 8;
  const int chunkRow = warp * 16 + 8 * (mi & 1) + lane % 8;
  const u32 rowOff = u32(chunkRow) * 128u, swz = u32(chunkRow & 7);
  float mags[2] = {0.0f, 0.0f};
#pragma unroll
  for (int c = 0; c < WN / 64; ++c) {
    u32 packedY[8][2]; // bf16 pairs of y
    u32 packedD[8][2]; // FP8 pairs of D (low 16 bits)
#pragma unroll
    for (int jl = 0; jl < 8; ++jl) {
      const int j = 8 * c + jl;
      const int col = colBase + 8 * j + 2 * q;
      float4 cv = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kColInputs)
        cv = cols[4 * j + q];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        finishPair<S, HasBias, Act::None>(v0, v1, tensorScale, sa[h], cv);
        const u32 y = packBf16x2(v0, v1);
        packedY[jl][h] = y;
        v0 = activate<A>(__uint_as_float(y << 16));
        v1 = activate<A>(__uint_as_float(y & 0xFFFF0000u));
        const bool rowOk = row0 + 8 * h < p.m;
        if constexpr (Amax != kAmaxNone)
          pairMag(mags[h], p, row0 + 8 * h, col, v0, v1);
        const u32 d = packFp8x2<TD>(__fmul_rn(v0, scaleD), __fmul_rn(v1, scaleD));
        packedD[jl][h] = rowOk ? d : 0u;
      }
    }
    const u32 buf = bufs + u32(kUnits == 1 ? 0 : seq & 1) * kXoUnitBytes;
    const u32 bufD = buf + kEpiChunkBytes, bufT = bufD + kEpiChunkBytes / 2;
    if (t == 0)
      bulkWaitRead<kUnits - 1>(); // the stores that last read `buf` are done with it
    namedBarrier(bar, 128);
    if constexpr (kAux)
      stmatrixChunk(buf, rowOff, swz, mi, packedY);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const u32 r = u32(warp * 16 + 8 * h + lane / 4); // the row in the unit
#pragma unroll
      for (int jl = 0; jl < 8; ++jl) {
        const u32 cl = u32(8 * jl + 2 * q); // the column in the unit
        stsU16(bufD + swz64(r, cl), packedD[jl][h]);
        if constexpr (kTrans) {
          stsU8(bufT + swz64(cl, r), packedD[jl][h]);
          stsU8(bufT + swz64(cl + 1u, r), packedD[jl][h] >> 8);
        }
      }
    }
    fenceProxyAsyncShared();
    namedBarrier(bar, 128);
    if (t == 0) {
      const int c0 = colBase + 64 * c;
      if constexpr (kAux)
        tmaStore2d(&mapAux, buf, c0, rowBase);
      tmaStore2d(&mapD, bufD, c0, rowBase);
      if constexpr (kTrans)
        tmaStore2d(&mapDT, bufT, rowBase, c0);
      bulkCommit();
    }
    ++seq;
  }
  finishAmax<Amax>(p, mags, row0);
}

} // namespace sm90
} // namespace fp8c
