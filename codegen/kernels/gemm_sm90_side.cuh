// A cast-transpose of the plan run by the Hopper GEMM's idle warps (gemm_sm90.cuh, `Side`): the
// producer warpgroup's warps 1-3 hold no accumulators and issue nothing while warp 0 feeds the
// ring, so an independent memory-bound launch can run on them beside the main loops, its bytes
// moving while the tensor cores work (the delayed MLP backward's gelu_grad cast-transpose beside
// the weight-gradient GEMM of the second layer). The GEMM and the launch share no buffer
// (codegen/LowerSide.cpp): the launch's Spec (transpose.cuh's, the source of the launch it
// replaces) is compiled into the GEMM's module and called here with that launch's Args.
//
// Each side warp walks the launch's units (transpose.cuh: tiles of 64 x 64, or with column sums
// strips of tile rows of one tile column) grid-stride over all gridDim.x * 3 side warps. A tile:
// 16 passes of 4 rows, lane (rs = lane / 8, cg = lane % 8) evaluating the value at row
// 4 * pass + rs, columns 8 cg .. 8 cg + 7, taking its amax, column sums and FP8 cast, storing the untransposed copy (kRowCastBuf) and staging the FP8
// bytes in the warp's 64 x 68-byte tile. The transposed copy is then read back as words of
// 4 rows x 4 columns, transposed with byte permutes and stored 16 bytes per output row: each
// lane takes 2 of the tile's 64 (4 output rows, 16 input rows) blocks. The staging rows are 17
// words apart, so those word reads hit 32 different banks.
//
// The inputs of a unit's passes are copied asynchronously (cp.async) into the warp's ring,
// kDepth - 1 passes ahead of the one computed: with one pass of loads in flight per warp the
// side warps moved the launch's bytes at about 0.3 TB/s (H200, the delayed MLP's gelu_grad
// beside its dW2 GEMM: 1885.2 us against 974.5 us for cuBLASLt plus the launch); with the ring
// 958.8 us against 965.9 us. Under the board's power cap that is a tie: the launch's bytes cost
// their energy inside the GEMM as well, so side launches stay opt-in. Chunks that are
// not whole or lie past the input's rows are read when used (evict-first loads).
//
// Semantics are the launch's (transposeKernel, Phase::All): the same value per element (the
// FP8 table's input, kTabIn, from a 256-entry table per warp holding Spec::tabulate of each
// code, as rows.cuh's 32-copy table does), the same casts, amax and pad zeros; the column sums
// add in another order (per lane down its rows, then the 4 lanes of a column, then the chunks in
// order: deterministic). The last side warp to finish pushes the amax history (kPush).
#pragma once

#include "fp8c/transpose.cuh"

