// The Hopper FP8 GEMM's epilogue (gemm_sm90.cuh): one consumer warpgroup's 64 x N f32
// accumulators (in the wgmma accumulator layout) scaled, biased, activated, reduced into amax and
// stored to D straight from registers. The per-row and per-column inputs (row scales, column
// scales, bias) are loaded before the tile's main loop (EpilogueInputs), so their latency hides
// behind the wgmmas; a quad of threads trades values so that each thread writes 16 adjacent bytes
// of D (8 columns of a 16-bit D, 16 of an FP8 D).
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_defs.cuh"
#include "fp8c/ops.cuh"

namespace fp8c {
namespace sm90 {

// --- epilogue ----------------------------------------------------------------------------------

/// The activations of the epilogue: ops.cuh's, the functions the pointwise launches call. Their
/// tanh GELU and SiLU use the hardware's approximate exp2 and reciprocal (ops.cuh's header): the
/// accurate tanhf / expf made the epilogue of a 128 x 256 tile cost a third of the main loop.
template <Act A> __device__ __forceinline__ float activate(float x) {
  if constexpr (A == Act::Relu) {
    return op::relu(x);
  } else if constexpr (A == Act::GeluTanh) {
    return op::geluTanh(x);
  } else if constexpr (A == Act::GeluErf) {
    return op::geluErf(x);
  } else if constexpr (A == Act::Silu) {
    return op::silu(x);
  } else {
    return x;
  }
}

/// Synchronizes the `count` threads that use named barrier `id` (1 + consumer warpgroup; 0 is
/// __syncthreads').
__device__ __forceinline__ void namedBarrier(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
/// Arrives on named barrier `id` of `count` threads without waiting for it.
__device__ __forceinline__ void namedBarrierArrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/// The epilogue's inputs besides the accumulators, loaded by one consumer warpgroup before its
/// tile's main loop: the scales of its rows (Scale::Row; two rows per thread and 64-row slice;
/// Scale::Tensor: A's one scale, finishPair's first factor) in registers, and, where the epilogue
/// has per-column inputs (Scale::Row's column scales, bias), one float4 {scaleB[c], scaleB[c + 1],
/// bias[c], bias[c + 1]} per pair of the tile's WN columns, thread t loading pairs t, t + 128, ...
/// Each thread needs two columns of every eight, so stage() hands the pairs around through the
/// warpgroup's buffer in shared memory. With Dual (the dual GEMM, row scales), the WN accumulator
/// columns are WN / 2 output columns twice: pairs [0, WN / 4) hold the gate weight's column scales
/// (scaleB) of output columns colBase / 2 + 2 * pair, pairs [WN / 4, WN / 2) the up weight's
/// (scaleB2) of the same columns, so the accumulator at a pair's position finds its own weight's
/// scale there.
template <int WN, int Slices, Scale S, bool HasBias, Dt TBias, bool Dual = false>
struct EpilogueInputs {
  static_assert(!Dual || !HasBias, "the dual GEMM has no bias");
  static constexpr bool kCols = S == Scale::Row || HasBias;
  static constexpr int kPairs = WN / 2;
  static constexpr int kPerThread = kCols ? (kPairs + 127) / 128 : 1;
  float sa[Slices][2];
  float4 cols[kPerThread];

  __device__ __forceinline__ void load(const GemmParams &p, int rowBase, int colBase) {
    const int t = threadIdx.x % 128;
#pragma unroll
    for (int h = 0; h < Slices; ++h) {
      const int row0 = rowBase + 64 * h + (t / 32) * 16 + (t % 32) / 4;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = row0 + 8 * r;
        sa[h][r] = S == Scale::Row      ? (row < p.m ? p.scaleA[row] : 0.0f)
                   : S == Scale::Tensor ? p.scaleA[0]
                                        : 1.0f;
      }
    }
    if constexpr (kCols) {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int pair = t + 128 * i;
        const bool up = Dual && pair >= kPairs / 2;
        const int c = Dual ? colBase / 2 + 2 * (up ? pair - kPairs / 2 : pair) : colBase + 2 * pair;
        const float *scaleB = up ? p.scaleB2 : p.scaleB;
        float4 v = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
        if (pair < kPairs) {
          if constexpr (S == Scale::Row) {
            v.x = c < p.n ? scaleB[c] : 0.0f;
            v.y = c + 1 < p.n ? scaleB[c + 1] : 0.0f;
          }
          if constexpr (HasBias) {
            v.z = c < p.n ? loadOne<TBias>(p.bias, c) : 0.0f;
            v.w = c + 1 < p.n ? loadOne<TBias>(p.bias, c + 1) : 0.0f;
          }
        }
        cols[i] = v;
      }
    }
  }

