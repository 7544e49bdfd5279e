// The row mapping of rows.cuh (included from there): a segment of kTpr threads (a power of
// two) owns one row at a time, kRpb rows per block step. The row's amax is reduced over the
// segment (shuffles, then shared memory when the segment spans warps); a cast with a local row
// scale then casts from registers. Rows too long for registers are read twice (the second
// read mostly from L1/L2).
#pragma once

namespace fp8c {
namespace rows {

/// After the row amax is known: stores it, and returns the row's cast scale for Local casts.
template <class Spec>
__device__ __forceinline__ float finishRow(void *const *buf, i64 r, i64 rows, bool leader,
                                           float rowMax) {
  constexpr CastDesc C = Spec::kCast;
  constexpr AmaxDesc A = Spec::kAmax;
  if constexpr (A.gran == Gran::Row)
    if (leader)
      f32p(buf[A.buf])[r] = rowMax;
  float s = 1.0f;
  if constexpr (C.src == ScaleSrc::Local && C.gran == Gran::Row) {
    s = scaleFromAmax<C.scaleDt>(rowMax, C.margin, C.pow2);
    if (leader) {
      if constexpr (C.amaxOutBuf >= 0)
        f32p(buf[C.amaxOutBuf])[r] = rowMax;
      writeScale<Spec>(buf, r, 0, rows, s);
    }
  }
  return s;
}

/// Stores and casts one evaluated chunk of row r.
template <class Spec, int E>
__device__ __forceinline__ void emitChunk(void *const *buf, const float *slots, i64 r, i64 rows,
                                          i64 c0, float rowScale, const float (&v)[E]) {
  constexpr CastDesc C = Spec::kCast;
  if constexpr (Spec::kStore.buf >= 0)
    storeValue<Spec, E>(buf, r, c0, v);
  if constexpr (C.buf >= 0 && C.gran == Gran::Col) {
    float s[E];
    if (c0 < Spec::kCols)
      knownScales<Spec, E>(buf, slots, r, c0, s);
    else
#pragma unroll
      for (int e = 0; e < E; ++e)
        s[e] = 1.0f;
    castChunk<Spec, E>(buf, r, c0, v, s);
  } else if constexpr (C.buf >= 0) {
    float s = rowScale;
    if constexpr (C.src != ScaleSrc::Local) {
      s = c0 < Spec::kCols ? knownScale<Spec>(buf, slots, r, c0) : 1.0f;
      if constexpr (C.src == ScaleSrc::Buffer && C.fromAmax && C.gran == Gran::Row)
        if (c0 == 0)
          writeScale<Spec>(buf, r, 0, rows, s);
    }
    castChunk<Spec, E>(buf, r, c0, v, s);
  }
}

template <class Spec, int E>
__device__ __forceinline__ void evalAt(void *const *buf, const float *slots, i64 r, i64 c0, bool ok,
                                       float (&v)[E]) {
  float x[E][Spec::kNumIn];
  loadFull<Spec, E>(buf, r, ok ? c0 : Spec::kCols, x);
  if (ok && c0 < Spec::kCols)
    loadBroadcast<Spec, E>(buf, r, c0, x);
  evalChunk<Spec, E>(x, slots, ok ? c0 : Spec::kCols, v);
}

template <class Spec>
__device__ __forceinline__ void segmentPass(void *const *buf, i64 m, const float *slots,
                                            float *scratch) {
  using S = Shape<Spec>;
  constexpr int E = S::E, T = S::kTpr, K = S::kChunksPerThread;
  static_assert(!(Spec::kCast.src == ScaleSrc::Local && Spec::kCast.gran != Gran::Row),
                "row mapping: only row-local scales");
  static_assert(Spec::kAmax.gran == Gran::Row || Spec::kAmax.gran == Gran::None,
                "row mapping: only row amaxes");
  const i64 rows = Spec::kRows.eval(m);
  const int seg = threadIdx.x / T, lane = threadIdx.x % T;
  const i64 stride = i64(gridDim.x) * S::kRpb;
  for (i64 r0 = i64(blockIdx.x) * S::kRpb; r0 < rows; r0 += stride) { // block-uniform
    const i64 r = r0 + seg;
    const bool rowOk = r < rows;
    if constexpr (K * E * Spec::kNumIn <= Spec::kRowRegElems) {
      // The whole row in registers: one read.
      float x[K][E][Spec::kNumIn];
#pragma unroll
      for (int k = 0; k < K; ++k) { // every load first: K * kNumIn loads in flight
        const i64 cc = lane + i64(k) * T;
        loadFull<Spec, E>(buf, r, rowOk && cc < S::kCpr ? cc * E : Spec::kCols, x[k]);
      }
      float v[K][E];
      float rowMax = 0.0f;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const i64 cc = lane + i64(k) * T;
        const bool ok = rowOk && cc < S::kCpr;
        if (ok && cc * E < Spec::kCols)
          loadBroadcast<Spec, E>(buf, r, cc * E, x[k]);
        evalChunk<Spec, E>(x[k], slots, ok ? cc * E : Spec::kCols, v[k]);
        rowMax = maxMag(rowMax, chunkMaxOf<E>(v[k]));
      }
      rowMax = segmentMaxMag<T>(rowMax, scratch);
      const float s = finishRow<Spec>(buf, r, rows, rowOk && lane == 0, rowMax);
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const i64 cc = lane + i64(k) * T;
        if (rowOk && cc < S::kCpr)
          emitChunk<Spec, E>(buf, slots, r, rows, cc * E, s, v[k]);
      }
    } else {
      // Long rows: reduce first, then read again to store and cast.
      float rowMax = 0.0f;
      for (int k = 0; k < K; ++k) {
        const i64 cc = lane + i64(k) * T;
        float v[E];
        evalAt<Spec, E>(buf, slots, r, cc * E, rowOk && cc < S::kCpr, v);
        rowMax = maxMag(rowMax, chunkMaxOf<E>(v));
      }
      rowMax = segmentMaxMag<T>(rowMax, scratch);
      const float s = finishRow<Spec>(buf, r, rows, rowOk && lane == 0, rowMax);
      if (rowOk)
        for (int k = 0; k < K; ++k) {
          const i64 cc = lane + i64(k) * T;
          if (cc >= S::kCpr)
            break;
          float v[E];
          evalAt<Spec, E>(buf, slots, r, cc * E, true, v);
          emitChunk<Spec, E>(buf, slots, r, rows, cc * E, s, v);
        }
    }
  }
}

} // namespace rows
} // namespace fp8c
