// Small launches: delayed-scaling state (fp8.history_scale, fp8.history_push), tensor-scale
// bookkeeping done by one thread (scale ops on scalars, inverse scales for cuBLASLt), and the
// elementwise inverse of a scale grid in the layout cuBLASLt wants.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/layout.cuh"

namespace fp8c {

enum class HistoryAlgo : int { Max, MostRecent };

/// fp8.history_scale: amax = max(h) (NaN wins, as the interpreter's loop) or h[0], then the
/// scale formula. One thread.
template <Dt F8, HistoryAlgo Algo>
__device__ __forceinline__ float historyScale(const float *h, int len, int margin, bool pow2) {
  float amax = h[0];
  if constexpr (Algo == HistoryAlgo::Max) {
    for (int i = 0; i < len; ++i) {
      const float v = h[i];
      if (isNaN(v)) {
        amax = v;
        break;
      }
      if (v > amax)
        amax = v;
    }
  }
  return scaleFromAmax<F8>(amax, margin, pow2);
}

/// fp8.history_push in place: h = [amax, h[0], ..., h[len-2]]. Every thread of the block calls
/// it with the same amax; each reads its elements into registers before any is written, so
/// input and output may be the same (persistent state) buffer. A non-finite amax leaves h as it
/// is and counts the skip in historySkipCounter(h, Len) (common.cuh). Both ways the block
/// passes the same two barriers, so a caller may reuse the amax's buffer after it returns.
template <int Len> __device__ __forceinline__ void historyPushInPlace(float *h, float amax) {
  constexpr int kPer = (Len + kThreads - 1) / kThreads;
  const bool push = isFiniteF(amax);
  float keep[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int i = threadIdx.x + j * kThreads;
    keep[j] = push && i >= 1 && i < Len ? h[i - 1] : 0.0f;
  }
  __syncthreads();
  if (push) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int i = threadIdx.x + j * kThreads;
      if (i == 0)
        h[0] = amax;
      else if (i < Len)
        h[i] = keep[j];
    }
  } else if (threadIdx.x == 0) {
    atomicAdd(historySkipCounter(h, Len), 1u);
  }
  __syncthreads();
}

/// fp8.history_push into another buffer: out = [amax, in[0], ..., in[len-2]], or out = in for a
/// non-finite amax (not counted: `out` is no state buffer with a counter).
template <int Len>
__device__ __forceinline__ void historyPushTo(float *out, const float *in, float amax) {
  const bool push = isFiniteF(amax);
  for (int i = threadIdx.x; i < Len; i += kThreads)
    out[i] = !push ? in[i] : i == 0 ? amax : in[i - 1];
  __syncthreads();
}

/// A launch of one block whose work is Spec::run(buffers, m) (history pushes, scalar scale
/// bookkeeping); every thread calls run.
template <class Spec, int N> __device__ __forceinline__ void smallKernel(const Args<N> &args) {
  Spec::run(args.buffers, args.m);
}

/// out = 1 / in over a [rows, groups] f32 scale grid, written in cuBLASLt's layout. The Spec:
/// kRows (Extent), kGroups, kIn (buffer), kOut (buffer), kLayout (InvLayout).
template <class Spec, int N> __device__ __forceinline__ void inverseKernel(const Args<N> &args) {
  const i64 rowsN = Spec::kRows.eval(args.m);
  const i64 total = rowsN * Spec::kGroups;
  const float *in = f32p(args.buffers[Spec::kIn]);
  float *out = f32p(args.buffers[Spec::kOut]);
  for (i64 i = i64(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += i64(gridDim.x) * kThreads) {
    const i64 r = i / Spec::kGroups, g = i % Spec::kGroups;
    out[invIndex(Spec::kLayout, r, g, Spec::kGroups, rowsN)] = reciprocal(in[i]);
  }
}

} // namespace fp8c
