// One chunk's input loads issued ahead of their use: a tile loop evaluates the current chunk
// from registers loaded during the previous tile, then issues the next tile's loads into the
// same registers, so a thread keeps its global loads in flight while it computes, stages and
// stores (the raw words cost E * size / 4 registers per input, the f32 values twice that).
// Only interior chunks of vectorizable inputs are prefetched; any other chunk is read at its
// use by rows::evalAt, with the same results.
#pragma once

#include "fp8c/rows.cuh"

namespace fp8c {
namespace rows {

/// The raw words of inputs I.. (a word set per input; broadcast inputs leave theirs unused).
template <class Spec, int E, int I = 0, bool kEnd = (I >= Spec::kNumIn)> struct InputWords {
  ChunkWords<Spec::kIn[I].dt, E> head;
  InputWords<Spec, E, I + 1> tail;
};
template <class Spec, int E, int I> struct InputWords<Spec, E, I, true> {};

/// True when every Full input's row pitch keeps its chunks aligned for vector loads.
template <class Spec, int E, int I = 0> FP8C_HD constexpr bool fullInputsAligned() {
  if constexpr (I >= Spec::kNumIn) {
    return true;
  } else {
    constexpr InDesc d = Spec::kIn[I];
    constexpr bool ok =
        d.bc != Bcast::Full || (d.ld * dtBytes(d.dt)) % accessBytes(E * dtBytes(d.dt)) == 0;
    return ok && fullInputsAligned<Spec, E, I + 1>();
  }
}

template <class Spec, int E, int I = 0>
__device__ __forceinline__ void loadInputWords(void *const *buf, i64 r, i64 c0,
                                               InputWords<Spec, E, I> &w) {
  if constexpr (I < Spec::kNumIn) {
    constexpr InDesc d = Spec::kIn[I];
    if constexpr (d.bc == Bcast::Full) {
      const char *row = static_cast<const char *>(buf[d.buf]) + r * d.ld * dtBytes(d.dt);
      loadWords<d.dt, E>(row + c0 * dtBytes(d.dt), w.head);
    }
    loadInputWords<Spec, E, I + 1>(buf, r, c0, w.tail);
  }
}

template <class Spec, int E, int I = 0>
__device__ __forceinline__ void widenInputWords(const InputWords<Spec, E, I> &w,
                                                float (&x)[E][Spec::kNumIn]) {
  if constexpr (I < Spec::kNumIn) {
    if constexpr (Spec::kIn[I].bc == Bcast::Full) {
      float v[E];
      widenInput<Spec, I, E>(w.head, v);
#pragma unroll
      for (int e = 0; e < E; ++e)
        x[e][I] = v[e];
    }
    widenInputWords<Spec, E, I + 1>(w.tail, x);
  }
}

/// The loads of one chunk, issued by issue() and, where `loaded`, consumed by inputs() for the
/// same (r, c0); a chunk that was not loaded is evaluated by evalAt.
template <class Spec, int E> struct ChunkPrefetch {
  InputWords<Spec, E> words;
  bool loaded = false; ///< the chunk was interior: its words are in flight

  __device__ __forceinline__ void issue(void *const *buf, i64 r, i64 c0, bool ok) {
    loaded = fullInputsAligned<Spec, E>() && ok && c0 + E <= Spec::kCols;
    if (loaded)
      loadInputWords<Spec, E>(buf, r, c0, words);
  }

  /// The chunk's inputs (a loaded chunk: its words widened, the broadcast inputs read).
  __device__ __forceinline__ void inputs(void *const *buf, i64 r, i64 c0,
                                         float (&x)[E][Spec::kNumIn]) const {
    widenInputWords<Spec, E>(words, x);
    loadBroadcast<Spec, E>(buf, r, c0, x);
  }
};

} // namespace rows
} // namespace fp8c
