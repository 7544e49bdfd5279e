// The Hopper FP8 GEMM's TMA-store epilogue with extra outputs (gemm_sm90.cuh with XO != 0): an
// FP8 D = cast(v) (or, beside y alone, a bf16 D = v: a current-scaling recipe's GELU, whose
// cast waits for its amax) written beside
//   - the pre-activation y = acc * scales + bias rounded to bf16 (kXoAux: the tensor a training
//     step saves for the activation's derivative, cuBLASLt's GELU_AUX; with kXoAuxFp8 its
//     unscaled e4m3 convert, the copy the step saves under gelu_saved=e4m3), and
//   - D transposed, [N, M] (kXoTrans: the operand of the weight-gradient GEMM, which Hopper's
//     FP8 wgmma reads K-major only),
// so no launch reads y back to apply the activation, cast it and transpose it. v is act(y), or
// with kXoGeluGrad the backward's gelu_grad: v = bf16(y * gelu_tanh'(x)), x the GELU's saved
// input (bf16 [M, N], p.epiIn), y the gradient of the GELU's output (the dgrad GEMM's result);
// v is what the graph's ops see (the GEMM result and the derivative are bf16), so the
// activation or derivative takes the bf16-rounded y and its result is rounded to bf16 before
// the amax and the cast. With kXoColSum the epilogue also sums v over its 64 rows per column
// (the bias gradient, fp8.col_sum): one f32 partial per 64-row slice into p.colPart
// [ceil(M/64)][N], which a second kernel of the module adds up in order (deterministic).
//
// Unit of work: 64 rows x 64 columns of a consumer warpgroup's slice, staged in shared memory:
//   with kXoAux (16 KB): [0, 8 KB) y, 64 rows x 128 bytes (stmatrix, 128-byte swizzle;
//                        kXoAuxFp8: [0, 4 KB), 64 rows x 64 bytes, 2-byte stores, 64-byte
//                        swizzle);
//                        [8, 12 KB) D; [12, 16 KB) D^T;
//                        a bf16 D: [8, 16 KB) D, 64 rows x 128 bytes as y;
//   otherwise (8 KB):    [0, 4 KB) D; [4, 8 KB) D^T;
//   D:   64 rows x 64 bytes (2-byte stores, 64-byte swizzle);
//   D^T: 64 rows (the unit's columns) x 64 bytes (its rows; byte stores, 64-byte swizzle: a
//        warp's 32 stores land on 8 different 16-byte units, conflict-free).
// One thread stores the boxes with cp.async.bulk.tensor. TMA clips rows >= M of y and D
// and rows >= N of D^T. D^T's map is M rounded up to 16 columns wide (GemmSm90Runner; N and
// every pitch are whole 16-byte units), and rows >= M are staged as zeros: the pad columns of
// the transposed operand are written as zeros.
// The saved input x is read with plain loads at the start of the epilogue; the consumers
// prefetch their rows of it into L2 before the tile's main loop (prefetchEpilogueInput), so
// those loads hit L2.
#pragma once

#include "fp8c/gemm_sm90_store.cuh"

