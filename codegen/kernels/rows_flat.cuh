// The flat mapping of rows.cuh (included from there): chunks numbered row-major, kUnroll of
// them per thread per grid-stride step, all loads of a step issued before any math. 1x128
// groups are reduced with warp shuffles over the 128/kE lanes that hold them; tensor amaxes
// end in one atomic per block. cooperativePasses runs phase 1 (amax) and phase 2 (cast) around
// a grid barrier.
#pragma once

namespace fp8c {
namespace rows {

enum class Phase { All, Amax, Cast };

template <class Spec, Phase P>
__device__ __forceinline__ float flatPass(void *const *buf, i64 m, const float *slots,
                                          float *scratch) {
  using S = Shape<Spec>;
  constexpr int E = S::E, U = Spec::kUnroll, G = S::kGroupLanes;
  constexpr CastDesc C = Spec::kCast;
  constexpr AmaxDesc A = Spec::kAmax;
  constexpr bool kStore = Spec::kStore.buf >= 0 && P != Phase::Cast;
  constexpr bool kAmax = A.gran != Gran::None && P != Phase::Cast;
  constexpr bool kCast = C.buf >= 0 && P != Phase::Amax;
  constexpr bool kTensorMax = (kAmax && A.gran == Gran::Tensor) || (S::kCoop && P == Phase::Amax);
  constexpr bool kGroupMax = (kAmax && A.gran == Gran::Block1x128) ||
                             (kCast && C.src == ScaleSrc::Local && C.gran == Gran::Block1x128);

  const i64 rows = Spec::kRows.eval(m);
  const i64 total = rows * S::kCpr;
  const i64 perStep = i64(kThreads) * U;
  const i64 first = i64(blockIdx.x) * perStep;
  const i64 stride = i64(gridDim.x) * perStep;
  const i64 steps = first < total ? (total - first + stride - 1) / stride : 0;
  float tensorMax = 0.0f;

  for (i64 it = 0; it < steps; ++it) {
    // Phase 2 of a cooperative cast walks backwards: its last reads are still in L2.
    const i64 base = first + (P == Phase::Cast ? steps - 1 - it : it) * stride;
    i64 r[U], c0[U];
    bool ok[U];
    float x[U][E][Spec::kNumIn];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 chunk = base + u * kThreads + threadIdx.x;
      ok[u] = chunk < total;
      r[u] = ok[u] ? chunk / S::kCpr : 0;
      c0[u] = ok[u] ? chunk % S::kCpr * E : i64(S::kCpr) * E;
      loadFull<Spec, E>(buf, r[u], ok[u] ? c0[u] : Spec::kCols, x[u]);
    }
    float v[U][E];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (ok[u] && c0[u] < Spec::kCols)
        loadBroadcast<Spec, E>(buf, r[u], c0[u], x[u]);
      evalChunk<Spec, E>(x[u], slots, ok[u] ? c0[u] : Spec::kCols, v[u]);
    }

#pragma unroll
    for (int u = 0; u < U; ++u) {
      float chunkMax = 0.0f;
      if constexpr (kTensorMax || kGroupMax)
        chunkMax = chunkMaxOf<E>(v[u]);
      if constexpr (kAmax && A.gran == Gran::Col)
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (ok[u] && c0[u] + e < Spec::kCols)
            atomicMaxMag(f32p(buf[A.buf]) + c0[u] + e, magnitude(v[u][e]));
      if constexpr (kTensorMax)
        tensorMax = maxMag(tensorMax, chunkMax);
      // 1x128 group: G consecutive lanes, all in this warp; every lane takes part.
      const i64 group = c0[u] / 128;
      const bool leader = ok[u] && (c0[u] / E) % G == 0 && c0[u] < Spec::kCols;
      float groupMax = 0.0f;
      if constexpr (kGroupMax)
        groupMax = groupMaxMag<G>(chunkMax);
      if constexpr (kAmax && A.gran == Gran::Block1x128)
        if (leader)
          f32p(buf[A.buf])[r[u] * A.groups + group] = groupMax;

      if constexpr (kStore)
        if (ok[u])
          storeValue<Spec, E>(buf, r[u], c0[u], v[u]);

      if constexpr (kCast && C.gran == Gran::Col) {
        float s[E];
        if (ok[u] && c0[u] < Spec::kCols)
          knownScales<Spec, E>(buf, slots, r[u], c0[u], s);
        else
#pragma unroll
          for (int e = 0; e < E; ++e)
            s[e] = 1.0f;
        if (ok[u])
          castChunk<Spec, E>(buf, r[u], c0[u], v[u], s);
      } else if constexpr (kCast) {
        float s;
        if constexpr (C.src == ScaleSrc::Local && C.gran == Gran::Block1x128) {
          s = scaleFromAmax<C.scaleDt>(groupMax, C.margin, C.pow2);
          if (leader) {
            if constexpr (C.amaxOutBuf >= 0)
              f32p(buf[C.amaxOutBuf])[r[u] * C.groups + group] = groupMax;
            writeScale<Spec>(buf, r[u], group, rows, s);
          }
        } else if constexpr (C.src == ScaleSrc::Local) { // Tensor: phase 2, the scale in a slot
          s = slots[Spec::kNumSlots];
        } else {
          s = ok[u] && c0[u] < Spec::kCols ? knownScale<Spec>(buf, slots, r[u], c0[u]) : 1.0f;
          if constexpr (C.src == ScaleSrc::Buffer && C.fromAmax &&
                        (C.gran == Gran::Row || C.gran == Gran::Block1x128)) {
            const bool first = C.gran == Gran::Row ? c0[u] == 0 : leader;
            if (ok[u] && first)
              writeScale<Spec>(buf, r[u], C.gran == Gran::Row ? 0 : group, rows, s);
          }
        }
        if (ok[u])
          castChunk<Spec, E>(buf, r[u], c0[u], v[u], s);
      }
    }
  }

