// The byte-staged one-pass cast-transpose (Spec::kByteStaged, chosen by codegen/EmitLaunch.cpp):
// a bf16 input cast to FP8 with a tensor scale known before the launch (delayed scaling's
// history, or a scale an earlier launch computed), written transposed and, with kRowCastBuf,
// untransposed; optionally the tensor amax of the value and the history push.
//
// transpose.cuh's general form stages f32 values in shared memory and converts each element
// twice. Under a training step's power cap these launches run at the GEMMs' reduced SM clock,
// where their time follows the clock (issue-bound, not HBM-bound). This form converts each
// element once and moves only FP8 bytes through shared memory:
// - a block takes 128 x 64 tiles of the input; thread t holds rows 4 * (t / 8) .. + 3, columns
//   8 * (t % 8) .. + 7 of the tile (four 16-byte loads, the next tile's issued before this one
//   is converted);
// - it converts them once, q = sat(rne(v * s)), stores each row's 8 FP8 bytes untransposed,
//   and transposes its 4 x 8 bytes in registers (byte permutes) into 8 words, each 4
//   consecutive input rows of one column;
// - the words go to a shared 64 x 128-byte tile, word (c, g) at c * 32 + (g ^ 4 * (c / 8 % 8)):
//   conflict-free both for these writes and for the 16-byte reads of the transposed side;
// - each thread then reads two 16-byte runs (16 input rows of one column) and stores them into
//   the transposed output, 8 threads per 128-byte output row segment. Two shared tiles
//   alternate, so one barrier per tile suffices.
// Included by transpose.cuh (it uses transpose::castScale and pushHistoryWhenLast).
// Bit for bit the general form's outputs (test/unit/GpuCastTransposeTest.cpp compares both with
// the interpreter and with each other).
#pragma once

