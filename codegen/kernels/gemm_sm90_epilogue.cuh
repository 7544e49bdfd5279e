// The Hopper FP8 GEMM's epilogue (gemm_sm90.cuh): one consumer warpgroup's 64 x N f32
// accumulators (in the wgmma accumulator layout) scaled, biased, activated, reduced into amax and
// stored to D straight from registers (16-byte stores after quad shuffles for a 16-bit D).
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_defs.cuh"
#include "fp8c/ops.cuh"

namespace fp8c {
namespace sm90 {

// --- epilogue ----------------------------------------------------------------------------------

/// The activations of the epilogue. GELU (tanh) and SiLU use the hardware's approximate tanh
/// and exp (relative error about 2^-11, far under the bf16 rounding of D; the GEMM is checked
/// against an f64 reference, not bit for bit): the accurate ones made the epilogue of a
/// 128 x 256 tile cost a third of the main loop.
__device__ __forceinline__ float tanhApprox(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
template <Act A> __device__ __forceinline__ float activate(float x) {
  if constexpr (A == Act::Relu) {
    return op::relu(x);
  } else if constexpr (A == Act::GeluTanh) {
    const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhApprox(inner));
  } else if constexpr (A == Act::GeluErf) {
    return op::geluErf(x);
  } else if constexpr (A == Act::Silu) {
    return __fdividef(x, 1.0f + __expf(-x));
  } else {
    return x;
  }
}

/// Stores two adjacent elements of row `row` at columns col, col + 1 (either may be past N).
template <Dt TD>
__device__ __forceinline__ void storePair(const GemmParams &p, bool pairOk, int row, int col,
                                          float v0, float v1, float sd) {
  if (row >= p.m || col >= p.n)
    return;
  if constexpr (isFp8(TD)) {
    v0 = __fmul_rn(v0, sd);
    v1 = __fmul_rn(v1, sd);
  }
  using S = typename DtInfo<TD>::Storage;
  S *base = static_cast<S *>(p.d) + i64(row) * p.ldd + col;
  if (pairOk && col + 1 < p.n) {
    if constexpr (TD == Dt::F32) {
      float2 w;
      w.x = v0;
      w.y = v1;
      *reinterpret_cast<float2 *>(base) = w;
    } else if constexpr (TD == Dt::BF16) {
      *reinterpret_cast<u32 *>(base) = packBf16x2(v0, v1);
    } else if constexpr (TD == Dt::F16) {
      *reinterpret_cast<u32 *>(base) = packF16x2(v0, v1);
    } else {
      *reinterpret_cast<u16 *>(base) = packFp8x2<TD>(v0, v1);
    }
  } else {
    storeOne<TD>(base, 0, v0);
    if (col + 1 < p.n)
      storeOne<TD>(base, 1, v1);
  }
}

/// Selects x[i] for a run-time i < 4 without indexing a register array.
__device__ __forceinline__ u32 pick4(const u32 (&x)[4], int i) {
  return i == 0 ? x[0] : i == 1 ? x[1] : i == 2 ? x[2] : x[3];
}

/// Stores two column groups j, j + 1 (16 columns) of rows row0 and row0 + 8 of a 16-bit D.
/// u[2h + jj] holds the thread's packed pair of row (h ? row0 + 8 : row0), column group j + jj.
/// The four threads of a quad trade pairs (three shuffles) so that each ends with 8 adjacent
/// columns of one row and writes them as one 16-byte store: full 32-byte sectors, a quarter of
/// the store instructions of pairwise stores.
template <Dt TD>
__device__ __forceinline__ void storeQuad16(const GemmParams &p, const u32 (&u)[4], int row0,
                                            int colBase, int j) {
  const int q = threadIdx.x % 4;
  u32 o[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    // Round r: send the pair destined to thread q ^ r; the pair received from thread q ^ r
    // holds its columns 2 (q ^ r), +1 of my chunk.
    const u32 send = pick4(u, q ^ r);
    const u32 got = r ? __shfl_xor_sync(0xFFFFFFFFu, send, r) : send;
    const int at = q ^ r;
#pragma unroll
    for (int x = 0; x < 4; ++x)
      if (x == at)
        o[x] = got;
  }
  const int row = row0 + 8 * (q >> 1);
  const int col = colBase + 8 * (j + (q & 1));
  if (row >= p.m || col >= p.n)
    return;
  u16 *base = static_cast<u16 *>(p.d) + i64(row) * p.ldd + col;
  if (col + 7 < p.n) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(base), "r"(o[0]), "r"(o[1]),
                 "r"(o[2]), "r"(o[3])
                 : "memory");
  } else {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (col + e < p.n)
        base[e] = u16(e % 2 ? o[e / 2] >> 16 : o[e / 2] & 0xFFFFu);
  }
}