namespace fp8c {
namespace sm90 {

constexpr int kXoAux = 1;      ///< write the bf16 pre-activation through mapAux
constexpr int kXoTrans = 2;    ///< write D transposed through mapDT
constexpr int kXoGeluGrad = 4; ///< v = gelu_grad(y, x) with x read from p.epiIn (bf16)
constexpr int kXoColSum = 8;   ///< per-64-row column sums of v into p.colPart
/// With kXoAux: the pre-activation written as its unscaled e4m3 convert, sat(rne(y)) (the
/// training step's saved copy under gelu_saved=e4m3), 64 rows x 64 bytes at the 64-byte swizzle
/// in the first 4 KB of the unit's y chunk, instead of bf16.
constexpr int kXoAuxFp8 = 32;
/// With kXoGeluGrad: the saved input x is the GELU input's unscaled e4m3 copy (gelu_saved=e4m3,
/// p.epiIn e4m3 [M, N]), and gelu_tanh'(x) comes from a 256-entry table per epilogue warp, one
/// f32 per code (gemm_sm90_offload.cuh; the offloaded epilogue only).
constexpr int kXoGeluGradFp8 = 64;
/// Not an extra output: the residual add of p.epiIn before the usual epilogue (any D;
/// gemm_sm90_residual.cuh), alone among these bits.
constexpr int kXoResidual = 16;
/// The bits that run the extra-output epilogue (epilogueTmaAux).
constexpr int kXoOutputs = kXoAux | kXoTrans | kXoGeluGrad | kXoColSum;

/// 8 KB chunk buffers per unit: y, D and D^T (kXoAux), or D and D^T.
template <int XO> FP8C_HD constexpr int xoUnitChunks() { return (XO & kXoAux) ? 2 : 1; }

__device__ __forceinline__ void stsU8(u32 addr, u32 v) {
  asm volatile("st.shared.u8 [%0], %1;" ::"r"(addr), "r"(v)
               : "memory");
}
__device__ __forceinline__ void stsF32x2(u32 addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");
}
__device__ __forceinline__ float2 ldsF32x2(u32 addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void prefetchL2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/// The pair the extra-output epilogue reduces and casts, from a bf16 pair `y` of the
/// pre-activation (low half first): gelu_grad(y, x) rounded to bf16 with `x` the saved input's
/// pair (kXoGeluGrad), otherwise act(y).
template <int XO, Act A>
__device__ __forceinline__ void castValues(u32 y, u32 x, float &v0, float &v1) {
  if constexpr ((XO & kXoGeluGrad) != 0) {
    const u32 g = packBf16x2(op::geluTanhGrad(__uint_as_float(y << 16), __uint_as_float(x << 16)),
                             op::geluTanhGrad(__uint_as_float(y & 0xFFFF0000u),
                                              __uint_as_float(x & 0xFFFF0000u)));
    v0 = __uint_as_float(g << 16);
    v1 = __uint_as_float(g & 0xFFFF0000u);
  } else {
    v0 = activate<A>(__uint_as_float(y << 16));
    v1 = activate<A>(__uint_as_float(y & 0xFFFF0000u));
  }
}

/// Byte offset of byte `b` of row `r` in a buffer of 64-byte rows at the 64-byte swizzle (the
/// 16-byte unit index XORed with bits 7-8 of the offset, i.e. (r / 2) % 4).
__device__ __forceinline__ u32 swz64(u32 r, u32 b) {
  return r * 64u + ((((b >> 4) ^ (r >> 1)) & 3u) << 4) + (b & 15u);
}

/// Prefetches rows [rowBase, rowBase + Rows) x columns [colBase, colBase + WN) of the saved input
/// p.epiIn into L2, one 128-byte line per thread of the warpgroup at a time; called before the
/// tile's main loop, so the epilogue's loads of it hit L2.
template <int WN, int Rows>
__device__ __forceinline__ void prefetchEpilogueInput(const GemmParams &p, int rowBase,
                                                      int colBase) {
  constexpr int kLinesPerRow = WN / 64; // 64 bf16 per 128-byte line
  const int t = threadIdx.x % 128;
  const u16 *in = static_cast<const u16 *>(p.epiIn);
#pragma unroll
  for (int i = t; i < Rows * kLinesPerRow; i += 128) {
    const int row = rowBase + i / kLinesPerRow, col = colBase + 64 * (i % kLinesPerRow);
    if (row < p.m && col < p.n)
      prefetchL2(in + i64(row) * p.ldIn + col);
  }
}

/// Sums a warp's 16 column values per thread (cs[2 jl + e]: column 8 jl + 2 (lane % 4) + e of
/// the unit, summed over the thread's rows) over the warp's 8 row groups by recursive halving
/// (14 shuffles): afterwards the lane holds the warp's sums of columns 2 lane and 2 lane + 1.
__device__ __forceinline__ float2 warpColumnSums(const float (&cs)[16]) {
  const int lane = threadIdx.x % 32;
  float s8[8], s4[4], s2[2];
  const bool b4 = lane & 16, b3 = lane & 8, b2 = lane & 4;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float send = b4 ? cs[i] : cs[i + 8], keep = b4 ? cs[i + 8] : cs[i];
    s8[i] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, 16);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float send = b3 ? s8[i] : s8[i + 4], keep = b3 ? s8[i + 4] : s8[i];
    s4[i] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, 8);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float send = b2 ? s4[i] : s4[i + 2], keep = b2 ? s4[i + 2] : s4[i];
    s2[i] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, 4);
  }
  return make_float2(s2[0], s2[1]);
}

/// The epilogue of one consumer warpgroup's 64 x WN accumulators with the extra outputs of
/// `XO`; EB counts 8 KB chunk buffers (EB / xoUnitChunks units rotate). `colSumBuf` is the
/// warpgroup's column-sum exchange (kXoColSum); InAhead loads the saved input of every unit
/// first (kXoGeluGrad). The rest as epilogueTma.
template <int WN, int EB, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, int Amax, int XO,
          bool InAhead>
