// Transpose and cast-transpose: out[c, r] = f(in[r, c]) through 64x64 tiles in shared memory.
// Each thread reads one 16-element chunk of a tile row (16-byte loads) and writes one
// 16-element chunk of a tile column (16-byte stores for FP8 output). With an FP8 cast whose
// tensor scale is local (current scaling), the launch is cooperative: phase 1 reduces the
// tensor amax over the tiles, a grid barrier, phase 2 casts (tiles in reverse order).
//
// The local scale may also be per row of the output (a column of the input: a rowwise operand
// transposed for the weight-gradient GEMM) or per 1x128 block of an output row (128 input rows
// of one column: blockwise): phase 1 then reduces each output row's (block's) amax into a
// zeroed buffer with atomics, read back by phase 2 after the barrier. Either way the input is
// read twice and the transposed value is never stored unquantized.
//
// With kRowCastBuf, the same FP8 values are also written untransposed (a cast that feeds both
// a GEMM and, transposed, the weight-gradient GEMM: one read of the input for both copies).
// With kRowCast (a per-output-row local cast only), the input is also cast untransposed with
// its own local scale per input row or 1x128 block of one (the rowwise / blockwise recipes'
// GEMM operand beside the weight-gradient GEMM's transposed one, which has other scales):
// phase 1 reduces those amaxes too (a shuffle over the 4 threads of a tile row, one atomic
// per row and tile), so both copies cost two reads of the input instead of three.
// With kCopy, input kIn[kCopyIn] is also written untransposed, converted to an FP8 type without a
// scale (the e4m3 copy of the GELU's input a training step saves, gelu_saved=e4m3).
// With kByteStaged, a one-pass cast with a known tensor scale (one bf16 input, or two where one
// is FP8 read through the FP8 table; with or without column sums) runs the leaner byte-staged
// form instead (transpose_bytes.cuh).
// With kColSum, the launch also writes the column sums of the value (fp8.col_sum, the bias
// gradient), deterministically: the work is then split into units of (chunk of tile rows,
// tile column); a unit sums its column strip down its rows in order into partial[chunk][c],
// and the unit that finishes a tile column last (a counter per tile column, zeroed before the
// launch) adds the kColChunks partials in chunk order (as colsum.cuh does).
//
// The Spec (generated): kRows (Extent, the input's rows), kCols, kIn[0] (the Full input),
// value(), then either kStore (the transposed value) or kCast (its FP8 cast; Slot or Local
// tensor scale), optionally kAmax (Tensor), kBarrierBuf, scalars(); and
// `static i64 outLd(i64 m)`, the output's row pitch (the input's rows, padded); optionally
// kRowCastBuf + kRowCastLd (the untransposed cast output and its pitch), or kRowCast (a
// CastDesc: Local, Row or Block1x128, amaxOutBuf a zeroed [rows] / [rows, groups] buffer),
// and kColSum (output buffer, dtype) + kColChunks + kPartialBuf (f32 [kColChunks, kCols]) +
// kCounterBuf (u32 [tile columns], zeroed).
#pragma once

#include "fp8c/rows.cuh"
#include "fp8c/rows_prefetch.cuh"

