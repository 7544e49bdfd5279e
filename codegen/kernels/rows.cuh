// The row-organized fused kernel behind every generated pointwise / amax / cast launch: over a
// [rows, cols] iteration space it computes one value v = Spec::value(inputs) per element and
// then, as the Spec asks, stores v, reduces its amax (tensor, row, column, 1x128 block), and
// casts it to FP8 with a scale that is known (a slot or a buffer) or computed here from the
// amax of v itself. Output rows may be padded (pitch > cols): the pad columns get zeros.
//
// Work is split in chunks of Spec::kE consecutive elements of one row (one or more 16-byte
// vectors per input and output). Two mappings:
//   - flat: chunks are numbered row-major and taken kUnroll at a time per thread, grid-stride
//     (persistent grid); rows are padded to a whole number of 128-column groups so that a 1x128
//     group is 128/kE consecutive lanes of one warp (reduced with shuffles, in registers);
//   - row: a segment of threads owns a row (row amax, or a cast with a local row scale); the
//     row stays in registers when it fits (kRowRegElems), else it is read twice.
// A cast with a local tensor scale needs the amax of the whole tensor first: the launch is
// cooperative, phase 1 reduces the amax (atomics), a grid barrier, phase 2 casts, walking its
// chunks in reverse so that the most recently read data is re-read from L2.
//
// The Spec (generated) provides: kRows (Extent), kCols, kE, kUnroll, kNumIn, kIn[] (InDesc),
// `static float value(const float *x, const float *slot)` (x[i] = input i at the element;
// slot[j] = the tensor scalars scalars() computed), and optionally the SpecDefaults members
// (kStore, kAmax, kCast, kNumSlots + scalars(), kBarrierBuf, kRowRegElems).
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/layout.cuh"
#include "fp8c/ops.cuh"
#include "fp8c/small.cuh"