  /// Writes the column pairs into `buf` (kPairs float4) once every thread of the warpgroup has
  /// finished reading the previous tile's, and makes them visible to all of them (named barrier
  /// `bar`, 128 threads, twice).
  __device__ __forceinline__ void stage(float4 *buf, int bar) const {
    if constexpr (kCols) {
      const int t = threadIdx.x % 128;
      namedBarrier(bar, 128);
#pragma unroll
      for (int i = 0; i < kPerThread; ++i)
        if (t + 128 * i < kPairs)
          buf[t + 128 * i] = cols[i];
      namedBarrier(bar, 128);
    }
  }
};

/// The math of the epilogue on the pair (v0, v1) of one of the thread's rows (`sa`: A's
/// inverse scale of that row, Scale::Row, or of the tensor, Scale::Tensor, whose B scale is
/// `tensorScale`) at a column pair with inputs `c` = {scaleB[c], scaleB[c + 1], bias[c],
/// bias[c + 1]}: y = act((v * sa) * sb + bias). Both epilogues (registers, TMA store) use it.
/// The two inverse scales multiply one at a time, as fp8.scaled_matmul divides by one scale at a
/// time (IR.h): their product underflows f32 where both operands are small (amaxes ~1e-18:
/// 1/sa = 1/sb ~ 2^-68.6, 1/(sa sb) ~ 2^-137 < 2^-126, subnormal, and 0 below 2^-149), while
/// v * sa stays near the dequantized A times B's FP8 values. One more multiply per value.
template <Scale S, bool HasBias, Act A>
__device__ __forceinline__ void finishPair(float &v0, float &v1, float tensorScale, float sa,
                                           float4 c) {
  if constexpr (S == Scale::Tensor) {
    v0 = v0 * sa * tensorScale;
    v1 = v1 * sa * tensorScale;
  } else if constexpr (S == Scale::Row) {
    v0 = v0 * sa * c.x;
    v1 = v1 * sa * c.y;
  }
  if constexpr (HasBias) {
    v0 += c.z;
    v1 += c.w;
  }
  v0 = activate<A>(v0);
  v1 = activate<A>(v1);
}

/// The epilogue's amax modes (the Amax template argument). kAmaxBlock is the 1x128-block FP8
/// cast of D (gemm_sm90_block_cast.cuh): each block's amax, scale and cast taken in registers.
constexpr int kAmaxNone = 0, kAmaxTensor = 1, kAmaxRows = 2, kAmaxBlock = 3;

/// Adds max |v0|, |v1| of the valid elements of the pair at (row, col) to `mag`.
__device__ __forceinline__ void pairMag(float &mag, const GemmParams &p, int row, int col,
                                        float v0, float v1) {
  if (row < p.m && col < p.n)
    mag = maxMag(mag, magnitude(v0));
  if (row < p.m && col + 1 < p.n)
    mag = maxMag(mag, magnitude(v1));
}

/// Folds a consumer warp's magnitudes into the amax: kAmaxTensor, one atomic per warp into
/// p.amax[0]; kAmaxRows, mags[h] of the thread's rows row0 and row0 + 8 reduced over the quad
/// that shares them, one atomic per row and warp into p.amax[row] (the [M] buffer starts at
/// 0; NaN wins).
template <int Amax>
__device__ __forceinline__ void finishAmax(const GemmParams &p, const float (&mags)[2], int row0) {
  const int lane = threadIdx.x % 32;
  if constexpr (Amax == kAmaxTensor) {
    const float mag = groupMaxMag<32>(maxMag(mags[0], mags[1]));
    if (lane == 0)
      atomicMaxMag(p.amax, mag);
  } else if constexpr (Amax == kAmaxRows) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float mag = groupMaxMag<4>(mags[h]);
      const int row = row0 + 8 * h;
      if (lane % 4 == 0 && row < p.m)
        atomicMaxMag(p.amax + row, mag);
    }
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
  using St = typename DtInfo<TD>::Storage;
  St *base = static_cast<St *>(p.d) + i64(row) * p.ldd + col;
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

/// The four threads of a quad hold one 32-bit word each for (row half h, chunk c), at u[2h + c];
/// afterwards thread q holds in o[x] thread x's word for h = q / 2, c = q % 2 (three shuffles).
__device__ __forceinline__ void quadExchange(const u32 (&u)[4], u32 (&o)[4]) {
  const int q = threadIdx.x % 4;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    // Round r: send the word destined to thread q ^ r; the word received from thread q ^ r is
    // its word for my (h, c).
    const u32 send = pick4(u, q ^ r);
    const u32 got = r ? __shfl_xor_sync(0xFFFFFFFFu, send, r) : send;
    const int at = q ^ r;
#pragma unroll
    for (int x = 0; x < 4; ++x)
      if (x == at)
        o[x] = got;
  }
}