__device__ __forceinline__ void epilogueTmaAux(float (&acc)[WN / 2], const GemmParams &p,
                                               const TmaDesc &mapD, const TmaDesc &mapAux,
                                               const TmaDesc &mapDT, u32 bufs, u32 colSumBuf,
                                               int &seq, int bar, int rowBase, int colBase,
                                               const float (&sa)[2], const float4 *cols,
                                               float tensorScale, float scaleD) {
  constexpr bool kAux = (XO & kXoAux) != 0, kTrans = (XO & kXoTrans) != 0;
  constexpr bool kGrad = (XO & kXoGeluGrad) != 0, kColSum = (XO & kXoColSum) != 0;
  constexpr bool kAux8 = (XO & kXoAuxFp8) != 0;
  static_assert(!kAux8 || kAux, "kXoAuxFp8 is the e4m3 form of the kXoAux output");
  constexpr int kUnitChunks = xoUnitChunks<XO>();
  constexpr int kUnits = EB / kUnitChunks;
  // A bf16 D (the GELU of a current-scaling recipe, cast once its amax is known) only beside
  // the bf16 pre-activation: 64 rows x 128 bytes in the unit's second 8 KB, as y. Its amax is
  // of the bf16 values stored.
  constexpr bool k16 = TD == Dt::BF16;
  static_assert(isFp8(TD) || (k16 && kAux && !kAux8 && !kTrans && !kGrad && !kColSum),
                "extra epilogue outputs: an FP8 D, or a bf16 D beside the bf16 pre-activation");
  static_assert(WN % 64 == 0, "extra epilogue outputs: whole 64-column units per warpgroup");
  static_assert(EB == kUnitChunks || EB == 2 * kUnitChunks,
                "extra epilogue outputs: one or two units per warpgroup");
  static_assert(!kGrad || (A == Act::None && !kAux),
                "the GELU's derivative replaces the activation and writes no pre-activation");
  constexpr bool kColInputs = S == Scale::Row || HasBias;
  const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32, q = t % 4;
  const int row0 = rowBase + warp * 16 + lane / 4;
  // stmatrix .x4 row addresses, as epilogueTma's.
  const int mi = lane / 8;
  const int chunkRow = warp * 16 + 8 * (mi & 1) + lane % 8;
  const u32 rowOff = u32(chunkRow) * 128u, swz = u32(chunkRow & 7);
  // The saved input's bf16 pairs at the thread's accumulator positions: with InAhead, every
  // unit's loaded before any is used (one L2 latency per tile: the cooperative schedule, whose
  // epilogue no main loop hides); otherwise each unit's at its start (ping-pong, whose other
  // warpgroup's main loop runs meanwhile, and whose second 64-row slice of accumulators leaves
  // no registers for more: 68 bytes spilled with all of them ahead).
  constexpr int kInUnits = kGrad && InAhead ? WN / 64 : 1;
  u32 xin[kInUnits][8][2];
  auto loadUnit = [&](int c, u32(&dst)[8][2]) {
    const u16 *in = static_cast<const u16 *>(p.epiIn);
#pragma unroll
    for (int jl = 0; jl < 8; ++jl)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h, col = colBase + 64 * c + 8 * jl + 2 * q;
        dst[jl][h] = row < p.m && col < p.n
                         ? __ldg(reinterpret_cast<const unsigned *>(in + i64(row) * p.ldIn + col))
                         : 0u;
      }
  };
  if constexpr (kGrad && InAhead)
#pragma unroll
    for (int c = 0; c < kInUnits; ++c)
      loadUnit(c, xin[c]);
  float mags[2] = {0.0f, 0.0f};