namespace fp8c {
namespace transpose {

constexpr int kTile = 64;
constexpr int kE = 16;
constexpr int kChunks = kTile / kE; // chunks per tile row

/// The 64 x 64 f32 staging tile. Skewed (Spec::kSkewTile, the default), element (r, c) is word
/// r * 81 + c + 8 (c >= 32) + 8 (r >= 32): with the stride 17 mod 32 and those skews, the three
/// ways a warp touches it each hit 32 different banks. The three ways are: a row chunk from each
/// of 8 consecutive rows (16 columns apart: the writes), a column chunk from each of 8
/// consecutive columns (16 rows apart: the transposed reads), and 32 consecutive columns of one
/// row (the column sums and amaxes). Unskewed, the word is r * 65 + c, and the first two ways
/// have two-way conflicts, because lanes 32 columns (rows) apart share a bank. H200, the two
/// kernels timed alternately in one process after a GEMM: skewed, the delayed MLP's cast-transposes
/// took 5-12 % less time.
template <bool kSkew> struct Tile {
  static constexpr int kStride = 81;
  float w[kTile * kStride + 16];
  /// Element (r, c0 + e) of a row chunk (c0 % 16 == 0, e < 16: the skew is c0's).
  __device__ __forceinline__ float &rowAt(int r, int c0, int e) { return w[at(r, c0) + e]; }
  /// Element (r0 + e, c) of a column chunk (r0 % 16 == 0, e < 16).
  __device__ __forceinline__ float &colAt(int r0, int e, int c) {
    return w[at(r0, c) + e * kStride];
  }
  __device__ __forceinline__ static int at(int r, int c) {
    return r * kStride + ((r >> 5) << 3) + c + ((c >> 5) << 3);
  }
};
template <> struct Tile<false> {
  float t[kTile][kTile + 1];
  __device__ __forceinline__ float &rowAt(int r, int c0, int e) { return t[r][c0 + e]; }
  __device__ __forceinline__ float &colAt(int r0, int e, int c) { return t[r0 + e][c]; }
};
template <class Spec> using TileOf = Tile<Spec::kSkewTile>;

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

/// kCopy: chunk (r, c0) of input kIn[kCopyIn] converted to kCopy.dt (unscaled, saturating) and
/// stored untransposed (the FP8 copy of a launch input a training step saves); the chunk was
/// just read for the value, so this load hits L1.
template <class Spec>
__device__ __forceinline__ void storeInputCopy(void *const *buf, i64 r, i64 c0) {
  float v[kE];
  rows::loadFullInput<Spec, kE, Spec::kCopyIn>(buf, r, c0, v);
  storeRowDyn<Spec::kCopy.dt, kE>(buf[Spec::kCopy.buf], Spec::kCopy.ld, r, c0, v);
}

/// True when the cast's scale is local and per output row (Row) or per 1x128 block of an output
/// row (Block1x128): the amaxes go through a buffer (C.amaxOutBuf, [rows] or [rows, groups]).
template <class Spec> FP8C_HD constexpr bool outRowScales() {
  return Spec::kCast.buf >= 0 && Spec::kCast.src == ScaleSrc::Local &&
         (Spec::kCast.gran == Gran::Row || Spec::kCast.gran == Gran::Block1x128);
}

/// Index of output row `orow`'s scale group holding output column `ocol`.
template <class Spec> __device__ __forceinline__ i64 outGroup(i64 orow, i64 ocol) {
  return Spec::kCast.gran == Gran::Block1x128 ? orow * Spec::kCast.groups + ocol / 128 : orow;
}

/// The scale of output row `orow` at output column `ocol`, from the amax phase 1 reduced.
template <class Spec>
__device__ __forceinline__ float outRowScale(void *const *buf, i64 orow, i64 ocol) {
  constexpr CastDesc C = Spec::kCast;
  const float a = __ldcg(f32p(buf[C.amaxOutBuf]) + outGroup<Spec>(orow, ocol));
  return scaleFromAmax<C.scaleDt>(a, C.margin, C.pow2);
}

/// The tensor scale of the cast: computed in this launch (Local), a scalar slot, or read from
/// a buffer (a scale computed by an earlier launch).
template <class Spec>
__device__ __forceinline__ float castScale(void *const *buf, const float *slots) {
  constexpr CastDesc C = Spec::kCast;
  static_assert(C.gran == Gran::Tensor || C.buf < 0 || outRowScales<Spec>(),
                "a cast-transpose has a tensor scale or a local per-output-row one");
  if constexpr (C.src == ScaleSrc::Local)
    return slots[Spec::kNumSlots];
  else if constexpr (C.src == ScaleSrc::Slot)
    return slots[C.slot];
  else
    return rows::bufferScale<Spec>(buf, 0);
}

/// The end of a column-sum unit: thread t < 64 holds the unit's sum `p` of column t of tile
/// column `tcol`, which goes into partial[chunk][c]; the last unit of the tile column (the
/// per-tile-column counter, zeroed before the launch) adds the chunks in order and stores the
/// sums. Every thread of the block calls it.
template <class Spec>
__device__ __forceinline__ void publishColumnPartial(void *const *buf, i64 chunk, i64 tcol,
                                                     float p) {
  float *partial = f32p(buf[Spec::kPartialBuf]);
  u32 *counter = static_cast<u32 *>(buf[Spec::kCounterBuf]);
  const i64 c = tcol * kTile + threadIdx.x;
  if (threadIdx.x < kTile && c < Spec::kCols)
    partial[chunk * Spec::kCols + c] = p;
  if (lastToArrive(&counter[tcol], u32(Spec::kColChunks)) && threadIdx.x < kTile &&
      c < Spec::kCols) {
    float sum = 0.0f;
    for (int k = 0; k < Spec::kColChunks; ++k)
      sum = __fadd_rn(sum, __ldcg(&partial[k * Spec::kCols + c]));
    storeOne<Spec::kColSum.dt>(buf[Spec::kColSum.buf], c, sum);
  }
}

/// For thread t < 64: slices[0][t] + slices[1][t] + ... + slices[Slices - 1][t], added in that
/// order (slices of 64 floats in shared memory, one per group of rows); 0 for the others.
template <int Slices> __device__ __forceinline__ float sumColumnSlices(const float *slices) {
  float p = 0.0f;
  if (threadIdx.x < kTile) {
    p = slices[threadIdx.x];
#pragma unroll
    for (int q = 1; q < Slices; ++q)
      p = __fadd_rn(p, slices[q * kTile + threadIdx.x]);
  }
  return p;
}

/// Column sums of one unit: the four quarters of each column (threads t and t + 64k hold
/// column t % 64 of rows 16k ... 16k + 15 of each tile), added in order, then published.
template <class Spec>
__device__ __forceinline__ void finishColumnUnit(void *const *buf, i64 chunk, i64 tcol, float csum,
                                                 float *colScratch) {
  __syncthreads(); // the previous unit's reads of colScratch are done
  colScratch[threadIdx.x] = csum;
  __syncthreads();
  const float p = sumColumnSlices<kThreads / kTile>(colScratch);
  publishColumnPartial<Spec>(buf, chunk, tcol, p);
}

/// Phase 1 of a per-output-row scale: the max |v| of each column of the tile in shared memory
/// (one input column = one output row; threads t and t + 64k take rows 16k ... 16k + 15 of
/// column t % 64), then one atomic per column into its row's (block's) amax.
template <class Spec>
__device__ __forceinline__ void columnAmaxes(void *const *buf, i64 r0, i64 c0, TileOf<Spec> &tile,
                                             float *colScratch) {
  constexpr int kQuarters = kThreads / kTile;
  const int col = threadIdx.x % kTile, q0 = threadIdx.x / kTile * 16;
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < 16; ++i)
    m = maxMag(m, magnitude(tile.colAt(q0, i, col)));
  colScratch[threadIdx.x] = m;
  __syncthreads();
  if (threadIdx.x < kTile && c0 + threadIdx.x < Spec::kCols) {
    float a = colScratch[threadIdx.x];
#pragma unroll
    for (int q = 1; q < kQuarters; ++q)
      a = maxMag(a, colScratch[q * kTile + threadIdx.x]);
    atomicMaxMag(f32p(buf[Spec::kCast.amaxOutBuf]) + outGroup<Spec>(c0 + threadIdx.x, r0), a);
  }
}

/// Phase 2 of a per-output-row scale: the unit holding the first tile of an output row's scale
/// group writes its scale s (and the inverse) where the Spec asks for them.
template <class Spec>
__device__ __forceinline__ void writeOutRowScale(void *const *buf, i64 orow, i64 r0, float s) {
  constexpr CastDesc C = Spec::kCast;
  constexpr bool kBlocks = C.gran == Gran::Block1x128;
  if (orow >= Spec::kCols || (kBlocks ? r0 % 128 != 0 : r0 != 0))
    return;
  const i64 groups = kBlocks ? C.groups : 1, g = kBlocks ? r0 / 128 : 0;
  if constexpr (C.scaleOutBuf >= 0)
    f32p(buf[C.scaleOutBuf])[orow * groups + g] = s;
  if constexpr (C.invOutBuf >= 0)
    f32p(buf[C.invOutBuf])[invIndex(C.invLayout, orow, g, groups, Spec::kCols)] = reciprocal(s);
}

/// True when the input is also cast untransposed with local per-input-row (block) scales.
template <class Spec> FP8C_HD constexpr bool inRowScales() { return Spec::kRowCast.buf >= 0; }

/// Index of input row r's scale group holding input column c (kRowCast).
template <class Spec> __device__ __forceinline__ i64 inGroup(i64 r, i64 c) {
  return Spec::kRowCast.gran == Gran::Block1x128 ? r * Spec::kRowCast.groups + c / 128 : r;
}

/// Phase 1 of kRowCast: the max |v| of tile row r over columns c0 .. c0 + 63 (the 4 threads
/// holding it), one atomic into its row's (block's) amax.
template <class Spec, int E>
__device__ __forceinline__ void rowAmax(void *const *buf, i64 r, i64 c0, int tcE,
                                        const float (&v)[E], i64 rowsN) {
  const float m = groupMaxMag<kChunks>(rows::chunkMaxOf<E>(v));
  if (tcE == 0 && r < rowsN)
    atomicMaxMag(f32p(buf[Spec::kRowCast.amaxOutBuf]) + inGroup<Spec>(r, c0), m);
}

/// Phase 2 of kRowCast: casts and stores this thread's chunk of input row r with its row's
/// (block's) scale; the thread holding the group's first chunk writes the scale and inverse.
template <class Spec, int E>
__device__ __forceinline__ void rowCast(void *const *buf, i64 r, i64 c0, int tcE,
                                        const float (&v)[E], i64 rowsN) {
  constexpr CastDesc C = Spec::kRowCast;
  constexpr bool kBlocks = C.gran == Gran::Block1x128;
  if (r >= rowsN)
    return;
  const i64 grp = inGroup<Spec>(r, c0);
  const float s = scaleFromAmax<C.scaleDt>(__ldcg(f32p(buf[C.amaxOutBuf]) + grp), C.margin, C.pow2);
  if (tcE == 0 && (kBlocks ? c0 % 128 == 0 : c0 == 0)) {
    const i64 groups = kBlocks ? C.groups : 1, g = kBlocks ? c0 / 128 : 0;
    if constexpr (C.scaleOutBuf >= 0)
      f32p(buf[C.scaleOutBuf])[r * groups + g] = s;
    if constexpr (C.invOutBuf >= 0)
      f32p(buf[C.invOutBuf])[invIndex(C.invLayout, r, g, groups, rowsN)] = reciprocal(s);
  }
  float q[E];
#pragma unroll
  for (int e = 0; e < E; ++e)
    q[e] = op::quantize(v[e], s); // columns >= kCols were evaluated as 0
  storeRowDyn<C.dt, E>(buf[C.buf], C.ld, r, c0 + tcE, q);
}

template <class Spec, Phase P>
__device__ __forceinline__ void tilePass(void *const *buf, i64 m, const float *slots,
                                         float *scratch, TileOf<Spec> &tile, float *colScratch) {
  constexpr CastDesc C = Spec::kCast;
  constexpr bool kOutRows = outRowScales<Spec>();
  constexpr bool kAmax = Spec::kAmax.gran == Gran::Tensor || (P == Phase::Amax && !kOutRows);
  constexpr bool kWrite = P != Phase::Amax;
  constexpr bool kColAmax = P == Phase::Amax && kOutRows; // phase 1: per-column amaxes
  static_assert(!kOutRows || Spec::kRowCastBuf < 0, "the untransposed copy has a tensor scale");
  static_assert(!inRowScales<Spec>() || (kOutRows && Spec::kRowCast.src == ScaleSrc::Local &&
                                         Spec::kRowCast.amaxOutBuf >= 0),
                "kRowCast: a local per-row cast beside a per-output-row one");
  constexpr bool kUnits = Spec::kColSum.buf >= 0; // column sums: (chunk, tile column) units
  constexpr bool kSums = kUnits && kWrite;
  const i64 rowsN = Spec::kRows.eval(m);
  const i64 ld = Spec::outLd(m);
  // Output columns run to the padded pitch; the tile grid covers them.
  const i64 span = ld > rowsN ? ld : rowsN;
  const i64 tileRows = (span + kTile - 1) / kTile;
  constexpr i64 kTileCols = (Spec::kCols + kTile - 1) / kTile;
  // Phase 1 of a per-output-row cast only reduces: its units are strips of tile rows of one
  // tile column, about one per block, whose column maxima stay in registers until the strip
  // (or, for 1x128 blocks of the transpose, its 128-row group) ends: one shared-memory
  // reduction and one atomic per column there, not per 64 x 64 tile.
  const i64 per = kUnits     ? (tileRows + Spec::kColChunks - 1) / Spec::kColChunks
                  : kColAmax ? (tileRows * kTileCols + gridDim.x - 1) / gridDim.x < tileRows
                                   ? (tileRows * kTileCols + gridDim.x - 1) / gridDim.x
                                   : tileRows
                             : 1;
  const i64 units = kUnits     ? i64(Spec::kColChunks) * kTileCols
                    : kColAmax ? (tileRows + per - 1) / per * kTileCols
                               : tileRows * kTileCols;
  const i64 steps = blockIdx.x < units ? (units - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int tr = threadIdx.x / kChunks, tcE = threadIdx.x % kChunks * kE;
  // The unit this block takes at step `it` (phase 2 walks them in reverse).
  auto unitAt = [&](i64 it) {
    return blockIdx.x + (P == Phase::Cast ? steps - 1 - it : it) * gridDim.x;
  };
  // With column sums (units of several tile rows), this thread's chunk of the next tile is
  // loaded while the current one is computed: H200, the two kernels timed alternately in one
  // process, delayed MLP gelu_grad 243 -> 211 us. Launches of one tile per unit gained nothing
  // (plain casts) or lost (the GELU cast-transpose, 164 -> 170 us: the next tile's index arithmetic
  // in an instruction-bound loop). (Not with per-output-row scales: those launches are bounded to
  // 64 registers, see EmitLaunch.)
  constexpr bool kPrefetch = kUnits && !kOutRows;
  rows::ChunkPrefetch<Spec, kE> next;
  bool pending = false; // `next` holds the current tile's chunk
  // A tensor-scale cast's scale, read once; without column sums the tile holds the scaled
  // values, so the transposed side only converts them.
  constexpr bool kScaled = kWrite && C.buf >= 0 && !kOutRows;
  constexpr bool kStageScaled = kScaled && !kSums;
  float castS = 0.0f;
  if constexpr (kScaled)
    castS = castScale<Spec>(buf, slots);
  float amax = 0.0f;
  float colMax[kColAmax ? kE : 1]; // phase 1: max |v| of this thread's 16 columns so far
#pragma unroll
  for (int e = 0; e < (kColAmax ? kE : 1); ++e)
    colMax[e] = 0.0f;
  for (i64 it = 0; it < steps; ++it) { // block-uniform
    const i64 u = unitAt(it);
    const i64 tcol = u % kTileCols, chunk = u / kTileCols;
    const i64 trow0 = chunk * per, trowEnd = trow0 + per < tileRows ? trow0 + per : tileRows;
    float csum = 0.0f; // column threadIdx.x % 64 of rows 16 * (threadIdx.x / 64) + [0, 16)
    for (i64 trow = trow0; trow < trowEnd; ++trow) { // block-uniform
      const i64 r0 = trow * kTile, c0 = tcol * kTile;
      // Read: row r0 + tr, columns c0 + tcE ... + 16.
      float v[kE];
      const i64 r = r0 + tr;
      if (kPrefetch && pending && next.loaded) {
        float x[kE][Spec::kNumIn];
        next.inputs(buf, r, c0 + tcE, x);
#pragma unroll
        for (int e = 0; e < kE; ++e)
          v[e] = Spec::value(x[e], slots);
      } else {
        rows::evalAt<Spec, kE>(buf, slots, r, c0 + tcE, r < rowsN, v);
      }
      // Issue the loads of the next tile: the next row of this unit, or the first of the next.
      if constexpr (kPrefetch) {
        i64 nextTrow = trow + 1, nextTcol = tcol;
        if (nextTrow >= trowEnd) {
          nextTrow = tileRows; // none
          if (it + 1 < steps) {
            const i64 un = unitAt(it + 1);
            nextTcol = un % kTileCols;
            nextTrow = un / kTileCols * per;
          }
        }
        pending = nextTrow < tileRows; // block-uniform
        if (pending) {
          const i64 rn = nextTrow * kTile + tr;
          next.issue(buf, rn, nextTcol * kTile + tcE, rn < rowsN);
        }
      }
      if constexpr (kAmax)
        amax = maxMag(amax, rows::chunkMaxOf<kE>(v));
      if constexpr (kColAmax && inRowScales<Spec>())
        rowAmax<Spec, kE>(buf, r, c0, tcE, v, rowsN);
      if constexpr (P == Phase::Cast && inRowScales<Spec>())
        rowCast<Spec, kE>(buf, r, c0, tcE, v, rowsN);
      if constexpr (kColAmax) {
#pragma unroll
        for (int e = 0; e < kE; ++e)
          colMax[e] = maxMag(colMax[e], magnitude(v[e]));
        // Flush at the strip's end, and at each 128-row group's end for 1x128 blocks (two
        // tile rows): a flush never mixes two groups.
        constexpr bool kOutBlocks = C.gran == Gran::Block1x128;
        if (trow + 1 == trowEnd || (kOutBlocks && trow % 2 == 1)) { // block-uniform
          __syncthreads(); // the previous flush's reads of `tile` and colScratch are done
#pragma unroll
          for (int e = 0; e < kE; ++e) {
            tile.rowAt(tr, tcE, e) = colMax[e];
            colMax[e] = 0.0f;
          }
          __syncthreads();
          columnAmaxes<Spec>(buf, r0, c0, tile, colScratch);
        }
      }
      if constexpr (kWrite) {
        float q[kE]; // v scaled for a tensor-scale cast
        if constexpr (kScaled) {
#pragma unroll
          for (int e = 0; e < kE; ++e)
            q[e] = op::quantize(v[e], castS);
        }
        if constexpr (Spec::kRowCastBuf >= 0) {
          static_assert(kScaled, "the untransposed copy is of a tensor-scale cast");
          if (r < rowsN)
            storeRowDyn<C.dt, kE>(buf[Spec::kRowCastBuf], Spec::kRowCastLd, r, c0 + tcE, q);
        }
        if constexpr (Spec::kCopy.buf >= 0)
          if (r < rowsN)
            storeInputCopy<Spec>(buf, r, c0 + tcE);
        __syncthreads(); // the previous tile's reads of `tile` are done
#pragma unroll
        for (int e = 0; e < kE; ++e)
          tile.rowAt(tr, tcE, e) = kStageScaled ? q[e] : v[e];
        __syncthreads();
        if constexpr (kSums) {
          const int col = threadIdx.x % kTile, q0 = threadIdx.x / kTile * 16;
#pragma unroll
          for (int i = 0; i < 16; ++i)
            csum = __fadd_rn(csum, tile.colAt(q0, i, col));
        }
        // Write: output row c0 + tr (an input column), columns r0 + tcE ... + 16 (input rows).
        const i64 orow = c0 + tr;
        if (orow < Spec::kCols) {
          float w[kE];
#pragma unroll
          for (int e = 0; e < kE; ++e)
            w[e] = tile.colAt(tcE, e, tr); // rows >= rowsN were evaluated as 0: the pad columns
          if constexpr (kOutRows) {
            const float s = outRowScale<Spec>(buf, orow, r0 + tcE);
            if (tcE == 0) // r0 + tcE = r0: the scale of the group starting at r0
              writeOutRowScale<Spec>(buf, orow, r0, s);
#pragma unroll
            for (int e = 0; e < kE; ++e)
              w[e] = op::quantize(w[e], s);
            storeRowDyn<C.dt, kE>(buf[C.buf], ld, orow, r0 + tcE, w);
          } else if constexpr (C.buf >= 0) {
            if constexpr (!kStageScaled) {
#pragma unroll
              for (int e = 0; e < kE; ++e)
                w[e] = op::quantize(w[e], castS);
            }
            storeRowDyn<C.dt, kE>(buf[C.buf], ld, orow, r0 + tcE, w);
          } else {
            storeRowDyn<Spec::kStore.dt, kE>(buf[Spec::kStore.buf], ld, orow, r0 + tcE, w);
          }
        }
      }
    }
    if constexpr (kSums)
      finishColumnUnit<Spec>(buf, chunk, tcol, csum, colScratch);
  }
  if constexpr (kAmax) {
    amax = blockMaxMag(amax, scratch);
    if (threadIdx.x == 0)
      atomicMaxMag(f32p(buf[P == Phase::Amax ? C.amaxOutBuf : Spec::kAmax.buf]), amax);
  }
}

} // namespace transpose
} // namespace fp8c