namespace fp8c {
namespace sm90 {

/// No side launch (the default of gemmSm90's `Side`).
struct NoSide {};
template <class T> struct HasSide { static constexpr bool value = true; };
template <> struct HasSide<NoSide> { static constexpr bool value = false; };

constexpr int kSideWarps = 3;
constexpr int kSideRowBytes = 68; ///< a staged row: 64 FP8 bytes, 17 words apart
constexpr int kSideTileBytes = 64 * kSideRowBytes;
/// A side warp's ring of asynchronous input copies: several passes in flight without registers.
constexpr int kSideRingBytes = 6144;
/// One side warp's shared memory: its staging tile, its table (256 f32), its scalar slots, its
/// ring.
constexpr int kSideWarpBytes = kSideTileBytes + 256 * 4 + 16 * 4 + kSideRingBytes;
/// The side warps' shared memory, at the end of the GEMM's dynamic shared memory (the host's
/// GemmSm90Spec::sharedBytes counts it).
constexpr int kSideSharedBytes = kSideWarps * kSideWarpBytes;

/// The size of this launch's dynamic shared memory.
__device__ __forceinline__ u32 dynamicSharedBytes() {
  u32 r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

/// Input I's chunk from its raw words into x: widened, or (kTabIn) its table entry per code.
template <class Spec, int I, int E>
__device__ __forceinline__ void sideWiden(const ChunkWords<Spec::kIn[I].dt, E> &c,
                                          const float *table, float (&x)[E][Spec::kNumIn]) {
  if constexpr (I == Spec::kTabIn) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      x[e][I] = table[(c.u.pair[e / 4] >> (8 * (e % 4))) & 0xFFu];
  } else {
    float v[E];
    widenWords<Spec::kIn[I].dt, E>(c, v);
#pragma unroll
    for (int e = 0; e < E; ++e)
      x[e][I] = v[e];
  }
}

/// Chunk (r, c0) of every Full input I.. of Spec into x (columns >= kCols read as 0), loaded
/// evict-first (the GEMM's operands stay in L2); input kTabIn as its table entry per code.
template <class Spec, int E, int I = 0>
__device__ __forceinline__ void sideLoadFull(void *const *buf, i64 r, i64 c0, const float *table,
                                             float (&x)[E][Spec::kNumIn]) {
  if constexpr (I < Spec::kNumIn) {
    constexpr InDesc d = Spec::kIn[I];
    if constexpr (d.bc == Bcast::Full) {
      constexpr int kAlign = accessBytes(E * dtBytes(d.dt));
      constexpr bool kVec = (d.ld * dtBytes(d.dt)) % kAlign == 0;
      const char *row = static_cast<const char *>(buf[d.buf]) + r * d.ld * dtBytes(d.dt);
      if (kVec && c0 + E <= Spec::kCols) {
        using C = ChunkWords<d.dt, E>;
        C c;
        const typename C::W *src =
            reinterpret_cast<const typename C::W *>(row + c0 * dtBytes(d.dt));
#pragma unroll
        for (int i = 0; i < C::kWords; ++i)
          c.u.w[i] = __ldcs(src + i);
        sideWiden<Spec, I, E>(c, table, x);
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e) {
          if constexpr (I == Spec::kTabIn)
            x[e][I] =
                c0 + e < Spec::kCols ? table[reinterpret_cast<const u8 *>(row)[c0 + e]] : 0.0f;
          else
            x[e][I] = c0 + e < Spec::kCols ? loadOne<d.dt>(row, c0 + e) : 0.0f;
        }
      }
    }
    sideLoadFull<Spec, E, I + 1>(buf, r, c0, table, x);
  }
}

/// Bytes of one lane's 8-element chunk of Full inputs I.. (the ring's layout: per input, the 32
/// lanes' chunks one after another).
template <class Spec, int I = 0> FP8C_HD constexpr int sideChunkBytes() {
  if constexpr (I >= Spec::kNumIn)
    return 0;
  else
    return (Spec::kIn[I].bc == Bcast::Full ? 8 * dtBytes(Spec::kIn[I].dt) : 0) +
           sideChunkBytes<Spec, I + 1>();
}
/// Whether every Full input's 8-element chunks can be copied whole (16-byte-multiple pitches).
template <class Spec, int I = 0> FP8C_HD constexpr bool sideAsyncable() {
  if constexpr (I >= Spec::kNumIn)
    return true;
  else
    return (Spec::kIn[I].bc != Bcast::Full ||
            (Spec::kIn[I].ld * dtBytes(Spec::kIn[I].dt)) % 16 == 0) &&
           sideAsyncable<Spec, I + 1>();
}

template <int Bytes> __device__ __forceinline__ void cpAsync(u32 dst, const void *src) {
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(Bytes)
                 : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/// Issues the asynchronous copies of this lane's chunk (r, c0) of Full inputs I.. into ring slot
/// `slot` (shared address).
template <class Spec, int I = 0, int Off = 0>
__device__ __forceinline__ void sideIssue(void *const *buf, i64 r, i64 c0, u32 slot, int lane) {
  if constexpr (I < Spec::kNumIn) {
    constexpr InDesc d = Spec::kIn[I];
    constexpr int kB = d.bc == Bcast::Full ? 8 * dtBytes(d.dt) : 0;
    if constexpr (kB > 0) {
      const char *src = static_cast<const char *>(buf[d.buf]) + (r * d.ld + c0) * dtBytes(d.dt);
      const u32 dst = slot + u32(32 * Off + lane * kB);
#pragma unroll
      for (int o = 0; o < kB; o += 16)
        cpAsync<(kB < 16 ? kB : 16)>(dst + u32(o), src + o);
    }
    sideIssue<Spec, I + 1, Off + kB>(buf, r, c0, slot, lane);
  }
}

/// Chunk (r, c0) of Full inputs I.. into x from this lane's copies in ring slot `slot` (generic
/// pointer), widened (or looked up: kTabIn) as sideLoadFull does.
template <class Spec, int E, int I = 0, int Off = 0>
__device__ __forceinline__ void sideFromRing(const u8 *slot, int lane, const float *table,
                                             float (&x)[E][Spec::kNumIn]) {
  if constexpr (I < Spec::kNumIn) {
    constexpr InDesc d = Spec::kIn[I];
    constexpr int kB = d.bc == Bcast::Full ? E * dtBytes(d.dt) : 0;
    if constexpr (kB > 0) {
      using C = ChunkWords<d.dt, E>;
      C c;
      const typename C::W *src = reinterpret_cast<const typename C::W *>(slot + 32 * Off + lane * kB);
#pragma unroll
      for (int i = 0; i < C::kWords; ++i)
        c.u.w[i] = src[i];
      sideWiden<Spec, I, E>(c, table, x);
    }
    sideFromRing<Spec, E, I + 1, Off + kB>(slot, lane, table, x);
  }
}

/// The value of chunk (r, c0), as rows::evalAt gives it (0 where !ok or past kCols).
template <class Spec, int E>
__device__ __forceinline__ void sideEval(void *const *buf, const float *slots, const float *table,
                                         i64 r, i64 c0, bool ok, float (&v)[E]) {
  if (!ok) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      v[e] = 0.0f;
    return;
  }
  float x[E][Spec::kNumIn];
  sideLoadFull<Spec, E>(buf, r, c0, table, x);
  if (c0 < Spec::kCols)
    rows::loadBroadcast<Spec, E>(buf, r, c0, x);
  rows::evalChunk<Spec, E>(x, slots, c0, v);
}

/// Stores 8 FP8 bytes (lo, hi) at row r, columns c0 .. c0 + 7 of a [rows, ld] byte tensor:
/// one 8-byte store where aligned and inside the pitch, else byte by byte below ld.
__device__ __forceinline__ void sideStore8(void *base, i64 ld, i64 r, i64 c0, u32 lo, u32 hi) {
  u8 *row = static_cast<u8 *>(base) + r * ld;
  if (ld % 8 == 0 && c0 + 8 <= ld) {
    __stcs(reinterpret_cast<uint2 *>(row + c0), make_uint2(lo, hi));
  } else {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (c0 + e < ld)
        row[c0 + e] = u8(((e < 4 ? lo : hi) >> (8 * (e % 4))) & 0xFFu);
  }
}

/// Stores 16 FP8 bytes w[0..3] at row r, columns c0 .. c0 + 15 of a [rows, ld] byte tensor.
__device__ __forceinline__ void sideStore16(void *base, i64 ld, i64 r, i64 c0, const u32 (&w)[4]) {
  u8 *row = static_cast<u8 *>(base) + r * ld;
  if (ld % 16 == 0 && c0 + 16 <= ld) {
    __stcs(reinterpret_cast<uint4 *>(row + c0), make_uint4(w[0], w[1], w[2], w[3]));
  } else {
#pragma unroll
    for (int e = 0; e < 16; ++e)
      if (c0 + e < ld)
        row[c0 + e] = u8((w[e / 4] >> (8 * (e % 4))) & 0xFFu);
  }
}

/// The column sums of one unit (chunk, tile column): each lane's 8 column sums over its rows,
/// added over the 4 lanes of its columns, into partial[chunk][c]; the unit that finishes its
/// tile column last adds the kColChunks partials in chunk order and stores the sums.
template <class Spec>
__device__ __forceinline__ void sideFinishColumnUnit(void *const *buf, i64 chunk, i64 tcol,
                                                     float (&csum)[8], int lane) {
  float *partial = f32p(buf[Spec::kPartialBuf]);
  u32 *counter = static_cast<u32 *>(buf[Spec::kCounterBuf]);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    csum[e] = __fadd_rn(csum[e], __shfl_xor_sync(0xFFFFFFFFu, csum[e], 8));
    csum[e] = __fadd_rn(csum[e], __shfl_xor_sync(0xFFFFFFFFu, csum[e], 16));
  }
  const i64 c0 = tcol * 64 + (lane % 8) * 8;
  if (lane < 8)
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (c0 + e < Spec::kCols)
        partial[chunk * Spec::kCols + c0 + e] = csum[e];
  __threadfence();
  __syncwarp();
  u32 last = 0;
  if (lane == 0)
    last = atomicAdd(&counter[tcol], 1u) == u32(Spec::kColChunks - 1) ? 1u : 0u;
  last = __shfl_sync(0xFFFFFFFFu, last, 0);
  if (!last)
    return;
  __threadfence();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const i64 c = tcol * 64 + lane + 32 * h;
    if (c < Spec::kCols) {
      float sum = 0.0f;
      for (int k = 0; k < Spec::kColChunks; ++k)
        sum = __fadd_rn(sum, __ldcg(&partial[k * Spec::kCols + c]));
      storeOne<Spec::kColSum.dt>(buf[Spec::kColSum.buf], c, sum);
    }
  }
}

