// 128x128-block amax and cast (weights of the blockwise recipe): one thread block owns one
// 128x128 tile at a time (grid-stride over tiles; 4 chunks of 16 elements per thread), reduces
// its amax over the block, and casts it with the tile's scale. By default the tile is read
// twice, the second time from L1/L2 (kTileTwoPass), which keeps registers low and blocks per
// SM high; with kTileTwoPass = false it is held in registers between the two steps.
// The Spec is that of rows.cuh (kRows, kCols, kIn, value, kStore, kAmax, kCast, scalars), with
// kE = 16 and the block granularity Block128x128 for its amax and its cast.
#pragma once

#include "fp8c/rows.cuh"

namespace fp8c {
namespace tiles {

constexpr int kTile = 128;

/// After the tile's amax: reduces it over the block, writes the amax / scale / inverse the Spec
/// asks for, and returns the tile's cast scale.
template <class Spec>
__device__ __forceinline__ float finishTile(void *const *buf, const float *slots, float *scratch,
                                            i64 tr, i64 tc, i64 tileRows, float tileMax) {
  constexpr CastDesc C = Spec::kCast;
  constexpr AmaxDesc A = Spec::kAmax;
  constexpr i64 kGroups = rows::ceilDiv(Spec::kCols, kTile);
  if constexpr (A.gran == Gran::Block128x128 || (C.buf >= 0 && C.src == ScaleSrc::Local))
    tileMax = blockMaxMag(tileMax, scratch);
  const bool leader = threadIdx.x == 0 && tc < kGroups;
  if constexpr (A.gran == Gran::Block128x128)
    if (leader)
      f32p(buf[A.buf])[tr * kGroups + tc] = tileMax;
  float s = 1.0f;
  if constexpr (C.buf >= 0) {
    if constexpr (C.src == ScaleSrc::Local)
      s = scaleFromAmax<C.scaleDt>(tileMax, C.margin, C.pow2);
    else if constexpr (C.src == ScaleSrc::Slot)
      s = slots[C.slot];
    else
      s = rows::bufferScale<Spec>(buf, tr * kGroups + (tc < kGroups ? tc : 0));
    if (leader) {
      if constexpr (C.src == ScaleSrc::Local && C.amaxOutBuf >= 0)
        f32p(buf[C.amaxOutBuf])[tr * kGroups + tc] = tileMax;
      if constexpr (C.src == ScaleSrc::Local || (C.src == ScaleSrc::Buffer && C.fromAmax)) {
        if constexpr (C.scaleOutBuf >= 0)
          f32p(buf[C.scaleOutBuf])[tr * kGroups + tc] = s;
        if constexpr (C.invOutBuf >= 0)
          f32p(buf[C.invOutBuf])[invIndex(C.invLayout, tr, tc, kGroups, tileRows)] = reciprocal(s);
      }
    }
  }
  return s;
}

template <class Spec, int E>
__device__ __forceinline__ void emitTileChunk(void *const *buf, i64 r, i64 c0, const float (&v)[E],
                                              float s) {
  if constexpr (Spec::kStore.buf >= 0)
    rows::storeValue<Spec, E>(buf, r, c0, v);
  if constexpr (Spec::kCast.buf >= 0)
    rows::castChunk<Spec, E>(buf, r, c0, v, s);
}

template <class Spec>
__device__ __forceinline__ void tilePass(void *const *buf, i64 m, const float *slots,
                                         float *scratch) {
  constexpr int E = Spec::kE;
  constexpr int kChunksPerRow = kTile / E;
  constexpr int K = kTile * kChunksPerRow / kThreads; // chunks per thread
  static_assert(kTile % E == 0 && (kTile * kChunksPerRow) % kThreads == 0, "bad chunk size");
  constexpr CastDesc C = Spec::kCast;
  constexpr AmaxDesc A = Spec::kAmax;
  static_assert(A.gran == Gran::Block128x128 || A.gran == Gran::None, "tiles: 128x128 amax only");
  static_assert(C.buf < 0 || C.src != ScaleSrc::Local || C.gran == Gran::Block128x128,
                "tiles: local scales are per 128x128 block");
  constexpr i64 kWidth = rows::Shape<Spec>::kWidth;
  constexpr i64 kTileCols = rows::ceilDiv(kWidth, kTile);

  const i64 rowsN = Spec::kRows.eval(m);
  const i64 tileRows = (rowsN + kTile - 1) / kTile;
  const i64 tiles = tileRows * kTileCols;
  for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) { // block-uniform
    const i64 tr = t / kTileCols, tc = t % kTileCols;
    if constexpr (Spec::kTileTwoPass) {
      // Read the tile twice (the second time from L1/L2): few registers, many blocks per SM.
      float tileMax = 0.0f;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int q = threadIdx.x + k * kThreads;
        const i64 r = tr * kTile + q / kChunksPerRow, c0 = tc * kTile + q % kChunksPerRow * E;
        float v[E];
        rows::evalAt<Spec, E>(buf, slots, r, c0, r < rowsN, v);
        tileMax = maxMag(tileMax, rows::chunkMaxOf<E>(v));
      }
      const float s = finishTile<Spec>(buf, slots, scratch, tr, tc, tileRows, tileMax);
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int q = threadIdx.x + k * kThreads;
        const i64 r = tr * kTile + q / kChunksPerRow, c0 = tc * kTile + q % kChunksPerRow * E;
        if (r >= rowsN)
          continue;
        float v[E];
        rows::evalAt<Spec, E>(buf, slots, r, c0, true, v);
        emitTileChunk<Spec, E>(buf, r, c0, v, s);
      }
    } else {
      float v[K][E];
      i64 r[K], c0[K];
      bool ok[K];
      float tileMax = 0.0f;
      {
        float x[K][E][Spec::kNumIn];
#pragma unroll
        for (int k = 0; k < K; ++k) { // every load of the tile first
          const int q = threadIdx.x + k * kThreads;
          r[k] = tr * kTile + q / kChunksPerRow;
          c0[k] = tc * kTile + q % kChunksPerRow * E;
          ok[k] = r[k] < rowsN;
          rows::loadFull<Spec, E>(buf, r[k], ok[k] ? c0[k] : Spec::kCols, x[k]);
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (ok[k] && c0[k] < Spec::kCols)
            rows::loadBroadcast<Spec, E>(buf, r[k], c0[k], x[k]);
          rows::evalChunk<Spec, E>(x[k], slots, ok[k] ? c0[k] : Spec::kCols, v[k]);
          tileMax = maxMag(tileMax, rows::chunkMaxOf<E>(v[k]));
        }
      }
      const float s = finishTile<Spec>(buf, slots, scratch, tr, tc, tileRows, tileMax);
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (ok[k])
          emitTileChunk<Spec, E>(buf, r[k], c0[k], v[k], s);
    }
  }
}

} // namespace tiles

/// The kernel body for 128x128 blocks: instantiate from a generated entry point.
template <class Spec, int N> __device__ __forceinline__ void tilesKernel(const Args<N> &args) {
  __shared__ float slots[Spec::kNumSlots > 0 ? Spec::kNumSlots : 1];
  __shared__ float scratch[kWarps];
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  tiles::tilePass<Spec>(args.buffers, args.m, slots, scratch);
}

} // namespace fp8c
