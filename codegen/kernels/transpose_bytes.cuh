// The byte-staged one-pass cast-transpose (Spec::kByteStaged, chosen by codegen/EmitLaunch.cpp):
// a value of one full bf16 input, or of two where one is FP8 read through the FP8 table, cast
// to FP8 with a tensor scale known before the launch (delayed scaling's history, or a scale an
// earlier launch computed), written transposed and, with kRowCastBuf, untransposed; optionally
// the tensor amax of the value, the history push and its column sums (kColSum).
//
// transpose.cuh's general form stages f32 values in shared memory and converts each element
// twice. This form converts each element once and moves only FP8 bytes through shared memory:
// - a block takes 128 x 64 tiles of the input; thread t holds rows 4 * (t / 8) .. + 3, columns
//   8 * (t % 8) .. + 7 of the tile (per input four 8-element loads, the next tile's issued
//   before this one is converted; a cp.async ring of 2 or 4 tiles in shared memory instead
//   measured 1-15 % slower, bench/README.md "The byte-staged cast-transpose");
// - it converts them once, q = sat(rne(v * s)), stores each row's 8 FP8 bytes untransposed,
//   and transposes its 4 x 8 bytes in registers (byte permutes) into 8 words, each 4
//   consecutive input rows of one column;
// - the words go to a shared 64 x 128-byte tile, word (c, g) at c * 32 + (g ^ 4 * (c / 8 % 8)):
//   conflict-free both for these writes and for the 16-byte reads of the transposed side;
// - each thread then reads two 16-byte runs (16 input rows of one column) and stores them into
//   the transposed output, 8 threads per 128-byte output row segment. Two shared tiles
//   alternate, so one barrier per tile suffices.
// With column sums the work is split into units of (chunk of tile rows, tile column) as in the
// general form (kColChunks partial rows, fewer than the general form's for its taller tiles,
// and per-tile-column counters); a unit sums each column down its rows in a fixed order (a
// thread's 4 rows, then the 32 row groups of the block in a fixed tree), so the sums are
// deterministic. Across units too the next tile's loads are in flight while a tile converts.
// Where every tile lies inside (rows a multiple of 128, columns of 64, the transposed copy's pitch
// its row count and 16-byte aligned: the training step's tensors), the loops run tile()'s form
// without any bounds checks: 289 instead of 475 instructions per tile for the Linear's dY, and
// at the capped clock of a sustained step 137.9 against 142.1 us, the MLP's gelu_grad 174.3
// against 184.9 (H200, fp8c-train-bench --sustain --profile).
// Included by transpose.cuh (it uses transpose::castScale, sumColumnSlices, publishColumnPartial
// and pushHistoryWhenLast). FP8 outputs, amax and scale are bit for bit the general form's
// (test/unit/runtime/GpuCastTransposeTest.cpp compares both with the interpreter and with each other).
#pragma once

