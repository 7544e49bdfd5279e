// Transpose and cast-transpose: out[c, r] = f(in[r, c]) through 64x64 tiles in shared memory.
// Each thread reads one 16-element chunk of a tile row (16-byte loads) and writes one
// 16-element chunk of a tile column (16-byte stores for FP8 output). With an FP8 cast whose
// tensor scale is local (current scaling), the launch is cooperative: phase 1 reduces the
// tensor amax over the tiles, a grid barrier, phase 2 casts (tiles in reverse order).
//
// The Spec (generated): kRows (Extent, the input's rows), kCols, kIn[0] (the Full input),
// value(), then either kStore (the transposed value) or kCast (its FP8 cast; Slot or Local
// tensor scale), optionally kAmax (Tensor), kBarrierBuf, scalars(); and
// `static i64 outLd(i64 m)`, the output's row pitch (the input's rows, padded).
#pragma once

#include "fp8c/rows.cuh"

namespace fp8c {
namespace transpose {

constexpr int kTile = 64;
constexpr int kE = 16;
constexpr int kChunks = kTile / kE; // chunks per tile row

/// Stores E values at out[r * ld + c0 ...] with a run-time pitch, zeros past `valid`.
template <Dt D, int E>
__device__ __forceinline__ void storeRowDyn(void *base, i64 ld, i64 r, i64 c0,
                                            const float (&v)[E]) {
  char *row = static_cast<char *>(base) + r * ld * dtBytes(D);
  constexpr int kAlign = accessBytes(E * dtBytes(D));
  if ((ld * dtBytes(D)) % kAlign == 0 && c0 + E <= ld) {
    storeChunk<D, E>(row + c0 * dtBytes(D), v);
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e)
      if (c0 + e < ld)
        storeOne<D>(row, c0 + e, v[e]);
  }
}

enum class Phase { All, Amax, Cast };

template <class Spec, Phase P>
__device__ __forceinline__ void tilePass(void *const *buf, i64 m, const float *slots,
                                         float *scratch, float (*tile)[kTile + 1]) {
  constexpr CastDesc C = Spec::kCast;
  constexpr bool kAmax = Spec::kAmax.gran == Gran::Tensor || P == Phase::Amax;
  constexpr bool kWrite = P != Phase::Amax;
  const i64 rowsN = Spec::kRows.eval(m);
  const i64 ld = Spec::outLd(m);
  // Output columns run to the padded pitch; the tile grid covers them.
  const i64 span = ld > rowsN ? ld : rowsN;
  const i64 tileRows = (span + kTile - 1) / kTile;
  constexpr i64 kTileCols = (Spec::kCols + kTile - 1) / kTile;
  const i64 tiles = tileRows * kTileCols;
  const i64 steps = blockIdx.x < tiles ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int tr = threadIdx.x / kChunks, tcE = threadIdx.x % kChunks * kE;
  float amax = 0.0f;
  for (i64 it = 0; it < steps; ++it) { // block-uniform
    const i64 t = blockIdx.x + (P == Phase::Cast ? steps - 1 - it : it) * gridDim.x;
    const i64 r0 = t / kTileCols * kTile, c0 = t % kTileCols * kTile;
    // Read: row r0 + tr, columns c0 + tcE ... + 16.
    float v[kE];
    const i64 r = r0 + tr;
    rows::evalAt<Spec, kE>(buf, slots, r, c0 + tcE, r < rowsN, v);
    if constexpr (kAmax)
      amax = maxMag(amax, rows::chunkMaxOf<kE>(v));
    if constexpr (kWrite) {
      __syncthreads(); // the previous tile's reads of `tile` are done
#pragma unroll
      for (int e = 0; e < kE; ++e)
        tile[tr][tcE + e] = v[e];
      __syncthreads();
      // Write: output row c0 + tr (an input column), columns r0 + tcE ... + 16 (input rows).
      const i64 orow = c0 + tr;
      if (orow < Spec::kCols) {
        float w[kE];
#pragma unroll
        for (int e = 0; e < kE; ++e)
          w[e] = tile[tcE + e][tr]; // rows >= rowsN were evaluated as 0: the pad columns
        if constexpr (C.buf >= 0) {
          const float s = C.src == ScaleSrc::Local ? slots[Spec::kNumSlots] : slots[C.slot];
#pragma unroll
          for (int e = 0; e < kE; ++e)
            w[e] = op::quantize(w[e], s);
          storeRowDyn<C.dt, kE>(buf[C.buf], ld, orow, r0 + tcE, w);
        } else {
          storeRowDyn<Spec::kStore.dt, kE>(buf[Spec::kStore.buf], ld, orow, r0 + tcE, w);
        }
      }
    }
  }
  if constexpr (kAmax) {
    amax = blockMaxMag(amax, scratch);
    if (threadIdx.x == 0)
      atomicMaxMag(f32p(buf[P == Phase::Amax ? C.amaxOutBuf : Spec::kAmax.buf]), amax);
  }
}

} // namespace transpose

/// The kernel body of a (cast-)transpose: instantiate from a generated entry point.
template <class Spec, int N> __device__ __forceinline__ void transposeKernel(const Args<N> &args) {
  using namespace transpose;
  __shared__ float slots[Spec::kNumSlots + 1];
  __shared__ float scratch[kWarps];
  __shared__ float tile[kTile][kTile + 1];
  static_assert(kThreads == kTile * kChunks, "one chunk per thread per tile");
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  constexpr CastDesc C = Spec::kCast;
  if constexpr (C.buf >= 0 && C.src == ScaleSrc::Local) {
    static_assert(Spec::kBarrierBuf >= 0 && C.amaxOutBuf >= 0 && C.gran == Gran::Tensor,
                  "a cast-transpose with a local scale is tensorwise and cooperative");
    tilePass<Spec, Phase::Amax>(args.buffers, args.m, slots, scratch, tile);
    gridBarrier(static_cast<u32 *>(args.buffers[Spec::kBarrierBuf]));
    if (threadIdx.x == 0) {
      const float s =
          scaleFromAmax<C.scaleDt>(__ldcg(f32p(args.buffers[C.amaxOutBuf])), C.margin, C.pow2);
      slots[Spec::kNumSlots] = s;
      if (blockIdx.x == 0) {
        if constexpr (C.scaleOutBuf >= 0)
          f32p(args.buffers[C.scaleOutBuf])[0] = s;
        if constexpr (C.invOutBuf >= 0)
          f32p(args.buffers[C.invOutBuf])[0] = reciprocal(s);
      }
    }
    __syncthreads();
    tilePass<Spec, Phase::Cast>(args.buffers, args.m, slots, scratch, tile);
  } else {
    tilePass<Spec, Phase::All>(args.buffers, args.m, slots, scratch, tile);
  }
}

} // namespace fp8c