namespace fp8c {
namespace rows {

FP8C_HD constexpr i64 cmax(i64 a, i64 b) { return a > b ? a : b; }
FP8C_HD constexpr i64 ceilDiv(i64 a, i64 b) { return (a + b - 1) / b; }
FP8C_HD constexpr int pow2Ceil(i64 x) {
  int p = 1;
  while (p < x && p < kThreads)
    p *= 2;
  return p;
}

/// Static facts derived from a Spec.
template <class Spec> struct Shape {
  static constexpr int E = Spec::kE;
  static constexpr bool kBlockGroups =
      Spec::kAmax.gran == Gran::Block1x128 || Spec::kCast.gran == Gran::Block1x128;
  static constexpr int kGroupLanes = 128 / E; ///< lanes of one 1x128 group (flat mapping)
  /// Widest row written: the value's columns, or an output's padded pitch.
  static constexpr i64 kWidth = cmax(Spec::kCols, cmax(Spec::kStore.buf >= 0 ? Spec::kStore.ld : 0,
                                                       Spec::kCast.buf >= 0 ? Spec::kCast.ld : 0));
  static constexpr i64 kChunksRaw = ceilDiv(kWidth, E);
  /// Chunks per row, whole 1x128 groups when those are reduced.
  static constexpr i64 kCpr =
      kBlockGroups ? ceilDiv(kChunksRaw, kGroupLanes) * kGroupLanes : kChunksRaw;
  static constexpr bool kRowMode =
      Spec::kAmax.gran == Gran::Row ||
      (Spec::kCast.src == ScaleSrc::Local && Spec::kCast.gran == Gran::Row);
  static constexpr bool kCoop =
      Spec::kCast.src == ScaleSrc::Local && Spec::kCast.gran == Gran::Tensor;
  // Row mapping.
  static constexpr int kTpr = pow2Ceil(kCpr);  ///< threads per row segment
  static constexpr int kRpb = kThreads / kTpr; ///< rows per block step
  static constexpr int kChunksPerThread = int(ceilDiv(kCpr, kTpr));
  static_assert(!kBlockGroups || (128 % E == 0 && kGroupLanes <= 32), "bad chunk size");
};

// --- FP8 tables (Spec::kTabIn) ----------------------------------------------------------------
// A unary function of one FP8 value has only 256 results: the input kIn[kTabIn] is read as
// Spec::tabulate(its value), looked up by its code in a table in dynamic shared memory instead of
// widened and evaluated per element (the delayed MLP backward's gelu_grad over the saved e4m3
// GELU input: a shift, a mask and a shared load per element in place of about fifteen
// instructions). The table holds 32 copies, lane l reading copy l: word code * 32 + l sits in
// bank l, so a warp's lookups never conflict, whatever codes its lanes hold.
constexpr int kTableCopies = 32;
constexpr int kTableBytes = 256 * kTableCopies * 4;

__device__ __forceinline__ float *tableBase() {
  extern __shared__ float fp8cTable[];
  return fp8cTable;
}

/// Fills the table: thread t evaluates code t once and writes its 32 copies, rotated by lane so
/// that a warp's stores fall in 32 different banks. The caller synchronizes (runScalars).
template <class Spec> __device__ __forceinline__ void fillTable() {
  constexpr InDesc d = Spec::kIn[Spec::kTabIn];
  static_assert(isFp8(d.dt) && d.bc == Bcast::Full, "a table of a full FP8 input");
  static_assert(kThreads == 256, "one thread per code");
  const int code = threadIdx.x, lane = threadIdx.x & 31;
  const float t = Spec::tabulate(toF32<d.dt>(u8(code)));
  float *row = tableBase() + code * kTableCopies;
#pragma unroll 8
  for (int j = 0; j < kTableCopies; ++j)
    row[(j + lane) & (kTableCopies - 1)] = t;
}

/// The table's entry for `code`, from this lane's copy.
__device__ __forceinline__ float tableAt(u32 code) {
  // From the lane's own base (hoisted out of a run of lookups): a shift-add per lookup.
  return (tableBase() + (threadIdx.x & 31))[code << 5];
}

/// Input I's chunk from its raw words: widened, or (I == kTabIn) looked up code by code.
template <class Spec, int I, int E>
__device__ __forceinline__ void widenInput(const ChunkWords<Spec::kIn[I].dt, E> &c, float (&v)[E]) {
  if constexpr (I == Spec::kTabIn) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      v[e] = tableAt((c.u.pair[e / 4] >> (8 * (e % 4))) & 0xFFu);
  } else {
    widenWords<Spec::kIn[I].dt, E>(c, v);
  }
}

/// Values of the broadcast (non-Full) inputs I.. at chunk (r, c0); Full inputs are left alone.
template <class Spec, int E, int I = 0>
__device__ __forceinline__ void loadBroadcast(void *const *buf, i64 r, i64 c0,
                                              float (&x)[E][Spec::kNumIn]) {
  if constexpr (I < Spec::kNumIn) {
    constexpr InDesc d = Spec::kIn[I];
    if constexpr (d.bc != Bcast::Full) {
      const void *p = buf[d.buf];
      if constexpr (d.bc == Bcast::Col) {
#pragma unroll
        for (int e = 0; e < E; ++e)
          x[e][I] = c0 + e < Spec::kCols ? loadOne<d.dt>(p, c0 + e) : 0.0f;
      } else {
        i64 idx = 0;
        if constexpr (d.bc == Bcast::Row)
          idx = r;
        else if constexpr (d.bc == Bcast::Block1x128)
          idx = r * d.ld + c0 / 128;
        else if constexpr (d.bc == Bcast::Block128x128)
          idx = r / 128 * d.ld + c0 / 128;
        const float s = loadOne<d.dt>(p, idx);
#pragma unroll
        for (int e = 0; e < E; ++e)
          x[e][I] = s;
      }
    }
    loadBroadcast<Spec, E, I + 1>(buf, r, c0, x);
  }
}

/// Loads chunk (r, c0) of Full input I into v (columns >= kCols read as 0).
template <class Spec, int E, int I>
__device__ __forceinline__ void loadFullInput(void *const *buf, i64 r, i64 c0, float (&v)[E]) {
  constexpr InDesc d = Spec::kIn[I];
  static_assert(d.bc == Bcast::Full, "a full [rows, cols] input");
  constexpr int kAlign = accessBytes(E * dtBytes(d.dt));
  constexpr bool kVec = (d.ld * dtBytes(d.dt)) % kAlign == 0;
  const char *row = static_cast<const char *>(buf[d.buf]) + r * d.ld * dtBytes(d.dt);
  if (kVec && c0 + E <= Spec::kCols) {
    ChunkWords<d.dt, E> c;
    loadWords<d.dt, E>(row + c0 * dtBytes(d.dt), c);
    widenInput<Spec, I, E>(c, v);
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e) {
      if constexpr (I == Spec::kTabIn)
        v[e] = c0 + e < Spec::kCols ? tableAt(__ldg(reinterpret_cast<const u8 *>(row) + c0 + e))
                                    : 0.0f;
      else
        v[e] = c0 + e < Spec::kCols ? loadOne<d.dt>(row, c0 + e) : 0.0f;
    }
  }
}