/// Four 4-byte words a, b, c, d (4 rows of 4 columns) as four words of the columns (4 rows
/// each, row a's byte lowest).
__device__ __forceinline__ void transpose4x4(u32 a, u32 b, u32 c, u32 d, u32 (&col)[4]) {
  const u32 abLo = __byte_perm(a, b, 0x5140), abHi = __byte_perm(a, b, 0x7362);
  const u32 cdLo = __byte_perm(c, d, 0x5140), cdHi = __byte_perm(c, d, 0x7362);
  col[0] = __byte_perm(abLo, cdLo, 0x5410);
  col[1] = __byte_perm(abLo, cdLo, 0x7632);
  col[2] = __byte_perm(abHi, cdHi, 0x5410);
  col[3] = __byte_perm(abHi, cdHi, 0x7632);
}

/// The side launch on side warp `sw` (0 .. 2) of this block.
template <class Spec, int N>
__device__ __forceinline__ void sideCastTranspose(const Args<N> &args, u8 *smem, int sw) {
  constexpr CastDesc C = Spec::kCast;
  static_assert(C.buf >= 0 && C.gran == Gran::Tensor && C.src != ScaleSrc::Local && isFp8(C.dt),
                "a side launch casts with a tensor scale known before it");
  static_assert(Spec::kRowCast.buf < 0 && Spec::kCopy.buf < 0 && Spec::kStore.buf < 0,
                "a side launch writes the cast and its untransposed copy only");
  static_assert(Spec::kNumSlots < 16, "a side warp's scalar slots");
  static_assert(Spec::kPush.history < 0 || Spec::kAmax.gran == Gran::Tensor,
                "a history push takes the launch's own tensor amax");
  constexpr bool kSums = Spec::kColSum.buf >= 0;
  constexpr bool kAmax = Spec::kAmax.gran == Gran::Tensor;
  void *const *buf = args.buffers;
  const int lane = threadIdx.x % 32;
  u8 *tile = smem + sw * kSideWarpBytes;
  float *table = reinterpret_cast<float *>(tile + kSideTileBytes);
  float *slots = table + 256;
  u8 *ring = reinterpret_cast<u8 *>(slots + 16);
  const u32 ringAddr = u32(__cvta_generic_to_shared(ring));
  constexpr int kSlotBytes = 32 * sideChunkBytes<Spec>();
  constexpr int kDepth = kSideRingBytes / kSlotBytes < 12 ? kSideRingBytes / kSlotBytes : 12;
  constexpr bool kAsync = sideAsyncable<Spec>() && kDepth >= 2;
  const int w = int(blockIdx.x) * kSideWarps + sw, nw = int(gridDim.x) * kSideWarps;
  if (lane == 0)
    Spec::scalars(buf, args.m, slots, w == 0);
  if constexpr (Spec::kTabIn >= 0) {
    constexpr InDesc d = Spec::kIn[Spec::kTabIn];
    static_assert(isFp8(d.dt) && d.bc == Bcast::Full, "a table of a full FP8 input");
#pragma unroll
    for (int j = 0; j < 8; ++j)
      table[lane + 32 * j] = Spec::tabulate(toF32<d.dt>(u8(lane + 32 * j)));
  }
  __syncwarp();
  float s;
  if constexpr (C.src == ScaleSrc::Slot)
    s = slots[C.slot];
  else
    s = rows::bufferScale<Spec>(buf, 0);
  // (32-bit indices: every extent of a launch is below 2^31; offsets are formed in 64 bits.)
  const int rowsN = int(Spec::kRows.eval(args.m));
  const int ld = int(Spec::outLd(args.m));
  const int span = ld > rowsN ? ld : rowsN; // output columns run to the padded pitch
  const int tileRows = (span + 63) / 64;
  constexpr int kTileCols = int((Spec::kCols + 63) / 64);
  const int per = kSums ? (tileRows + Spec::kColChunks - 1) / Spec::kColChunks : 1;
  const int units = kSums ? Spec::kColChunks * kTileCols : tileRows * kTileCols;
  const int rs = lane / 8, cg = lane % 8;
  float amax = 0.0f;
  for (int u = w; u < units; u += nw) {
    const int tcol = u % kTileCols, chunk = u / kTileCols;
    const int trow0 = chunk * per, trowEnd = trow0 + per < tileRows ? trow0 + per : tileRows;
    const int c0 = tcol * 64;
    float csum[8];
#pragma unroll
    for (int e = 0; e < 8; ++e)
      csum[e] = 0.0f;
    // The unit's passes in order, kDepth - 1 of them copied ahead into the ring (chunks that
    // are whole and inside the input; the others are read when used).
    const int passes = (trowEnd - trow0) * 16;
    auto chunkOf = [&](int k, int &r, int &tr) {
      tr = (k % 16) * 4 + rs;
      r = (trow0 + k / 16) * 64 + tr;
    };
    auto whole = [&](int r) { return kAsync && r < rowsN && c0 + cg * 8 + 8 <= Spec::kCols; };
    auto issue = [&](int k) {
      if constexpr (kAsync) {
        int r, tr;
        chunkOf(k, r, tr);
        if (k < passes && whole(r))
          sideIssue<Spec>(buf, r, c0 + cg * 8, ringAddr + u32((k % kDepth) * kSlotBytes), lane);
        cpAsyncCommit();
      }
    };
    for (int k = 0; k < kDepth - 1; ++k)
      issue(k);
#pragma unroll 1
    for (int k = 0; k < passes; ++k) {
      issue(k + kDepth - 1);
      if constexpr (kAsync)
        cpAsyncWait<kDepth - 1>(); // pass k's copies have landed
      int r, tr;
      chunkOf(k, r, tr);
      const int r0 = r - tr;
      float v[8];
      if (whole(r)) {
        float x[8][Spec::kNumIn];
        sideFromRing<Spec, 8>(ring + (k % kDepth) * kSlotBytes, lane, table, x);
        rows::loadBroadcast<Spec, 8>(buf, r, c0 + cg * 8, x);
        rows::evalChunk<Spec, 8>(x, slots, c0 + cg * 8, v);
      } else {
        sideEval<Spec, 8>(buf, slots, table, r, c0 + cg * 8, r < rowsN, v);
      }
      if constexpr (kAmax)
        amax = maxMag(amax, rows::chunkMaxOf<8>(v));
      if constexpr (kSums) {
#pragma unroll
        for (int e = 0; e < 8; ++e)
          csum[e] = __fadd_rn(csum[e], v[e]);
      }
      // Past kCols and at rows >= rowsN v is 0, so the pad bytes stage as zeros.
      const u32 lo = u32(packFp8x2<C.dt>(op::quantize(v[0], s), op::quantize(v[1], s))) |
                     u32(packFp8x2<C.dt>(op::quantize(v[2], s), op::quantize(v[3], s))) << 16;
      const u32 hi = u32(packFp8x2<C.dt>(op::quantize(v[4], s), op::quantize(v[5], s))) |
                     u32(packFp8x2<C.dt>(op::quantize(v[6], s), op::quantize(v[7], s))) << 16;
      if constexpr (Spec::kRowCastBuf >= 0)
        if (r < rowsN)
          sideStore8(buf[Spec::kRowCastBuf], Spec::kRowCastLd, r, c0 + cg * 8, lo, hi);
      u32 *st = reinterpret_cast<u32 *>(tile + tr * kSideRowBytes + cg * 8);
      st[0] = lo;
      st[1] = hi;
      if (k % 16 != 15)
        continue;
      __syncwarp();
      // Output rows c0 + 4 j4 .. + 3 (input columns), columns r0 + 16 q .. + 15 (input rows):
      // four rows of 4 words, each word 4 input rows of one output row.
#pragma unroll 1
      for (int task = lane; task < 64; task += 32) {
        const int j4 = task % 16, q = task / 16;
        u32 out[4][4]; // [output row][4 input rows]
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          const u32 *wd = reinterpret_cast<const u32 *>(tile + (q * 16 + kk * 4) * kSideRowBytes) + j4;
          u32 col[4];
          transpose4x4(wd[0], wd[kSideRowBytes / 4], wd[2 * kSideRowBytes / 4],
                       wd[3 * kSideRowBytes / 4], col);
#pragma unroll
          for (int c = 0; c < 4; ++c)
            out[c][kk] = col[c];
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int orow = c0 + 4 * j4 + c;
          if (orow < Spec::kCols)
            sideStore16(buf[C.buf], ld, orow, r0 + 16 * q, out[c]);
        }
      }
      __syncwarp(); // the tile's reads are done before the next tile's writes
    }
    if constexpr (kAsync)
      cpAsyncWait<0>();
    if constexpr (kSums)
      sideFinishColumnUnit<Spec>(buf, chunk, tcol, csum, lane);
  }
  if constexpr (kAmax) {
    amax = groupMaxMag<32>(amax);
    if (lane == 0)
      atomicMaxMag(f32p(buf[Spec::kAmax.buf]), amax);
  }
  if constexpr (Spec::kPush.history >= 0) {
    // The last side warp of the grid pushes (as rows.cuh's pushHistoryWhenLast, per warp): each
    // warp's amax atomic precedes its fence and count, and every warp read the history (its
    // scale) before it counted.
    constexpr PushDesc P = Spec::kPush;
    u32 last = 0;
    if (lane == 0) {
      __threadfence();
      u32 *counter = static_cast<u32 *>(buf[P.counter]);
      last = atomicAdd(counter, 1u) == u32(nw - 1) ? 1u : 0u;
      if (last) {
        __threadfence();
        atomicExch(counter, 0u); // Scratch: left at zero for the next run
      }
    }
    last = __shfl_sync(0xFFFFFFFFu, last, 0);
    if (last) {
      float *amaxBuf = f32p(buf[Spec::kAmax.buf]);
      const float a = __ldcg(amaxBuf);
      warpHistoryPush(f32p(buf[P.history]), P.len, a, lane);
      if constexpr (P.resetAmax)
        if (lane == 0)
          atomicExch(amaxBuf, 0.0f); // every lane read it above
    }
  }
}

} // namespace sm90
} // namespace fp8c