#include "fp8c/transpose_bytes.cuh"

namespace fp8c {

namespace transpose {

/// The general form's kernel body (the 64 x 64 f32 staging tile; see the top of this file).
template <class Spec, int N> __device__ __forceinline__ void tiledKernel(const Args<N> &args) {
  __shared__ float slots[Spec::kNumSlots + 1];
  __shared__ float scratch[kWarps];
  __shared__ TileOf<Spec> tile;
  __shared__ float colScratch[Spec::kColSum.buf >= 0 || outRowScales<Spec>() ? kThreads : 1];
  static_assert(kThreads == kTile * kChunks, "one chunk per thread per tile");
  static_assert(kThreads == 4 * kTile, "column sums: four quarters of 16 rows per column");
  // (The entry point's enterLaunch() lets the next launch or GEMM start setting up.)
  rows::runScalars<Spec>(args.buffers, args.m, slots);
  constexpr CastDesc C = Spec::kCast;
  if constexpr (outRowScales<Spec>()) {
    static_assert(Spec::kBarrierBuf >= 0 && C.amaxOutBuf >= 0,
                  "a cast-transpose with local per-row scales is cooperative");
    tilePass<Spec, Phase::Amax>(args.buffers, args.m, slots, scratch, tile, colScratch);
    // The per-column amaxes are read by every block's cast phase: a zeroed buffer per run.
    static_assert(!Spec::kResetAmax, "per-column amaxes are not the barrier's to reset");
    gridBarrier(static_cast<u32 *>(args.buffers[Spec::kBarrierBuf]));
    tilePass<Spec, Phase::Cast>(args.buffers, args.m, slots, scratch, tile, colScratch);
  } else if constexpr (C.buf >= 0 && C.src == ScaleSrc::Local) {
    static_assert(Spec::kBarrierBuf >= 0 && C.amaxOutBuf >= 0 && C.gran == Gran::Tensor,
                  "a cast-transpose with a local scale is tensorwise and cooperative");
    tilePass<Spec, Phase::Amax>(args.buffers, args.m, slots, scratch, tile, colScratch);
    const float amax = gridBarrier<Spec::kResetAmax>(
        static_cast<u32 *>(args.buffers[Spec::kBarrierBuf]), f32p(args.buffers[C.amaxOutBuf]));
    if (threadIdx.x == 0) {
      const float s = scaleFromAmax<C.scaleDt>(amax, C.margin, C.pow2);
      slots[Spec::kNumSlots] = s;
      if (blockIdx.x == 0) {
        if constexpr (C.scaleOutBuf >= 0)
          f32p(args.buffers[C.scaleOutBuf])[0] = s;
        if constexpr (C.invOutBuf >= 0)
          f32p(args.buffers[C.invOutBuf])[0] = reciprocal(s);
      }
    }
    __syncthreads();
    tilePass<Spec, Phase::Cast>(args.buffers, args.m, slots, scratch, tile, colScratch);
  } else {
    tilePass<Spec, Phase::All>(args.buffers, args.m, slots, scratch, tile, colScratch);
    // Delayed scaling's history push (Spec::kPush): the last block pushes this launch's tensor
    // amax, as rows.cuh's one-pass launches do.
    if constexpr (Spec::kPush.history >= 0)
      pushHistoryWhenLast<Spec>(args.buffers);
  }
  static_assert(Spec::kPush.history < 0 || (C.src != ScaleSrc::Local && !outRowScales<Spec>()),
                "a history push in a one-pass (cast-)transpose");
}

} // namespace transpose

/// The kernel body of a (cast-)transpose: instantiate from a generated entry point.
template <class Spec, int N> __device__ __forceinline__ void transposeKernel(const Args<N> &args) {
  if constexpr (Spec::kByteStaged)
    bytes::kernel<Spec>(args);
  else
    transpose::tiledKernel<Spec>(args);
}

} // namespace fp8c