/// Loads chunk (r, c0) of every Full input I.. into x (columns >= kCols read as 0).
template <class Spec, int E, int I = 0>
__device__ __forceinline__ void loadFull(void *const *buf, i64 r, i64 c0,
                                         float (&x)[E][Spec::kNumIn]) {
  if constexpr (I < Spec::kNumIn) {
    if constexpr (Spec::kIn[I].bc == Bcast::Full) {
      float v[E];
      loadFullInput<Spec, E, I>(buf, r, c0, v);
#pragma unroll
      for (int e = 0; e < E; ++e)
        x[e][I] = v[e];
    }
    loadFull<Spec, E, I + 1>(buf, r, c0, x);
  }
}

/// v = Spec::value(x, slots) for the chunk; columns >= kCols are 0.
template <class Spec, int E>
__device__ __forceinline__ void evalChunk(const float (&x)[E][Spec::kNumIn], const float *slots,
                                          i64 c0, float (&v)[E]) {
  if (c0 + E <= Spec::kCols) { // the common case: no per-element bounds
#pragma unroll
    for (int e = 0; e < E; ++e)
      v[e] = Spec::value(x[e], slots);
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e)
      v[e] = c0 + e < Spec::kCols ? Spec::value(x[e], slots) : 0.0f;
  }
}

/// max |v[e]| (NaN wins, canonical). On the bits: |x| as unsigned sorts like the magnitude,
/// and every NaN sorts above +inf.
template <int E> __device__ __forceinline__ float chunkMaxOf(const float (&v)[E]) {
  u32 mx = 0;
#pragma unroll
  for (int e = 0; e < E; ++e)
    mx = max(mx, __float_as_uint(v[e]) & 0x7FFFFFFFu);
  return mx > 0x7F800000u ? canonicalNaN() : __uint_as_float(mx);
}

/// Stores chunk (r, c0) of a [rows, Ld] tensor of type D at `base` (columns >= Ld are not
/// written).
template <Dt D, i64 Ld, int E>
__device__ __forceinline__ void storeOut(void *base, i64 r, i64 c0, const float (&v)[E]) {
  constexpr int kAlign = accessBytes(E * dtBytes(D));
  constexpr bool kVec = (Ld * dtBytes(D)) % kAlign == 0;
  char *row = static_cast<char *>(base) + r * Ld * dtBytes(D);
  if (kVec && c0 + E <= Ld) {
    storeChunk<D, E>(row + c0 * dtBytes(D), v);
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e)
      if (c0 + e < Ld)
        storeOne<D>(row, c0 + e, v[e]);
  }
}

