// Column sums (fp8.col_sum, the bias gradient): out[c] = sum over rows r of value(r, c), in
// f32, rounded once to the output dtype. A two-level reduction with a deterministic order:
// the rows are split into kChunks chunks; work item (strip, chunk) is one block summing its
// chunk's rows in order for kThreads * kE consecutive columns (one kE-element chunk per
// thread, 16-byte loads) into partial[chunk][c]; the block that finishes a strip last (an
// atomic counter per strip, zeroed before the launch) adds the kChunks partials in chunk
// order and stores the result. The order (rows within a chunk, then chunks) differs from the
// interpreter's single running sum, so results may differ by f32 rounding of the sum.
//
// The Spec (generated): kRows (Extent), kCols, kE, kNumIn, kIn[], value(), kNumSlots +
// scalars() (optional), kChunks, kPartialBuf (f32 [kChunks, kCols]), kCounterBuf (u32
// [strips], zeroed), kStore (the [kCols] output: buffer and dtype).
#pragma once

#include "fp8c/rows.cuh"

namespace fp8c {

template <class Spec, int N> __device__ __forceinline__ void colSumKernel(const Args<N> &args) {
  constexpr int E = Spec::kE;
  constexpr i64 kStripCols = i64(kThreads) * E;
  constexpr i64 kStrips = rows::ceilDiv(Spec::kCols, kStripCols);
  constexpr int kChunks = Spec::kChunks;
  constexpr int kUnroll = 4;
  __shared__ float slots[Spec::kNumSlots > 0 ? Spec::kNumSlots + 1 : 1];
  __shared__ bool last;
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  const i64 rowsN = Spec::kRows.eval(args.m);
  const i64 per = (rowsN + kChunks - 1) / kChunks;
  float *partial = f32p(args.buffers[Spec::kPartialBuf]);
  u32 *counter = static_cast<u32 *>(args.buffers[Spec::kCounterBuf]);
  for (i64 b = blockIdx.x; b < kStrips * kChunks; b += gridDim.x) { // block-uniform
    const i64 strip = b % kStrips, chunk = b / kStrips;
    const i64 c0 = strip * kStripCols + i64(threadIdx.x) * E;
    const bool any = c0 < Spec::kCols;
    float acc[E];
#pragma unroll
    for (int e = 0; e < E; ++e)
      acc[e] = 0.0f;
    const i64 r0 = chunk * per, r1 = r0 + per < rowsN ? r0 + per : rowsN;
    if (any) {
      // kUnroll rows' loads in flight before they are added, in row order (the same sum as one
      // row at a time): a single outstanding 16-byte load per thread left the launch
      // latency-bound (0.94 TB/s on an H200 for an 8192 x 14336 bf16 dY).
      i64 r = r0;
      for (; r + kUnroll <= r1; r += kUnroll) {
        float v[kUnroll][E];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          rows::evalAt<Spec, E>(args.buffers, slots, r + u, c0, true, v[u]);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
          for (int e = 0; e < E; ++e)
            acc[e] = __fadd_rn(acc[e], v[u][e]);
      }
      for (; r < r1; ++r) {
        float v[E];
        rows::evalAt<Spec, E>(args.buffers, slots, r, c0, true, v);
#pragma unroll
        for (int e = 0; e < E; ++e)
          acc[e] = __fadd_rn(acc[e], v[e]);
      }
    }
#pragma unroll
    for (int e = 0; e < E; ++e)
      if (c0 + e < Spec::kCols)
        partial[chunk * Spec::kCols + c0 + e] = acc[e];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
      last = atomicAdd(&counter[strip], 1u) == u32(kChunks - 1);
    __syncthreads();
    if (last) {
      __threadfence();
      float sum[E];
#pragma unroll
      for (int e = 0; e < E; ++e)
        sum[e] = 0.0f;
      for (int k = 0; k < kChunks; ++k)
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (c0 + e < Spec::kCols)
            sum[e] = __fadd_rn(sum[e], __ldcg(&partial[k * Spec::kCols + c0 + e]));
#pragma unroll
      for (int e = 0; e < E; ++e)
        if (c0 + e < Spec::kCols)
          storeOne<Spec::kStore.dt>(args.buffers[Spec::kStore.buf], c0 + e, sum[e]);
    }
  }
}

} // namespace fp8c