namespace fp8c {
namespace bytes {

constexpr int kTileR = 128; // input rows per tile (output columns: one 128-byte line)
constexpr int kTileC = 64;  // input columns per tile (output rows)
constexpr int kWordsPerCol = kTileR / 4;

template <class Spec, int I> FP8C_HD constexpr bool inputFits() {
  return I >= Spec::kNumIn || (Spec::kIn[I].bc == Bcast::Full && Spec::kIn[I].ld % 8 == 0 &&
                               (Spec::kIn[I].dt == Dt::BF16 || isFp8(Spec::kIn[I].dt)) &&
                               (I == Spec::kTabIn || Spec::kIn[I].dt == Dt::BF16));
}

/// What the byte-staged form requires of the Spec; codegen emits kByteStaged only for such
/// (codegen/EmitLaunch.cpp's byteStagedFits says the same).
template <class Spec> FP8C_HD constexpr bool fits() {
  constexpr CastDesc C = Spec::kCast;
  return (Spec::kNumIn == 1 || (Spec::kNumIn == 2 && Spec::kTabIn >= 0)) &&
         inputFits<Spec, 0>() && inputFits<Spec, 1>() && Spec::kCols % 8 == 0 && C.buf >= 0 &&
         isFp8(C.dt) && C.gran == Gran::Tensor &&
         (C.src == ScaleSrc::Slot || C.src == ScaleSrc::Buffer) &&
         (Spec::kRowCastBuf < 0 || Spec::kRowCastLd % 8 == 0) && Spec::kRowCast.buf < 0 &&
         Spec::kCopy.buf < 0 && Spec::kStore.buf < 0 && Spec::kBarrierBuf < 0 &&
         (Spec::kAmax.buf < 0 || Spec::kAmax.gran == Gran::Tensor);
}

/// Bytes 0-3 of words a (row 0) .. d (row 3) at byte k of each: column k of a 4 x 4 byte block.
__device__ __forceinline__ void transpose4x4(u32 a, u32 b, u32 c, u32 d, u32 (&col)[4]) {
  const u32 ab01 = __byte_perm(a, b, 0x5140); // a0 b0 a1 b1
  const u32 ab23 = __byte_perm(a, b, 0x7362); // a2 b2 a3 b3
  const u32 cd01 = __byte_perm(c, d, 0x5140);
  const u32 cd23 = __byte_perm(c, d, 0x7362);
  col[0] = __byte_perm(ab01, cd01, 0x5410); // a0 b0 c0 d0
  col[1] = __byte_perm(ab01, cd01, 0x7632); // a1 b1 c1 d1
  col[2] = __byte_perm(ab23, cd23, 0x5410);
  col[3] = __byte_perm(ab23, cd23, 0x7632);
}

/// The word index of (column c, row group g) in a shared tile.
__device__ __forceinline__ int wordAt(int c, int g) {
  return c * kWordsPerCol + (g ^ ((c >> 3 & 7) << 2));
}

/// 8 elements of one input row: 16 bytes of bf16 or 8 of FP8; rows 0-3 of a row group.
template <Dt D> struct Raw {
  using T = uint2;
  T v[4];
};
template <> struct Raw<Dt::BF16> {
  using T = uint4;
  T v[4];
};

/// This thread's chunks (rows r .. r + 3, columns c .. c + 7) of each input; zeros past the rows.
template <class Spec> struct Loads {
  Raw<Spec::kIn[0].dt> a;
  Raw<Spec::kIn[Spec::kNumIn - 1].dt> b; // (the same input again with one)

  /// With Edge false the tile lies inside the input: no row or column checks.
  template <int I, bool Edge, class R>
  __device__ __forceinline__ static void issueOne(void *const *buf, i64 r, i64 c, i64 rowsN,
                                                  R &raw) {
    constexpr InDesc d = Spec::kIn[I];
    using T = typename R::T;
    const u8 *in = static_cast<const u8 *>(buf[d.buf]);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      raw.v[j] = !Edge || (c < Spec::kCols && r + j < rowsN)
                     ? __ldg(reinterpret_cast<const T *>(in + ((r + j) * d.ld + c) * dtBytes(d.dt)))
                     : T{};
  }
  template <bool Edge>
  __device__ __forceinline__ void issueAs(void *const *buf, i64 r, i64 c, i64 rowsN) {
    issueOne<0, Edge>(buf, r, c, rowsN, a);
    if constexpr (Spec::kNumIn == 2)
      issueOne<1, Edge>(buf, r, c, rowsN, b);
  }
  /// The loads of the tile at (r0, c0), this thread's rows r0 + 4g.. and columns c0 + 8cg..
  template <bool Edge>
  __device__ __forceinline__ void issue(void *const *buf, i64 r0, i64 c0, int g, int cg,
                                        i64 rowsN) {
    issueAs<Edge>(buf, r0 + 4 * g, c0 + 8 * cg, rowsN);
  }
};

/// Element e (0..7) of row j of input I's chunk, as value() takes it.
template <class Spec, int I, class R>
__device__ __forceinline__ float element(const R &raw, int j, int e) {
  constexpr Dt D = Spec::kIn[I].dt;
  if constexpr (D == Dt::BF16) {
    const uint4 &u = raw.v[j];
    const u32 pair = e < 2 ? u.x : e < 4 ? u.y : e < 6 ? u.z : u.w;
    return __uint_as_float(e % 2 == 0 ? pair << 16 : pair & 0xFFFF0000u); // the high half
  } else {
    static_assert(I == Spec::kTabIn, "an FP8 input is read through the FP8 table");
    const uint2 &u = raw.v[j];
    // The code isolated by one byte permute.
    return rows::tableAt(__byte_perm(e < 4 ? u.x : u.y, 0u, 0x4440u + u32(e % 4)));
  }
}

/// One 128 x 64 tile at (r0, c0) from this thread's loads `cur`: the values, their amax (into
/// `mx`) and column sums (into `cs`, with kColSum), the untransposed copy, the bytes staged in
/// `stage` (one barrier) and the transposed copy. With Edge false the tile lies inside the
/// input and its transposed rows inside the output's pitch (16-byte aligned): no element, row or
/// store is checked.
template <class Spec, bool Edge>
__device__ __forceinline__ void tile(const Loads<Spec> &cur, void *const *buf, const float *slots,
                                     float s, i64 r0, i64 c0, i64 rowsN, i64 ld, uint4 *stage,
                                     u32 &mx, float (&cs)[8]) {
  constexpr CastDesc C = Spec::kCast;
  constexpr bool kAmax = Spec::kAmax.buf >= 0;
  constexpr bool kSums = Spec::kColSum.buf >= 0;
  const int g = threadIdx.x >> 3, cg = threadIdx.x & 7; // row group, column group
  const i64 r = r0 + 4 * g, c = c0 + 8 * cg;
  const bool vecOut = ld % 16 == 0;
  u32 w[4][2]; // FP8 bytes of rows r .. r + 3, columns c .. c + 3 and c + 4 .. c + 7
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const bool ok = !Edge || (c < Spec::kCols && r + j < rowsN); // else 0 (the pad)
    u16 q[4];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      float v[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float x[Spec::kNumIn];
        x[0] = element<Spec, 0>(cur.a, j, 2 * p + h);
        if constexpr (Spec::kNumIn == 2)
          x[1] = element<Spec, 1>(cur.b, j, 2 * p + h);
        // Evaluated unconditionally (past the rows and columns the chunks hold zeros, and the
        // lookups valid codes), then selected: with a branch around each element's lookup the
        // delayed gelu_grad launch had 1456 SASS instructions instead of 1320, and took 206.1
        // against 187.1 us at a power-capped clock (H200, fp8c-train-bench --profile).
        const float y = Spec::value(x, slots);
        v[h] = ok ? y : 0.0f;
        if constexpr (kAmax)
          mx = max(mx, __float_as_uint(v[h]) & 0x7FFFFFFFu);
        if constexpr (kSums)
          cs[2 * p + h] = __fadd_rn(cs[2 * p + h], v[h]);
      }
      q[p] = packFp8x2<C.dt>(op::quantize(v[0], s), op::quantize(v[1], s));
    }
    w[j][0] = u32(q[0]) | u32(q[1]) << 16;
    w[j][1] = u32(q[2]) | u32(q[3]) << 16;
    if constexpr (Spec::kRowCastBuf >= 0)
      if (ok)
        *reinterpret_cast<uint2 *>(static_cast<u8 *>(buf[Spec::kRowCastBuf]) +
                                   (r + j) * Spec::kRowCastLd + c) = make_uint2(w[j][0], w[j][1]);
  }
  u32 *t = reinterpret_cast<u32 *>(stage);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    u32 col[4];
    transpose4x4(w[0][h], w[1][h], w[2][h], w[3][h], col);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      t[wordAt(8 * cg + 4 * h + k, g)] = col[k];
  }
  __syncthreads(); // (the other staged tile was read before the previous barrier)
  // Output row c0 + cc (input column), columns r0 + 16 * qv .. + 15 (input rows).
  const int qv = threadIdx.x & 7;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int cc = (threadIdx.x >> 3) + 32 * i;
    if (Edge && c0 + cc >= Spec::kCols)
      continue;
    const uint4 v = reinterpret_cast<const uint4 *>(t)[wordAt(cc, 4 * qv) / 4];
    const i64 oc = r0 + 16 * qv;
    u8 *dst = static_cast<u8 *>(buf[C.buf]) + (c0 + cc) * ld + oc;
    if (!Edge || (vecOut && oc + 16 <= ld)) {
      *reinterpret_cast<uint4 *>(dst) = v;
    } else if (oc < ld) {
      const u32 words[4] = {v.x, v.y, v.z, v.w};
      for (int e = 0; e < 16 && oc + e < ld; ++e)
        dst[e] = u8(words[e >> 2] >> (8 * (e & 3)));
    }
  }
}