/// Stores the chunk of the value itself (Spec::kStore).
template <class Spec, int E>
__device__ __forceinline__ void storeValue(void *const *buf, i64 r, i64 c0, const float (&v)[E]) {
  constexpr OutDesc o = Spec::kStore;
  storeOut<o.dt, o.ld, E>(buf[o.buf], r, c0, v);
}

/// The scale of a Buffer-sourced cast for group index `idx`.
template <class Spec> __device__ __forceinline__ float bufferScale(void *const *buf, i64 idx) {
  constexpr CastDesc c = Spec::kCast;
  const float a = f32p(buf[c.scaleBuf])[idx];
  if constexpr (c.fromAmax)
    return scaleFromAmax<c.scaleDt>(roundTo<c.amaxRound>(a), c.margin, c.pow2);
  else
    return a;
}

/// Writes scale s of group (r, g) (and its inverse) where the Spec asks for them.
template <class Spec>
__device__ __forceinline__ void writeScale(void *const *buf, i64 r, i64 g, i64 rows, float s) {
  constexpr CastDesc c = Spec::kCast;
  constexpr i64 groups = c.gran == Gran::Block1x128 ? c.groups : 1;
  if constexpr (c.scaleOutBuf >= 0)
    f32p(buf[c.scaleOutBuf])[r * groups + g] = s;
  if constexpr (c.invOutBuf >= 0)
    f32p(buf[c.invOutBuf])[invIndex(c.invLayout, r, g, groups, rows)] = reciprocal(s);
}

/// Casts and stores chunk (r, c0) with per-element scales s[e] (pad columns stay 0: v is 0
/// there and the scales are finite).
template <class Spec, int E>
__device__ __forceinline__ void castChunk(void *const *buf, i64 r, i64 c0, const float (&v)[E],
                                          const float (&s)[E]) {
  float q[E];
#pragma unroll
  for (int e = 0; e < E; ++e)
    q[e] = op::quantize(v[e], s[e]);
  if (c0 + E > Spec::kCols)
#pragma unroll
    for (int e = 0; e < E; ++e)
      q[e] = c0 + e < Spec::kCols ? q[e] : 0.0f;
  constexpr CastDesc c = Spec::kCast;
  storeOut<c.dt, c.ld, E>(buf[c.buf], r, c0, q);
}

/// The same with one scale for the whole chunk.
template <class Spec, int E>
__device__ __forceinline__ void castChunk(void *const *buf, i64 r, i64 c0, const float (&v)[E],
                                          float s) {
  float q[E];
#pragma unroll
  for (int e = 0; e < E; ++e)
    q[e] = op::quantize(v[e], s);
  if (c0 + E > Spec::kCols)
#pragma unroll
    for (int e = 0; e < E; ++e)
      q[e] = c0 + e < Spec::kCols ? q[e] : 0.0f;
  constexpr CastDesc c = Spec::kCast;
  storeOut<c.dt, c.ld, E>(buf[c.buf], r, c0, q);
}

/// The scale of chunk (r, c0) for Slot / Buffer casts that are not per column.
template <class Spec>
__device__ __forceinline__ float knownScale(void *const *buf, const float *slots, i64 r, i64 c0) {
  constexpr CastDesc c = Spec::kCast;
  static_assert(c.gran != Gran::Col, "per-column scales vary within a chunk");
  if constexpr (c.src == ScaleSrc::Slot)
    return slots[c.slot];
  const i64 idx = c.gran == Gran::Row          ? r
                  : c.gran == Gran::Block1x128 ? r * c.groups + c0 / 128
                                               : 0;
  return bufferScale<Spec>(buf, idx);
}

