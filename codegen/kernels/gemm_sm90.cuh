// The Hopper (sm_90a) FP8 GEMM: D[M, N] = epilogue(sum_k A[m, k] B[n, k] * scales), A and B
// FP8 (e4m3 x e4m3, e5m2 x e4m3, e4m3 x e5m2), both K-major (TN), f32 accumulation.
//
// One persistent block per SM, 384 threads in three warpgroups:
//   warpgroup 0, the producer: one thread loads BM x 128 tiles of A and BN x 128 tiles of B
//     with the tensor memory accelerator (cp.async.bulk.tensor, 128-byte swizzle) into a ring of
//     `Stages` shared-memory stages; each stage is completed on its `full` mbarrier (transaction
//     bytes) and handed back on its `empty` mbarrier. It gives registers away (setmaxnreg.dec).
//   warpgroups 1 and 2, the consumers: rows 0-63 and 64-127 of a 128 x BN tile, or (BM = 64,
//     for small M) columns 0..BN/2-1 and BN/2.. of a 64 x BN tile. Each waits on a
//     stage's `full` barrier, issues four wgmma m64nWNk32 (K = 128 per stage) from shared
//     memory, and releases the stage once its wgmmas completed (wgmma.wait_group); with
//     `Overlap`, one stage's wgmmas stay in flight while the next stage is waited for. Then
//     the epilogue runs on the accumulators in registers and stores D directly from them.
//     With `Promote` (blockwise scales, or fast accumulation off), each 128-wide K block goes
//     to a second register set and is added to the f32 result once its wgmmas completed: the
//     tensor cores' FP8 accumulation keeps fewer bits than f32 (cuBLASLt's "fast accumulation"
//     is that mode; promotion is its precise counterpart, as in DeepSeek-V3 / DeepGEMM).
// Tiles are visited in groups of `groupM` tile rows (all tile columns of a group before the
// next group), so the A rows and B columns in use at one time stay in L2.
//
// Scales are *inverse* scales (dequantization factors, multiplied), laid out as cuBLASLt's:
//   Scale::Tensor  scaleA[0], scaleB[0]
//   Scale::Row     scaleA[M] (per row of A), scaleB[N] (per row of B)
//   Scale::Block   scaleA: 1x128 blocks of A, [ceil(K/128)][ldsa] (M contiguous, ldsa >= M);
//                  scaleB: 128x128 blocks of B, [ceil(N/128)][ldsb] (ldsb >= ceil(K/128)).
//                  Each 128-wide K block is accumulated apart (wgmma with scale-d 0) and added
//                  to the f32 result times scaleA * scaleB of that block (needs Promote).
// Epilogue, in this order: y = acc * scales; y += bias[n]; y = act(y); amax = max |y| over the
// valid elements (atomic, NaN wins; *amax must start at 0); D = y rounded to D's type, or for an
// FP8 D, sat(rne(y * scaleD[0])).
//
// Tails: TMA reads outside [M, K] / [N, K] as zeros (the K tail adds nothing), and stores are
// predicated on row < M and col < N. Requirements (checked on the host, runtime/gpu/GemmSm90):
// A, B 16-byte aligned with row pitches a multiple of 16 bytes; D 16-byte aligned.
//
// Compiled by NVRTC for sm_90a with no toolkit headers; the generated source instantiates
// gemmSm90<...> in an extern "C" __global__ __launch_bounds__(384, 1) kernel.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_wgmma.cuh"
#include "fp8c/ops.cuh"

