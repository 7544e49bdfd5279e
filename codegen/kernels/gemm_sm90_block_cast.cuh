// The 1x128-block FP8 cast of the Hopper FP8 GEMM's D (gemm_sm90.cuh with Amax == kAmaxBlock):
// a blockwise recipe's next GEMM reads D as e4m3 with one scale per row and 128 columns, so the
// epilogue takes each block's amax, computes its scale (fp8.scale: margin, power of two) and
// casts D with it, and no launch reads the bf16 activation back.
// In the wgmma accumulator layout a row's 128-column block lies in the four threads of a quad
// (32 values each: 16 column groups of 2), so a block's amax is a local max and two shuffles,
// and nothing crosses warps. The warpgroup's slice must hold whole blocks: WN a multiple of 128
// starting at a multiple of 128 (128 x 128 and 64 x 256 cooperative tiles, 128-wide ping-pong).
// The value cast is the IR's: y = round(acc * scales + bias), then round(act(y)), each rounded
// to the bf16 the graph computes in, so amaxes and scales are the interpreter's for the same y.
#pragma once

#include "fp8c/gemm_sm90_epilogue.cuh"

namespace fp8c {
namespace sm90 {

/// Replaces the 64 x WN slice's accumulators (rows from rowBase, columns from colBase, a
/// multiple of 128) by their FP8-ready values v * s(block) with v the epilogue's bf16 value,
/// and writes each valid block's scale s (p.blockScale) and inverse 1 / s (p.blockInv). The
/// caller then stores them as an FP8 D as they are (epilogueTma's Prescaled; v * s was rounded
/// here once, as the cast's sat(rne(v * s)) rounds it).
template <int WN, Dt TD, Scale S, bool HasBias, Act A>
__device__ __forceinline__ void blockCastSlice(float (&acc)[WN / 2], const GemmParams &p,
                                               int rowBase, int colBase, const float (&sa)[2],
                                               const float4 *cols, float tensorScale) {
  static_assert(WN % 128 == 0, "a slice of whole 128-column blocks");
  static_assert(isFp8(TD), "the block cast writes an FP8 D");
  constexpr bool kCols = S == Scale::Row || HasBias;
  constexpr int kBlocks = WN / 128;
  const int t = threadIdx.x % 128;
  const int row0 = rowBase + (t / 32) * 16 + (t % 32) / 4;
#pragma unroll
  for (int j = 0; j < WN / 8; ++j) {
    float4 c = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
    if constexpr (kCols)
      c = cols[4 * j + t % 4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
      finishPair<S, HasBias, Act::None>(v0, v1, tensorScale, sa[h], c);
      v0 = roundTo<Dt::BF16>(v0);
      v1 = roundTo<Dt::BF16>(v1);
      if constexpr (A != Act::None) {
        v0 = roundTo<Dt::BF16>(activate<A>(v0));
        v1 = roundTo<Dt::BF16>(activate<A>(v1));
      }
      acc[4 * j + 2 * h] = v0;
      acc[4 * j + 2 * h + 1] = v1;
    }
  }
  // The blocks' magnitudes over the thread's values: a slice inside [M, N] takes them all
  // (|v| compared as integers: a NaN's bits exceed every finite magnitude's, so NaN wins and
  // fp8.scale makes the block's scale NaN, as the interpreter's); an edge slice only the valid
  // ones.
  float mags[kBlocks][2];
#pragma unroll
  for (int b = 0; b < kBlocks; ++b)
    mags[b][0] = mags[b][1] = 0.0f;
  if (rowBase + 64 <= p.m && colBase + WN <= p.n) {
#pragma unroll
    for (int j = 0; j < WN / 8; ++j)
#pragma unroll
      for (int x = 0; x < 4; ++x)
        mags[j / 16][x / 2] = maxMag(mags[j / 16][x / 2], fabsf(acc[4 * j + x]));
  } else {
#pragma unroll
    for (int j = 0; j < WN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        pairMag(mags[j / 16][h], p, h ? row0 + 8 : row0, colBase + 8 * j + 2 * (t % 4),
                acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
  }
  float sc[kBlocks][2];
#pragma unroll
  for (int b = 0; b < kBlocks; ++b)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // The quad holds the block's 128 columns of this row.
      const float amax = groupMaxMag<4>(mags[b][h]);
      sc[b][h] = scaleFromAmax<TD>(amax, p.castMargin, p.castPow2 != 0);
      const int row = row0 + 8 * h;
      const int cb = colBase / 128 + b;
      if (t % 4 == 0 && row < p.m && cb * 128 < p.n) {
        if (p.blockScale)
          p.blockScale[i64(row) * p.ldbs + cb] = sc[b][h];
        if (p.blockInv)
          p.blockInv[i64(cb) * p.ldbi + row] = reciprocal(sc[b][h]);
      }
    }
#pragma unroll
  for (int j = 0; j < WN / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      acc[4 * j + 2 * h] = __fmul_rn(acc[4 * j + 2 * h], sc[j / 16][h]);
      acc[4 * j + 2 * h + 1] = __fmul_rn(acc[4 * j + 2 * h + 1], sc[j / 16][h]);
    }
}

} // namespace sm90
} // namespace fp8c