/// The epilogue of one consumer warpgroup's 64 x BN accumulators (already scaled when
/// S == Scale::Block). `rowBase` is the first row of the warpgroup's 64, `colBase` the tile's
/// first column.
template <int BN, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, bool Amax>
__device__ __forceinline__ void epilogue(float (&acc)[BN / 2], const GemmParams &p, int rowBase,
                                         int colBase, float tensorScale, float scaleD) {
  constexpr bool k16 = TD == Dt::BF16 || TD == Dt::F16;
  const int t = threadIdx.x % 128;
  const int row0 = rowBase + (t / 32) * 16 + (t % 32) / 4;
  const int row1 = row0 + 8;
  const bool pairOk = (p.ldd & 1) == 0;
  const bool quadOk = (p.ldd & 7) == 0;
  float sa0 = tensorScale, sa1 = tensorScale;
  if constexpr (S == Scale::Row) {
    sa0 = row0 < p.m ? p.scaleA[row0] : 0.0f;
    sa1 = row1 < p.m ? p.scaleA[row1] : 0.0f;
  }
  float mag = 0.0f;
#pragma unroll
  for (int j2 = 0; j2 < BN / 8; j2 += 2) {
    u32 packed[4];
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
      const int j = j2 + jj;
      const int col = colBase + 8 * j + 2 * (t % 4);
      float sb0 = 1.0f, sb1 = 1.0f, b0 = 0.0f, b1 = 0.0f;
      if constexpr (S == Scale::Row) {
        sb0 = col < p.n ? p.scaleB[col] : 0.0f;
        sb1 = col + 1 < p.n ? p.scaleB[col + 1] : 0.0f;
      }
      if constexpr (HasBias) {
        b0 = col < p.n ? loadOne<TBias>(p.bias, col) : 0.0f;
        b1 = col + 1 < p.n ? loadOne<TBias>(p.bias, col + 1) : 0.0f;
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = h ? row1 : row0;
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        if constexpr (S == Scale::Tensor) {
          v0 = v0 * tensorScale;
          v1 = v1 * tensorScale;
        } else if constexpr (S == Scale::Row) {
          const float sa = h ? sa1 : sa0;
          v0 = v0 * (sa * sb0);
          v1 = v1 * (sa * sb1);
        }
        if constexpr (HasBias) {
          v0 += b0;
          v1 += b1;
        }
        v0 = activate<A>(v0);
        v1 = activate<A>(v1);
        if constexpr (Amax) {
          if (row < p.m && col < p.n)
            mag = maxMag(mag, magnitude(v0));
          if (row < p.m && col + 1 < p.n)
            mag = maxMag(mag, magnitude(v1));
        }
        if constexpr (k16) {
          packed[2 * h + jj] = TD == Dt::BF16 ? packBf16x2(v0, v1) : packF16x2(v0, v1);
          if (!quadOk)
            storePair<TD>(p, pairOk, row, col, v0, v1, scaleD);
        } else {
          storePair<TD>(p, pairOk, row, col, v0, v1, scaleD);
        }
      }
    }
    if constexpr (k16)
      if (quadOk)
        storeQuad16<TD>(p, packed, row0, colBase, j2);
  }
  if constexpr (Amax) {
    mag = groupMaxMag<32>(mag);
    if (t % 32 == 0)
      atomicMaxMag(p.amax, mag);
  }
}

} // namespace sm90
} // namespace fp8c