/// Per-element scales of chunk (r, c0) for Slot / Buffer casts.
template <class Spec, int E>
__device__ __forceinline__ void knownScales(void *const *buf, const float *slots, i64 r, i64 c0,
                                            float (&s)[E]) {
  constexpr CastDesc c = Spec::kCast;
  if constexpr (c.src == ScaleSrc::Slot) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      s[e] = slots[c.slot];
  } else if constexpr (c.gran == Gran::Col) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      s[e] = c0 + e < Spec::kCols ? bufferScale<Spec>(buf, c0 + e) : 1.0f;
  } else {
    const i64 idx = c.gran == Gran::Row          ? r
                    : c.gran == Gran::Block1x128 ? r * c.groups + c0 / 128
                                                 : 0;
    const float one = bufferScale<Spec>(buf, idx);
#pragma unroll
    for (int e = 0; e < E; ++e)
      s[e] = one;
  }
}

/// Runs Spec::scalars on thread 0 of every block (block 0 writes their outputs) into shared
/// slots, and fills the FP8 table (kTabIn); returns after every thread can read them.
template <class Spec>
__device__ __forceinline__ void runScalars(void *const *buf, i64 m, float *slots) {
  if (threadIdx.x == 0)
    Spec::scalars(buf, m, slots, blockIdx.x == 0);
  if constexpr (Spec::kTabIn >= 0)
    fillTable<Spec>();
  __syncthreads();
}

} // namespace rows
} // namespace fp8c

#include "fp8c/rows_flat.cuh"
#include "fp8c/rows_segment.cuh"

namespace fp8c {

/// Delayed scaling's history update (Spec::kPush) in the launch that reduced the amax: the last
/// block to finish pushes the tensor amax into the history in place. Every block read the
/// history (runScalars: its scale) before it finished, so none sees the updated one; each
/// block's amax atomic (its thread 0, at the end of its pass) precedes that thread's fence and
/// counter increment, so the last block reads the whole tensor's amax.
template <class Spec> __device__ __forceinline__ void pushHistoryWhenLast(void *const *buf) {
  constexpr PushDesc P = Spec::kPush;
  static_assert(Spec::kAmax.gran == Gran::Tensor && Spec::kAmax.buf >= 0 && P.counter >= 0,
                "a history push takes the launch's own tensor amax");
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    u32 *counter = static_cast<u32 *>(buf[P.counter]);
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
    if (last) {
      __threadfence();
      atomicExch(counter, 0u); // Scratch: left at zero for the next run
    }
  }
  __syncthreads();
  if (!last)
    return;
  float *amax = f32p(buf[Spec::kAmax.buf]);
  const float a = __ldcg(amax);
  historyPushInPlace<P.len>(f32p(buf[P.history]), a);
  if constexpr (P.resetAmax) {
    if (threadIdx.x == 0)
      atomicExch(amax, 0.0f); // every thread read it above (historyPushInPlace synchronizes)
  }
}

/// The kernel body: instantiate from a generated `extern "C" __global__` entry point.
template <class Spec, int N> __device__ __forceinline__ void rowsKernel(const Args<N> &args) {
  using S = rows::Shape<Spec>;
  __shared__ float slots[Spec::kNumSlots > 0 ? Spec::kNumSlots + 1 : 1];
  __shared__ float scratch[kWarps];
  // (The entry point's enterLaunch() lets the next launch or GEMM start setting up.)
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  if constexpr (S::kRowMode)
    rows::segmentPass<Spec>(args.buffers, args.m, slots, scratch);
  else if constexpr (S::kCoop)
    rows::cooperativePasses<Spec>(args.buffers, args.m, slots, scratch);
  else
    rows::flatPass<Spec, rows::Phase::All>(args.buffers, args.m, slots, scratch);
  if constexpr (Spec::kPush.history >= 0) {
    static_assert(!S::kRowMode && !S::kCoop, "a history push in a one-pass flat launch");
    pushHistoryWhenLast<Spec>(args.buffers);
  }
}

} // namespace fp8c