/// Writes the 16 bytes `o` at element `col` of row `row` (elements of `bytesPer` bytes), or
/// the part of them left of N.
__device__ __forceinline__ void store16(const GemmParams &p, int row, int col, int bytesPer,
                                        const u32 (&o)[4]) {
  if (row >= p.m || col >= p.n)
    return;
  u8 *base = static_cast<u8 *>(p.d) + (i64(row) * p.ldd + col) * bytesPer;
  const int per = 16 / bytesPer;
  if (col + per <= p.n) {
    uint4 w;
    w.x = o[0];
    w.y = o[1];
    w.z = o[2];
    w.w = o[3];
    *reinterpret_cast<uint4 *>(base) = w;
  } else {
    for (int b = 0; b < (p.n - col) * bytesPer; ++b)
      base[b] = u8(pick4(o, b / 4) >> (8 * (b % 4)));
  }
}

/// Stores column groups j, j + 1 (16 columns) of rows row0 and row0 + 8 of a 16-bit D.
/// u[2h + jj] holds the thread's packed pair of row (h ? row0 + 8 : row0), column group j + jj;
/// after the exchange each thread writes 8 adjacent columns of one row as one 16-byte store.
__device__ __forceinline__ void storeQuad16(const GemmParams &p, const u32 (&u)[4], int row0,
                                            int colBase, int j) {
  const int q = threadIdx.x % 4;
  u32 o[4];
  quadExchange(u, o);
  store16(p, row0 + 8 * (q >> 1), colBase + 8 * (j + (q & 1)), 2, o);
}

/// Stores column groups j .. j + 3 (32 columns) of rows row0 and row0 + 8 of an FP8 D.
/// u[2h + c] holds the thread's FP8 pairs of row h, groups j + 2c (low half) and j + 2c + 1
/// (high half); after the exchange thread q holds those of all four threads for h = q / 2,
/// c = q % 2, i.e. 16 adjacent columns once reordered, written as one 16-byte store.
__device__ __forceinline__ void storeQuad8(const GemmParams &p, const u32 (&u)[4], int row0,
                                           int colBase, int j) {
  const int q = threadIdx.x % 4;
  u32 o[4], w[4];
  quadExchange(u, o);
  // Group j + 2c: the low halves of threads 0..3; group j + 2c + 1: their high halves.
  w[0] = __byte_perm(o[0], o[1], 0x5410);
  w[1] = __byte_perm(o[2], o[3], 0x5410);
  w[2] = __byte_perm(o[0], o[1], 0x7632);
  w[3] = __byte_perm(o[2], o[3], 0x7632);
  store16(p, row0 + 8 * (q >> 1), colBase + 8 * (j + 2 * (q & 1)), 1, w);
}

