// A copy of a [rows, kCols] tensor stored with row pitch kInLd into a compact [rows, kCols]
// output whose rows are not a multiple of 16 bytes (the caller's output of a GEMM result that
// cuBLASLt wrote with a padded pitch: N odd). Such rows cannot be stored as 16-byte vectors
// one by one, so the output is walked as one flat array of 16-byte chunks (aligned: the base
// is 16-byte aligned and rows follow each other), each element read from its (row, column) of
// the padded input; the bits are copied, not converted.
//
// The Spec (generated): kRows (Extent), kCols, kInLd, kDt, kIn and kOut (buffer slots).
#pragma once

#include "fp8c/common.cuh"

namespace fp8c {

template <class Spec, int N> __device__ __forceinline__ void compactCopyKernel(const Args<N> &args) {
  using St = typename DtInfo<Spec::kDt>::Storage;
  constexpr int E = 16 / int(sizeof(St)); // elements per 16-byte chunk
  const i64 total = Spec::kRows.eval(args.m) * Spec::kCols;
  const St *in = static_cast<const St *>(args.buffers[Spec::kIn]);
  St *out = static_cast<St *>(args.buffers[Spec::kOut]);
  const i64 chunks = (total + E - 1) / E;
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 ch = i64(blockIdx.x) * blockDim.x + threadIdx.x; ch < chunks; ch += stride) {
    const i64 e0 = ch * E;
    i64 r = e0 / Spec::kCols, c = e0 - r * Spec::kCols;
    union {
      uint4 v;
      St s[E];
    } u;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      u.s[e] = e0 + e < total ? in[r * Spec::kInLd + c] : St(0);
      if (++c == Spec::kCols) {
        c = 0;
        ++r;
      }
    }
    if (e0 + E <= total) {
      *reinterpret_cast<uint4 *>(out + e0) = u.v;
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e)
        if (e0 + e < total)
          out[e0 + e] = u.s[e];
    }
  }
}

} // namespace fp8c