#pragma unroll
  for (int c = 0; c < WN / 64; ++c) {
    if constexpr (kGrad && !InAhead)
      loadUnit(c, xin[0]);
    u32 packedY[8][2]; // bf16 pairs of y
    u32 packedD[8][2]; // pairs of D (FP8: the low 16 bits)
    float cs[16];      // kXoColSum: per column of the thread's, v summed over its two rows
#pragma unroll
    for (int jl = 0; jl < 8; ++jl) {
      const int j = 8 * c + jl;
      const int col = colBase + 8 * j + 2 * q;
      float4 cv = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kColInputs)
        cv = cols[4 * j + q];
      cs[2 * jl] = cs[2 * jl + 1] = 0.0f;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        finishPair<S, HasBias, Act::None>(v0, v1, tensorScale, sa[h], cv);
        const u32 y = packBf16x2(v0, v1);
        packedY[jl][h] = y;
        castValues<XO, A>(y, kGrad ? xin[InAhead ? c : 0][jl][h] : 0u, v0, v1);
        if constexpr (k16) { // D = bf16(v): the amax is of that
          const u32 d = packBf16x2(v0, v1);
          packedD[jl][h] = d;
          v0 = __uint_as_float(d << 16);
          v1 = __uint_as_float(d & 0xFFFF0000u);
        }
        const bool rowOk = row0 + 8 * h < p.m;
        if constexpr (Amax != kAmaxNone)
          pairMag(mags[h], p, row0 + 8 * h, col, v0, v1);
        if constexpr (kColSum) {
          cs[2 * jl] += rowOk ? v0 : 0.0f;
          cs[2 * jl + 1] += rowOk ? v1 : 0.0f;
        }
        if constexpr (!k16) {
          const u32 d = packFp8x2<TD>(__fmul_rn(v0, scaleD), __fmul_rn(v1, scaleD));
          packedD[jl][h] = rowOk ? d : 0u;
        }
      }
    }
    float2 warpSums = make_float2(0.0f, 0.0f);
    if constexpr (kColSum)
      warpSums = warpColumnSums(cs);
    const u32 buf = bufs + u32(kUnits == 1 ? 0 : seq & 1) * u32(kUnitChunks) * kEpiChunkBytes;
    const u32 bufD = buf + (kAux ? kEpiChunkBytes : 0u), bufT = bufD + kEpiChunkBytes / 2;
    if (t == 0)
      bulkWaitRead<kUnits - 1>(); // the stores that last read `buf` are done with it
    // Also: every warp has read the previous unit's column sums out of colSumBuf.
    namedBarrier(bar, 128);
    if constexpr (kAux && !kAux8)
      stmatrixChunk(buf, rowOff, swz, mi, packedY);
    if constexpr (k16)
      stmatrixChunk(bufD, rowOff, swz, mi, packedD);
    if constexpr (kColSum)
      stsF32x2(colSumBuf + u32(t) * 8u, warpSums.x, warpSums.y);
#pragma unroll
    for (int h = 0; h < 2 && !k16; ++h) {
      const u32 r = u32(warp * 16 + 8 * h + lane / 4); // the row in the unit
#pragma unroll
      for (int jl = 0; jl < 8; ++jl) {
        const u32 cl = u32(8 * jl + 2 * q); // the column in the unit
        stsU16(bufD + swz64(r, cl), packedD[jl][h]);
        if constexpr (kAux8) {
          const u32 y = packedY[jl][h];
          stsU16(buf + swz64(r, cl),
                 packFp8x2<Dt::E4M3>(__uint_as_float(y << 16), __uint_as_float(y & 0xFFFF0000u)));
        }
        if constexpr (kTrans) {
          stsU8(bufT + swz64(cl, r), packedD[jl][h]);
          stsU8(bufT + swz64(cl + 1u, r), packedD[jl][h] >> 8);
        }
      }
    }
    fenceProxyAsyncShared();
    namedBarrier(bar, 128);
    const int c0 = colBase + 64 * c;
    if (t == 0) {
      if constexpr (kAux)
        tmaStore2d(&mapAux, buf, c0, rowBase);
      tmaStore2d(&mapD, bufD, c0, rowBase);
      if constexpr (kTrans)
        tmaStore2d(&mapDT, bufT, rowBase, c0);
      bulkCommit();
    }
    if constexpr (kColSum) {
      // One warp per unit (in turn) adds the four warps' sums in order and writes the slice's
      // partial sums of the unit's 64 columns (N is whole 16-byte units: a pair is in or out).
      // A slice at or past M has no row in the workspace ([ceil(M/64)][N]).
      if (warp == c % 4 && rowBase < p.m && c0 + 2 * lane < p.n) {
        float2 sum = ldsF32x2(colSumBuf + u32(lane) * 8u);
#pragma unroll
        for (int w = 1; w < 4; ++w) {
          const float2 o = ldsF32x2(colSumBuf + u32(32 * w + lane) * 8u);
          sum.x += o.x;
          sum.y += o.y;
        }
        *reinterpret_cast<float2 *>(p.colPart + i64(rowBase / 64) * p.n + c0 + 2 * lane) = sum;
      }
    }
    ++seq;
  }
  finishAmax<Amax>(p, mags, row0);
}

/// The second kernel of a module whose GEMM writes column partial sums (kXoColSum): out[c] =
/// sum over the ceil(M/64) slices of part[slice][c], in slice order, rounded once to TOut.
template <Dt TOut>
__device__ __forceinline__ void columnPartialSums(const float *part, int slices, int n,
                                                  void *out) {
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
    float s = 0.0f;
    for (int r = 0; r < slices; ++r)
      s += part[i64(r) * n + c];
    static_cast<typename DtInfo<TOut>::Storage *>(out)[c] = fromF32<TOut>(s);
  }
}

} // namespace sm90
} // namespace fp8c