/// Delayed scaling's history push by the GEMM that reduced the amax (p.pushHistory; the
/// lowering's foldHistoryPushes, instead of a state launch after it): every thread of the block
/// calls it after its last epilogue. The block barrier orders each warp's amax atomic before
/// thread 0's fence and count; the grid's last block then reads the amax, pushes it (rounded
/// as the state launch rounds an amax of a bf16 / f16 value) with warp 0 and, where the amax is
/// its own scratch, puts it back to zero; the counter is left at zero for the next run. No
/// shared memory: the kernel's dynamic shared memory may fill the SM.
__device__ __forceinline__ void pushAmaxWhenLast(const GemmParams &p) {
  __syncthreads();
  if (threadIdx.x >= 32)
    return;
  const int lane = int(threadIdx.x);
  u32 last = 0;
  if (lane == 0) {
    __threadfence();
    last = atomicAdd(p.pushCounter, 1u) == gridDim.x * gridDim.y * gridDim.z - 1 ? 1u : 0u;
    if (last) {
      __threadfence();
      atomicExch(p.pushCounter, 0u);
    }
  }
  if (__shfl_sync(0xFFFFFFFFu, last, 0) == 0)
    return;
  float a = __ldcg(p.amax);
  if (p.pushRound == int(Dt::BF16))
    a = roundTo<Dt::BF16>(a);
  else if (p.pushRound == int(Dt::F16))
    a = roundTo<Dt::F16>(a);
  warpHistoryPush(p.pushHistory, p.pushLen, a, lane);
  if (p.pushResetAmax && lane == 0)
    atomicExch(p.amax, 0.0f); // every lane read it above (warpHistoryPush synchronizes)
}

/// The epilogue of one consumer warpgroup's 64 x WN accumulators (already scaled when
/// S == Scale::Block). `rowBase` is the first row of the warpgroup's 64, `colBase` the tile's
/// first column; `sa` the scales of the thread's two rows (Scale::Row), `cols` the tile's
/// column pairs staged by EpilogueInputs::stage (when it has per-column inputs).
template <int WN, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, int Amax>
__device__ __forceinline__ void epilogue(float (&acc)[WN / 2], const GemmParams &p, int rowBase,
                                         int colBase, const float (&sa)[2], const float4 *cols,
                                         float tensorScale, float scaleD) {
  constexpr bool k16 = TD == Dt::BF16 || TD == Dt::F16;
  constexpr bool kCols = S == Scale::Row || HasBias;
  static_assert(WN % 32 == 0, "the epilogue stores 32 columns at a time");
  const int t = threadIdx.x % 128;
  const int row0 = rowBase + (t / 32) * 16 + (t % 32) / 4;
  const int row1 = row0 + 8;
  const bool pairOk = (p.ldd & 1) == 0;
  // 16-byte stores need 16-byte aligned rows (D itself is, checked on the host).
  const bool quadOk = (k16 && (p.ldd & 7) == 0) || (isFp8(TD) && (p.ldd & 15) == 0);
  float mags[2] = {0.0f, 0.0f}; // per row half (kAmaxRows) or together (kAmaxTensor)
#pragma unroll
  for (int j4 = 0; j4 < WN / 8; j4 += 4) {
    u32 packed[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
      const int j = j4 + jj;
      const int col = colBase + 8 * j + 2 * (t % 4);
      float4 c = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kCols)
        c = cols[4 * j + t % 4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = h ? row1 : row0;
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        finishPair<S, HasBias, A>(v0, v1, tensorScale, sa[h], c);
        if constexpr (Amax != kAmaxNone)
          pairMag(mags[h], p, row, col, v0, v1);
        if constexpr (k16) {
          // Words for storeQuad16: (h, group j4 + (jj & 1)), stored per two groups.
          packed[2 * h + (jj & 1)] = TD == Dt::BF16 ? packBf16x2(v0, v1) : packF16x2(v0, v1);
        } else if constexpr (isFp8(TD)) {
          // Words for storeQuad8: (h, groups j4 + 2c, +1 with c = jj / 2), low half first.
          const u32 pair = packFp8x2<TD>(__fmul_rn(v0, scaleD), __fmul_rn(v1, scaleD));
          packed[2 * h + jj / 2] |= pair << (16 * (jj & 1));
        }
        if (!quadOk)
          storePair<TD>(p, pairOk, row, col, v0, v1, scaleD);
      }
      if constexpr (k16)
        if (quadOk && (jj & 1))
          storeQuad16(p, packed, row0, colBase, j - 1);
    }
    if constexpr (isFp8(TD))
      if (quadOk)
        storeQuad8(p, packed, row0, colBase, j4);
  }
  finishAmax<Amax>(p, mags, row0);
}

} // namespace sm90
} // namespace fp8c