namespace fp8c {
namespace sm90 {

/// The driver's CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned, built on the host by
/// cuTensorMapEncodeTiled and passed by value as a __grid_constant__ kernel parameter.
struct alignas(64) TmaDesc {
  u64 opaque[16];
};

enum class Scale : int { Tensor = 0, Row = 1, Block = 2 };
enum class Act : int { None = 0, Relu = 1, GeluTanh = 2, GeluErf = 3, Silu = 4 };

/// Run-time arguments (the tensor maps of A and B are separate parameters).
struct GemmParams {
  void *d;
  const float *scaleA;
  const float *scaleB;
  const void *bias; ///< [N] or null
  float *amax;      ///< max |y| or null
  const float *scaleD;
  i64 ldd;  ///< D row pitch in elements
  i64 ldsa; ///< Scale::Block: row pitch of scaleA (>= M)
  i64 ldsb; ///< Scale::Block: row pitch of scaleB (>= ceil(K/128))
  int m, n, k;
  int tilesM, tilesN, kBlocks;
  int groupM; ///< tile rows per group of the tile order
};

constexpr int kBK = 128;     ///< K (bytes) of one stage
constexpr int kThreadsSm90 = 384;
constexpr int kConsumerWarps = 8;

/// Dynamic shared memory of a config, with the 1024 bytes of slack for alignment.
FP8C_HD constexpr int sharedBytes(int bm, int bn, int stages) {
  return stages * (bm * kBK + bn * kBK) + 2 * stages * 8 + 1024;
}

// --- PTX wrappers ------------------------------------------------------------------------------

__device__ __forceinline__ u32 smemAddr(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarInit(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarExpectTx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/// Spins until the phase of parity `parity` of `bar` has completed.
__device__ __forceinline__ void mbarWait(u32 bar, u32 parity) {
  // The label is local to the braces, so the inlined copies do not clash.
  asm volatile("{\n.reg .pred done;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void tmaLoad2d(u32 dst, const TmaDesc *map, u32 bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void tmaPrefetchMap(const TmaDesc *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<u64>(map)) : "memory");
}
__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving accesses of `r` across this point.
__device__ __forceinline__ void fenceReg(float &r) { asm volatile("" : "+f"(r)::"memory"); }

/// Matrix descriptor of a K-major tile in shared memory written by TMA with 128-byte swizzle:
/// rows of 128 bytes, 8-row groups 1024 bytes apart (stride byte offset), start address `addr`
/// (advanced by 32 bytes per k32 step inside the swizzle atom).
__device__ __forceinline__ u64 smemDesc(u32 addr) {
  return u64((addr & 0x3FFFF) >> 4) | (u64(1024 >> 4) << 32) | (u64(1) << 62);
}

// --- tile order --------------------------------------------------------------------------------

__device__ __forceinline__ void tileCoords(int t, const GemmParams &p, int &tm, int &tn) {
  const int perGroup = p.groupM * p.tilesN;
  const int g = t / perGroup;
  const int first = g * p.groupM;
  const int rows = min(p.tilesM - first, p.groupM);
  const int r = t - g * perGroup;
  tm = first + r % rows;
  tn = r / rows;
}

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

// --- the kernel body ---------------------------------------------------------------------------

template <int BM, int BN, int Stages, Dt TA, Dt TB, Dt TD, Scale S, bool HasBias,
          Dt TBias, Act A, bool Amax, bool Overlap, bool Promote>
__device__ __forceinline__ void gemmSm90(const TmaDesc &mapA, const TmaDesc &mapB,
                                         const GemmParams &p) {
  static_assert(BM == 128 || BM == 64, "BM");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN");
  static_assert(S != Scale::Block || BN % 128 == 0, "blockwise scales need BN % 128 == 0");
  static_assert(S != Scale::Block || Promote, "blockwise scales are promoted per K block");
  // BM = 128: consumer c takes rows 64c..64c+63 and all BN columns. BM = 64: both take the 64
  // rows, consumer c the columns c*BN/2..; half the tensor work per B byte (small M).
  constexpr int WN = BM == 128 ? BN : BN / 2;
  static_assert(WN == 64 || WN == 96 || WN == 128 || WN == 192 || WN == 256, "WN");
  constexpr u32 kStageA = BM * kBK, kStageB = BN * kBK;
  // Registers: __launch_bounds__(384, 1) caps every thread at 168 at entry; the producer gives
  // back all but 40, the consumers take the rest (multiples of 8). (Two blocks per SM, 80 at
  // entry, was tried: ptxas refuses the wgmma with 80 registers, C7602.)
  constexpr int kProducerRegs = 40;
  constexpr int kConsumerRegs = ((168 * 384 - 128 * kProducerRegs) / 256) / 8 * 8;

  extern __shared__ u8 smemRaw[];
  const u32 raw = smemAddr(smemRaw);
  const u32 sA = (raw + 1023u) & ~1023u;
  const u32 sB = sA + Stages * kStageA;
  const u32 bars = sB + Stages * kStageB;
  auto full = [&](int s) { return bars + 8u * u32(s); };
  auto empty = [&](int s) { return bars + 8u * u32(Stages + s); };

  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Stages; ++s) {
      mbarInit(full(s), 1);
      mbarInit(empty(s), kConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  const int numTiles = p.tilesM * p.tilesN;
  if (wg == 0) {
    // Producer.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kProducerRegs));
    if (threadIdx.x == 0) {
      tmaPrefetchMap(&mapA);
      tmaPrefetchMap(&mapB);
      int s = 0;
      u32 phase = 0;
      for (int t = blockIdx.x; t < numTiles; t += gridDim.x) {
        int tm, tn;
        tileCoords(t, p, tm, tn);
        for (int kb = 0; kb < p.kBlocks; ++kb) {
          mbarWait(empty(s), phase ^ 1u);
          mbarExpectTx(full(s), kStageA + kStageB);
          tmaLoad2d(sA + s * kStageA, &mapA, full(s), kb * kBK, tm * BM);
          tmaLoad2d(sB + s * kStageB, &mapB, full(s), kb * kBK, tn * BN);
          if (++s == Stages) {
            s = 0;
            phase ^= 1u;
          }
        }
      }
    }
  } else {
    // Consumers.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kConsumerRegs));
    const int cw = wg - 1;
    const int lane = threadIdx.x % 32;
    const int t = threadIdx.x % 128;
    float tensorScale = 1.0f, scaleD = 1.0f;
    if constexpr (S == Scale::Tensor)
      tensorScale = p.scaleA[0] * p.scaleB[0];
    if constexpr (isFp8(TD))
      scaleD = p.scaleD[0];
    int s = 0;
    u32 phase = 0;
    float acc[WN / 2];
    for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
      int tm, tn;
      tileCoords(tile, p, tm, tn);
      const int rowBase = tm * BM + (BM == 128 ? cw * 64 : 0);
      const int colBase = tn * BN + (BM == 128 ? 0 : cw * WN);
      const u32 aOff = BM == 128 ? u32(cw) * 64 * kBK : 0u;
      const u32 bOff = BM == 128 ? 0u : u32(cw) * WN * kBK;
#pragma unroll
      for (int i = 0; i < WN / 2; ++i)
        acc[i] = 0.0f;
      if constexpr (Promote) {
        // Per 128-wide K block: tmp = A_kb B_kb^T, acc += tmp * scaleA[kb][row] * scaleB[nb][kb]
        // (Scale::Block), or acc += tmp: the f32 sum of the tensor cores' per-block results,
        // more precise than their own FP8 accumulation over all of K.
        const int row0 = rowBase + (t / 32) * 16 + (t % 32) / 4;
        const int row1 = row0 + 8;
        float tmp[WN / 2];
        constexpr int kSb = WN >= 128 ? WN / 128 : 1;
        for (int kb = 0; kb < p.kBlocks; ++kb) {
          float sa0 = 1.0f, sa1 = 1.0f, sb[kSb];
#pragma unroll
          for (int q = 0; q < kSb; ++q)
            sb[q] = 1.0f;
          if constexpr (S == Scale::Block) {
            sa0 = row0 < p.m ? p.scaleA[i64(kb) * p.ldsa + row0] : 0.0f;
            sa1 = row1 < p.m ? p.scaleA[i64(kb) * p.ldsa + row1] : 0.0f;
#pragma unroll
            for (int q = 0; q < kSb; ++q) {
              const int nb = colBase / 128 + q;
              sb[q] = nb * 128 < p.n ? p.scaleB[i64(nb) * p.ldsb + kb] : 0.0f;
            }
          }
          mbarWait(full(s), phase);
#pragma unroll
          for (int i = 0; i < WN / 2; ++i)
            fenceReg(tmp[i]);
          wgmmaFence();
#pragma unroll
          for (int kk = 0; kk < kBK / 32; ++kk)
            wgmma<WN, TA, TB>(tmp, smemDesc(sA + s * kStageA + aOff + kk * 32),
                              smemDesc(sB + s * kStageB + bOff + kk * 32), kk > 0 ? 1 : 0);
          wgmmaCommit();
          wgmmaWait<0>();
#pragma unroll
          for (int i = 0; i < WN / 2; ++i)
            fenceReg(tmp[i]);
          if (lane == 0)
            mbarArrive(empty(s));
          if (++s == Stages) {
            s = 0;
            phase ^= 1u;
          }
#pragma unroll
          for (int j = 0; j < WN / 8; ++j) {
            if constexpr (S == Scale::Block) {
              const float b = sb[(8 * j) / 128];
              const float f0 = sa0 * b, f1 = sa1 * b;
              acc[4 * j + 0] += tmp[4 * j + 0] * f0;
              acc[4 * j + 1] += tmp[4 * j + 1] * f0;
              acc[4 * j + 2] += tmp[4 * j + 2] * f1;
              acc[4 * j + 3] += tmp[4 * j + 3] * f1;
            } else {
#pragma unroll
              for (int x = 0; x < 4; ++x)
                acc[4 * j + x] += tmp[4 * j + x];
            }
          }
        }
      } else {
        int prev = 0;
        for (int kb = 0; kb < p.kBlocks; ++kb) {
          mbarWait(full(s), phase);
          wgmmaFence();
#pragma unroll
          for (int kk = 0; kk < kBK / 32; ++kk)
            wgmma<WN, TA, TB>(acc, smemDesc(sA + s * kStageA + aOff + kk * 32),
                              smemDesc(sB + s * kStageB + bOff + kk * 32), 1);
          wgmmaCommit();
          if constexpr (Overlap) {
            // The previous stage's wgmmas are done once at most this one group is pending.
            wgmmaWait<1>();
            if (kb > 0 && lane == 0)
              mbarArrive(empty(prev));
          } else {
            wgmmaWait<0>();
            if (lane == 0)
              mbarArrive(empty(s));
          }
          prev = s;
          if (++s == Stages) {
            s = 0;
            phase ^= 1u;
          }
        }
        if constexpr (Overlap) {
          wgmmaWait<0>();
          if (p.kBlocks > 0 && lane == 0)
            mbarArrive(empty(prev));
        }
#pragma unroll
        for (int i = 0; i < WN / 2; ++i)
          fenceReg(acc[i]);
      }
      epilogue<WN, TD, S, HasBias, TBias, A, Amax>(acc, p, rowBase, colBase, tensorScale,
                                                  scaleD);
    }
  }
}

} // namespace sm90
} // namespace fp8c