/// The launch's tiles (a grid-stride loop, or with column sums the units' loop), each tile in
/// tile()'s Edge form.
template <class Spec, bool Edge>
__device__ __forceinline__ void loops(void *const *buf, const float *slots, float s, i64 rowsN,
                                      i64 ld, i64 tileRows,
                                      uint4 (*staged)[kTileC * kWordsPerCol / 4], float *sums,
                                      u32 &mx) {
  constexpr bool kSums = Spec::kColSum.buf >= 0;
  constexpr i64 kTileCols = (Spec::kCols + kTileC - 1) / kTileC;
  const int g = threadIdx.x >> 3, cg = threadIdx.x & 7; // row group, column group
  int slot = 0;     // the staged tile this block writes next (alternating per tile)
  float cs[8] = {}; // this thread's column sums over the unit's rows (kSums)
  Loads<Spec> next;
  if constexpr (!kSums) {
    // A grid-stride loop over the tiles, the next tile's loads issued before this one's work.
    // (H200, the two kernels timed alternately in one process: 2 us faster on x and W than the
    // units' loop below, at 64 registers.)
    const i64 tiles = tileRows * kTileCols;
    auto issue = [&](i64 t) {
      next.template issue<Edge>(buf, t / kTileCols * kTileR, t % kTileCols * kTileC, g, cg,
                                 rowsN);
    };
    if (blockIdx.x < tiles)
      issue(blockIdx.x);
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) { // block-uniform
      const Loads<Spec> cur = next;
      if (t + gridDim.x < tiles)
        issue(t + gridDim.x);
      tile<Spec, Edge>(cur, buf, slots, s, t / kTileCols * kTileR, t % kTileCols * kTileC, rowsN,
                       ld, staged[slot], mx, cs);
      slot ^= 1;
    }
  } else {
    // Units: a chunk of tile rows of one tile column (kColChunks chunks; the trailing ones may
    // be empty, and as a block's units only move to later chunks, all its units after an empty
    // one are empty too).
    const i64 per = (tileRows + Spec::kColChunks - 1) / Spec::kColChunks;
    const i64 units = i64(Spec::kColChunks) * kTileCols;
    auto firstRow = [&](i64 u) { return u / kTileCols * per; };
    auto endRow = [&](i64 u) {
      const i64 e = firstRow(u) + per;
      return e < tileRows ? e : tileRows;
    };
    // The tile a unit's loop converts always comes from `next`, loaded one tile earlier (here or
    // in the previous iteration): with a second load site for the current tile, ptxas gave both
    // the same scoreboard and waited on it right after issuing the prefetch, so no load was ever
    // in flight across a tile (H200, Nsight Compute: 28 % of the gelu_grad launch's stalls).
    if (blockIdx.x < units && firstRow(blockIdx.x) < endRow(blockIdx.x))
      next.template issue<Edge>(buf, firstRow(blockIdx.x) * kTileR,
                                 blockIdx.x % kTileCols * kTileC, g, cg, rowsN);
    for (i64 u = blockIdx.x; u < units; u += gridDim.x) { // block-uniform
      const i64 c0 = u % kTileCols * kTileC, trEnd = endRow(u);
#pragma unroll
      for (int k = 0; k < 8; ++k)
        cs[k] = 0.0f;
      for (i64 tr = firstRow(u); tr < trEnd; ++tr) { // block-uniform
        const Loads<Spec> cur = next;
        // The next tile's loads: the next of this unit, or the first of the block's next unit.
        i64 nr = tr + 1, nu = u;
        if (nr >= trEnd) {
          nu = u + gridDim.x;
          nr = firstRow(nu);
        }
        if (nu < units && nr < endRow(nu))
          next.template issue<Edge>(buf, nr * kTileR, nu % kTileCols * kTileC, g, cg, rowsN);
        tile<Spec, Edge>(cur, buf, slots, s, tr * kTileR, c0, rowsN, ld, staged[slot], mx, cs);
        slot ^= 1;
      }
      // The 32 row groups: the warp's 4 (lanes 8 and 16 apart), then the 8 warps in order.
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        cs[k] = __fadd_rn(cs[k], __shfl_xor_sync(0xFFFFFFFFu, cs[k], 8));
        cs[k] = __fadd_rn(cs[k], __shfl_xor_sync(0xFFFFFFFFu, cs[k], 16));
      }
      __syncthreads(); // the previous unit's reads of `sums` are done
      if ((threadIdx.x & 31) < 8)
#pragma unroll
        for (int k = 0; k < 8; ++k)
          sums[threadIdx.x / 32 * kTileC + 8 * cg + k] = cs[k];
      __syncthreads();
      static_assert(kTileC == transpose::kTile, "a tile column is 64 columns in both forms");
      const float p = transpose::sumColumnSlices<kWarps>(sums);
      transpose::publishColumnPartial<Spec>(buf, u / kTileCols, u % kTileCols, p);
    }
  }
}

