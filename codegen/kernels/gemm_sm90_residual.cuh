// The Hopper FP8 GEMM's residual add (gemm_sm90.cuh with XO & kXoResidual): z = y + r, y the
// epilogue's value act(acc * scales + bias) and r a bf16 [M, N] input (p.epiIn, pitch p.ldIn),
// as the graph computes it: y rounded to bf16 (the GEMM's, or its activation's, result), the sum
// rounded to bf16 (fp8.add's). The sums replace the accumulators, and the usual epilogues then
// take their amax, cast and store them with unit scales and no bias or activation, so D, its amax
// and an FP8 D are of z: a transformer's projection plus residual stream leaves the GEMM in
// one pass, with no launch reading D back.
// r is read with plain loads at the accumulator positions (a quad of threads reads 16 adjacent
// bytes of a row); the consumers prefetch the tile's rows of it into L2 before the main loop
// (prefetchEpilogueInput), and each 32-column group's loads are issued before the previous
// group's sums are computed, so one L2 latency is exposed per slice.
#pragma once

#include "fp8c/gemm_sm90_epilogue.cuh"

namespace fp8c {
namespace sm90 {

/// acc[i] <- bf16(bf16(act(acc[i] * scales + bias)) + r) over one consumer warpgroup's 64 x WN
/// slice at (rowBase, colBase); `sa`, `cols` and `tensorScale` as epilogue()'s. Elements outside
/// [M, N] read r as 0 (the epilogues do not store them).
template <int WN, Scale S, bool HasBias, Act A>
__device__ __forceinline__ void addResidual(float (&acc)[WN / 2], const GemmParams &p,
                                            int rowBase, int colBase, const float (&sa)[2],
                                            const float4 *cols, float tensorScale) {
  static_assert(WN % 32 == 0, "residual add: whole 32-column groups");
  constexpr bool kColInputs = S == Scale::Row || HasBias;
  constexpr int kGroups = 4; // 8-column groups per step
  const int t = threadIdx.x % 128, q = t % 4;
  const int row0 = rowBase + (t / 32) * 16 + (t % 32) / 4;
  const u16 *in = static_cast<const u16 *>(p.epiIn);
  // The bf16 pairs of r at the thread's positions of groups g .. g + 3 (both row halves).
  auto load = [&](int g, u32 (&dst)[kGroups][2]) {
#pragma unroll
    for (int jl = 0; jl < kGroups; ++jl)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h, col = colBase + 8 * (g + jl) + 2 * q;
        dst[jl][h] = row < p.m && col < p.n
                         ? __ldg(reinterpret_cast<const unsigned *>(in + i64(row) * p.ldIn + col))
                         : 0u;
      }
  };
  u32 cur[kGroups][2], nxt[kGroups][2];
  load(0, cur);
#pragma unroll
  for (int g = 0; g < WN / 8; g += kGroups) {
    if (g + kGroups < WN / 8)
      load(g + kGroups, nxt);
#pragma unroll
    for (int jl = 0; jl < kGroups; ++jl) {
      const int j = g + jl;
      float4 cv = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kColInputs)
        cv = cols[4 * j + q];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        finishPair<S, HasBias, A>(v0, v1, tensorScale, sa[h], cv);
        const u32 r = cur[jl][h];
        acc[4 * j + 2 * h] =
            roundTo<Dt::BF16>(op::add(roundTo<Dt::BF16>(v0), __uint_as_float(r << 16)));
        acc[4 * j + 2 * h + 1] =
            roundTo<Dt::BF16>(op::add(roundTo<Dt::BF16>(v1), __uint_as_float(r & 0xFFFF0000u)));
      }
    }
    if (g + kGroups < WN / 8)
#pragma unroll
      for (int jl = 0; jl < kGroups; ++jl)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          cur[jl][h] = nxt[jl][h];
  }
}

} // namespace sm90
} // namespace fp8c