namespace fp8c {
namespace bytes {

constexpr int kTileR = 128; // input rows per tile (output columns: one 128-byte line)
constexpr int kTileC = 64;  // input columns per tile (output rows)
constexpr int kWordsPerCol = kTileR / 4;

/// What the byte-staged form requires of the Spec; codegen emits kByteStaged only for such.
template <class Spec> FP8C_HD constexpr bool fits() {
  constexpr CastDesc C = Spec::kCast;
  return Spec::kNumIn == 1 && Spec::kIn[0].bc == Bcast::Full && Spec::kIn[0].dt == Dt::BF16 &&
         Spec::kIn[0].ld % 8 == 0 && Spec::kCols % 8 == 0 && C.buf >= 0 && isFp8(C.dt) &&
         C.gran == Gran::Tensor && (C.src == ScaleSrc::Slot || C.src == ScaleSrc::Buffer) &&
         (Spec::kRowCastBuf < 0 || Spec::kRowCastLd % 8 == 0) && Spec::kRowCast.buf < 0 &&
         Spec::kColSum.buf < 0 && Spec::kCopy.buf < 0 && Spec::kTabIn < 0 && Spec::kStore.buf < 0 &&
         Spec::kBarrierBuf < 0 && (Spec::kAmax.buf < 0 || Spec::kAmax.gran == Gran::Tensor);
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

/// The kernel body (see the top of this file).
template <class Spec, int N> __device__ __forceinline__ void kernel(const Args<N> &args) {
  static_assert(fits<Spec>(), "the byte-staged cast-transpose: see bytes::fits");
  static_assert(kThreads == 256, "32 row groups x 8 column groups per tile");
  constexpr CastDesc C = Spec::kCast;
  constexpr InDesc I = Spec::kIn[0];
  constexpr bool kAmax = Spec::kAmax.buf >= 0;
  __shared__ float slots[Spec::kNumSlots + 1];
  __shared__ float scratch[kWarps];
  __shared__ uint4 staged[2][kTileC * kWordsPerCol / 4];
  void *const *buf = args.buffers;
  const i64 m = args.m;
  rows::runScalars<Spec>(buf, m, slots);
  const float s = transpose::castScale<Spec>(buf, slots);

  const i64 rowsN = Spec::kRows.eval(m);
  const i64 ld = Spec::outLd(m);
  const i64 span = ld > rowsN ? ld : rowsN; // output columns run to the padded pitch
  const i64 tileRows = (span + kTileR - 1) / kTileR;
  constexpr i64 kTileCols = (Spec::kCols + kTileC - 1) / kTileC;
  const i64 tiles = tileRows * kTileCols;
  const int g = threadIdx.x >> 3, cg = threadIdx.x & 7; // row group, column group
  const bool vecOut = ld % 16 == 0;

  const u8 *in = static_cast<const u8 *>(buf[I.buf]);
  auto issue = [&](i64 tile, uint4(&raw)[4]) {
    const i64 r = tile / kTileCols * kTileR + 4 * g, c = tile % kTileCols * kTileC + 8 * cg;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      raw[j] = c < Spec::kCols && r + j < rowsN
                   ? __ldg(reinterpret_cast<const uint4 *>(in + ((r + j) * I.ld + c) * 2))
                   : make_uint4(0, 0, 0, 0);
  };

  u32 mx = 0; // max |v| as bits (NaN above +inf)
  uint4 next[4];
  if (blockIdx.x < tiles)
    issue(blockIdx.x, next);
  int b = 0;
  for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x, b ^= 1) { // block-uniform
    uint4 raw[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      raw[j] = next[j];
    if (tile + gridDim.x < tiles)
      issue(tile + gridDim.x, next);
    const i64 r0 = tile / kTileCols * kTileR, c0 = tile % kTileCols * kTileC;
    const i64 r = r0 + 4 * g, c = c0 + 8 * cg;
    u32 w[4][2]; // FP8 bytes of rows r .. r + 3, columns c .. c + 3 and c + 4 .. c + 7
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const u32 pairs[4] = {raw[j].x, raw[j].y, raw[j].z, raw[j].w};
      const bool ok = c < Spec::kCols && r + j < rowsN; // else the value is 0 (the pad)
      u16 q[4];
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        // A bf16 is the high half of its f32.
        const float x0 = __uint_as_float(pairs[p] << 16);
        const float x1 = __uint_as_float(pairs[p] & 0xFFFF0000u);
        const float v0 = ok ? Spec::value(&x0, slots) : 0.0f;
        const float v1 = ok ? Spec::value(&x1, slots) : 0.0f;
        if constexpr (kAmax)
          mx = max(mx, max(__float_as_uint(v0) & 0x7FFFFFFFu, __float_as_uint(v1) & 0x7FFFFFFFu));
        q[p] = packFp8x2<C.dt>(op::quantize(v0, s), op::quantize(v1, s));
      }
      w[j][0] = u32(q[0]) | u32(q[1]) << 16;
      w[j][1] = u32(q[2]) | u32(q[3]) << 16;
      if constexpr (Spec::kRowCastBuf >= 0)
        if (ok)
          *reinterpret_cast<uint2 *>(static_cast<u8 *>(buf[Spec::kRowCastBuf]) +
                                     (r + j) * Spec::kRowCastLd + c) = make_uint2(w[j][0], w[j][1]);
    }
    u32 *t = reinterpret_cast<u32 *>(staged[b]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      u32 col[4];
      transpose4x4(w[0][h], w[1][h], w[2][h], w[3][h], col);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        t[wordAt(8 * cg + 4 * h + k, g)] = col[k];
    }
    __syncthreads(); // the other tile was read before the previous barrier
    // Output row c0 + cc (input column), columns r0 + 16 * qv .. + 15 (input rows).
    const int qv = threadIdx.x & 7;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int cc = (threadIdx.x >> 3) + 32 * i;
      if (c0 + cc >= Spec::kCols)
        continue;
      const uint4 v = reinterpret_cast<const uint4 *>(t)[wordAt(cc, 4 * qv) / 4];
      const i64 oc = r0 + 16 * qv;
      u8 *dst = static_cast<u8 *>(buf[C.buf]) + (c0 + cc) * ld + oc;
      if (vecOut && oc + 16 <= ld) {
        *reinterpret_cast<uint4 *>(dst) = v;
      } else if (oc < ld) {
        const u32 words[4] = {v.x, v.y, v.z, v.w};
        for (int e = 0; e < 16 && oc + e < ld; ++e)
          dst[e] = u8(words[e >> 2] >> (8 * (e & 3)));
      }
    }
  }
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
