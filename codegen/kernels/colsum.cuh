// Column sums (fp8.col_sum, the bias gradient): out[c] = sum over rows r of value(r, c), in
// f32, rounded once to the output dtype. A two-level reduction with a deterministic order:
//   - the columns are cut into slabs of kSlabCols = 16 * kE (128 with kE = 8: 16-byte loads of
//     a bf16 input), the rows into kChunks chunks; work item (slab, chunk) is one block of 256
//     threads, thread t reading the slab's kE-column group t % 16 of rows r0 + t / 16,
//     r0 + t / 16 + 16, ... of its chunk (a warp reads two 256-byte row segments per load),
//     kUnroll rows' raw loads in flight (rows_prefetch.cuh), adding them in row order;
//   - the block adds its 16 row lanes per column in lane order (shared memory) into
//     partial[chunk][c];
//   - the block that finishes a slab last (an atomic counter per slab, zeroed before the
//     launch) adds the slab's kChunks partials in chunk order and stores the result.
// The order differs from the interpreter's single running sum, so results may differ by f32
// rounding of the sum. The slab is narrow so that the last stage is small: the launch used to
// give each block 2048 columns, and the last blocks (one per 2048 columns) then read up to
// 256 partial rows each, most of the launch's time (H200: 131.7 us for an 8192 x 4096 bf16
// dY, 0.5 TB/s).
//
// The Spec (generated): kRows (Extent), kCols, kE, kNumIn, kIn[], value(), kNumSlots +
// scalars() (optional), kChunks, kPartialBuf (f32 [kChunks, kCols]), kCounterBuf (u32
// [slabs], zeroed), kStore (the [kCols] output: buffer and dtype).
#pragma once

#include "fp8c/rows_prefetch.cuh"

namespace fp8c {

namespace colsum {
constexpr int kLanes = 16;                   ///< column groups per slab (threads across)
constexpr int kRowLanes = kThreads / kLanes; ///< row lanes per block (threads down)
} // namespace colsum

template <class Spec, int N> __device__ __forceinline__ void colSumKernel(const Args<N> &args) {
  using namespace colsum;
  constexpr int E = Spec::kE;
  constexpr int kSlabCols = kLanes * E;
  constexpr i64 kSlabs = rows::ceilDiv(Spec::kCols, i64(kSlabCols));
  constexpr int kChunks = Spec::kChunks;
  constexpr int kUnroll = 8;
  static_assert(kThreads % kLanes == 0 && kSlabCols <= kThreads,
                "a slab's columns are finished by one thread each");
  __shared__ float slots[Spec::kNumSlots > 0 ? Spec::kNumSlots + 1 : 1];
  __shared__ float laneSums[kRowLanes][kSlabCols + 1];
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  const i64 rowsN = Spec::kRows.eval(args.m);
  const i64 per = (rowsN + kChunks - 1) / kChunks;
  float *partial = f32p(args.buffers[Spec::kPartialBuf]);
  u32 *counter = static_cast<u32 *>(args.buffers[Spec::kCounterBuf]);
  const int lane = threadIdx.x % kLanes, rowLane = threadIdx.x / kLanes;
  for (i64 b = blockIdx.x; b < kSlabs * kChunks; b += gridDim.x) { // block-uniform
    const i64 slab = b % kSlabs, chunk = b / kSlabs;
    const i64 cs = slab * kSlabCols;   // the slab's first column
    const i64 c0 = cs + i64(lane) * E; // this thread's first column
    const bool any = c0 < Spec::kCols;
    float acc[E];
#pragma unroll
    for (int e = 0; e < E; ++e)
      acc[e] = 0.0f;
    const i64 r0 = chunk * per, r1 = r0 + per < rowsN ? r0 + per : rowsN;
    if (any) {
      // kUnroll of this thread's rows loaded (raw words) before any is evaluated and added, in
      // row order; a chunk that cannot be loaded ahead (a column tail, an unaligned pitch) is
      // evaluated at its use, with the same value.
      i64 r = r0 + rowLane;
      for (; r + (kUnroll - 1) * kRowLanes < r1; r += kUnroll * kRowLanes) {
        rows::ChunkPrefetch<Spec, E> ahead[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          ahead[u].issue(args.buffers, r + u * kRowLanes, c0, true);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          float v[E];
          if (ahead[u].loaded) {
            float x[E][Spec::kNumIn];
            ahead[u].inputs(args.buffers, r + u * kRowLanes, c0, x);
#pragma unroll
            for (int e = 0; e < E; ++e)
              v[e] = Spec::value(x[e], slots);
          } else {
            rows::evalAt<Spec, E>(args.buffers, slots, r + u * kRowLanes, c0, true, v);
          }
#pragma unroll
          for (int e = 0; e < E; ++e)
            acc[e] = __fadd_rn(acc[e], v[e]);
        }
      }
      for (; r < r1; r += kRowLanes) {
        float v[E];
        rows::evalAt<Spec, E>(args.buffers, slots, r, c0, true, v);
#pragma unroll
        for (int e = 0; e < E; ++e)
          acc[e] = __fadd_rn(acc[e], v[e]);
      }
    }
    __syncthreads(); // the previous item's reads of laneSums are done
#pragma unroll
    for (int e = 0; e < E; ++e)
      laneSums[rowLane][lane * E + e] = acc[e];
    __syncthreads();
    const int col = threadIdx.x; // the slab column this thread finishes (threads < kSlabCols)
    const bool colOk = col < kSlabCols && cs + col < Spec::kCols;
    if (colOk) {
      float s = 0.0f;
#pragma unroll
      for (int l = 0; l < kRowLanes; ++l)
        s = __fadd_rn(s, laneSums[l][col]);
      partial[chunk * Spec::kCols + cs + col] = s;
    }
    if (lastToArrive(&counter[slab], u32(kChunks))) {
      if (colOk) {
        // The partials in chunk order, kBatch loads in flight before they are added.
        constexpr int kBatch = 8;
        const float *p = partial + cs + col;
        float sum = 0.0f;
        int k = 0;
        for (; k + kBatch <= kChunks; k += kBatch) {
          float w[kBatch];
#pragma unroll
          for (int j = 0; j < kBatch; ++j)
            w[j] = __ldcg(p + i64(k + j) * Spec::kCols);
#pragma unroll
          for (int j = 0; j < kBatch; ++j)
            sum = __fadd_rn(sum, w[j]);
        }
        for (; k < kChunks; ++k)
          sum = __fadd_rn(sum, __ldcg(p + i64(k) * Spec::kCols));
        storeOne<Spec::kStore.dt>(args.buffers[Spec::kStore.buf], cs + col, sum);
      }
    }
  }
}

} // namespace fp8c