/// The kernel body (see the top of this file).
template <class Spec, int N> __device__ __forceinline__ void kernel(const Args<N> &args) {
  static_assert(fits<Spec>(), "the byte-staged cast-transpose: see bytes::fits");
  static_assert(kThreads == 256 && kWarps == 8, "32 row groups x 8 column groups per tile");
  constexpr bool kAmax = Spec::kAmax.buf >= 0;
  constexpr bool kSums = Spec::kColSum.buf >= 0;
  __shared__ float slots[Spec::kNumSlots + 1];
  __shared__ float scratch[kWarps];
  __shared__ uint4 staged[2][kTileC * kWordsPerCol / 4];
  __shared__ float sums[kSums ? kWarps * kTileC : 1]; // per warp and column
  void *const *buf = args.buffers;
  const i64 m = args.m;
  rows::runScalars<Spec>(buf, m, slots); // (and the FP8 table)
  const float s = transpose::castScale<Spec>(buf, slots);

  const i64 rowsN = Spec::kRows.eval(m);
  const i64 ld = Spec::outLd(m);
  const i64 span = ld > rowsN ? ld : rowsN; // output columns run to the padded pitch
  const i64 tileRows = (span + kTileR - 1) / kTileR;
  u32 mx = 0; // max |v| as bits (NaN above +inf)
  // Every tile inside the input, the transposed copy's pitch its row count and 16-byte aligned
  // (the training step's tensors): the loops without any bounds checks.
  const bool interior = Spec::kInsideTiles && rowsN % kTileR == 0 && ld == rowsN &&
                        ld % 16 == 0 && Spec::kCols % kTileC == 0;
  if (interior) // block-uniform
    loops<Spec, false>(buf, slots, s, rowsN, ld, tileRows, staged, sums, mx);
  else
    loops<Spec, true>(buf, slots, s, rowsN, ld, tileRows, staged, sums, mx);
  if constexpr (kAmax) {
    float a = mx > 0x7F800000u ? canonicalNaN() : __uint_as_float(mx);
    a = blockMaxMag(a, scratch);
    if (threadIdx.x == 0)
      atomicMaxMag(f32p(buf[Spec::kAmax.buf]), a);
  }
  if constexpr (Spec::kPush.history >= 0)
    pushHistoryWhenLast<Spec>(buf);
}

} // namespace bytes
} // namespace fp8c