  if constexpr (kTensorMax) {
    tensorMax = blockMaxMag(tensorMax, scratch);
    if (threadIdx.x == 0) {
      if constexpr (S::kCoop && P == Phase::Amax)
        atomicMaxMag(f32p(buf[C.amaxOutBuf]), tensorMax);
      else
        atomicMaxMag(f32p(buf[A.buf]), tensorMax);
    }
  }
  return tensorMax;
}

/// Cast with a local tensor scale: amax over the whole grid, barrier, then the cast.
template <class Spec>
__device__ __forceinline__ void cooperativePasses(void *const *buf, i64 m, float *slots,
                                                  float *scratch) {
  constexpr CastDesc C = Spec::kCast;
  static_assert(Spec::kBarrierBuf >= 0 && C.amaxOutBuf >= 0, "a cooperative cast needs a barrier "
                                                             "and a zero-initialized amax buffer");
  flatPass<Spec, Phase::Amax>(buf, m, slots, scratch);
  const float amax = gridBarrier<Spec::kResetAmax>(static_cast<u32 *>(buf[Spec::kBarrierBuf]),
                                                  f32p(buf[C.amaxOutBuf]));
  if (threadIdx.x == 0) {
    const float s = scaleFromAmax<C.scaleDt>(amax, C.margin, C.pow2);
    slots[Spec::kNumSlots] = s;
    if (blockIdx.x == 0) {
      if constexpr (C.scaleOutBuf >= 0)
        f32p(buf[C.scaleOutBuf])[0] = s;
      if constexpr (C.invOutBuf >= 0)
        f32p(buf[C.invOutBuf])[0] = reciprocal(s);
    }
  }
  __syncthreads();
  flatPass<Spec, Phase::Cast>(buf, m, slots, scratch);
}

} // namespace rows
} // namespace fp8c
