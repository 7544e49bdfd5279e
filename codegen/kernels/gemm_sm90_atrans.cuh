// The Hopper FP8 GEMM with A given MN-major (gemm_sm90.cuh with AT): A is stored as its
// transpose, [K rows][M columns] with M contiguous, e.g. the untransposed FP8 copy of a
// gradient dY [tokens, N] read as the A = dY^T of the weight gradient dW = dY^T X, so the
// cast that writes dY needs no transposed copy. FP8 wgmma reads A from shared memory only
// K-major, so the consumers build A's register fragments themselves and issue the wgmmas with A
// from registers:
// - the producer loads A's tile for a stage as 128 rows (k) x 128 bytes (m) by TMA at the
//   128-byte swizzle (16-byte unit u of row k at unit u ^ (k % 8));
// - per k32 step, each warp reads its 16 rows of A (16 bytes of every k row) with one
//   ldmatrix.x4.trans of 16-bit elements. An 8 x 8 matrix of 16-bit elements whose rows are 8
//   k rows gives lane (g = lane / 4, q = lane % 4) the bytes m = 2g, 2g + 1 of the rows it
//   names 2q and 2q + 1. Matrix X names the k rows {0,1,4,5,10,11,14,15} and matrix Y
//   {2,3,6,7,8,9,12,13} (each set distinct mod 8, so neither read has a bank conflict), so a lane
//   holds, for each of its two m, the four k values 4q .. 4q + 3 split between X and Y; one
//   byte permute per register puts them in order (X first for q < 2, Y first for q >= 2). The
//   second pair of matrices does k = 16 .. 31;
// - the fragment's row g is then m = 2g and its row g + 8 is m = 2g + 1 of the warp's 16: the
//   accumulators hold D's rows in that order, and the epilogue stores them where they belong
//   (gemm_sm90_store.cuh, `rowOfHalf`).
// The fragments of a stage are loaded before its wgmma.fence (registers written by other
// instructions), and left unchanged until the wgmmas that read them completed: both main loops
// wait for a stage's wgmmas before the next stage's fragments are written.
#pragma once

#include "fp8c/gemm_sm90_ring.cuh"
#include "fp8c/gemm_sm90_wgmma_rs.cuh"

namespace fp8c {
namespace sm90 {

/// A stage's A fragments: [k32 step][register].
using AFrags = u32[kBK / 32][4];

__device__ __forceinline__ void ldmatrixX4Trans(u32 addr, u32 &d0, u32 &d1, u32 &d2, u32 &d3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
               : "r"(addr)
               : "memory");
}

/// This lane's byte offset into a stage's A tile for its ldmatrix row address (k32 step 0):
/// lanes 8i .. 8i + 7 name the rows of matrix i (X, Y, X + 16, Y + 16), in the 16-byte unit of
/// the warp's 16 m columns (`unit`: (tile-local m) / 16).
__device__ __forceinline__ u32 aTransLaneOffset(int lane, int unit) {
  constexpr u32 kX = 0xFEBA5410u, kY = 0xDC987632u; // X: 0,1,4,5,10,11,14,15; Y: 2,3,6,7,8,9,12,13
  const int mi = lane / 8, r = lane % 8;
  const u32 k = 16u * u32(mi >> 1) + ((((mi & 1) ? kY : kX) >> (4 * r)) & 0xFu);
  return k * 128u + ((u32(unit) ^ (k & 7u)) << 4);
}

/// One stage's A fragments from its A tile at shared address `a` (lane offset `off` from
/// aTransLaneOffset).
__device__ __forceinline__ void loadAFrags(AFrags &f, u32 a, u32 off) {
  const int q = threadIdx.x % 4;
  const u32 selEven = q < 2 ? 0x6420u : 0x2064u, selOdd = q < 2 ? 0x7531u : 0x3175u;
#pragma unroll
  for (int kk = 0; kk < kBK / 32; ++kk) {
    u32 x0, y0, x1, y1;
    ldmatrixX4Trans(a + off + u32(kk) * 32u * 128u, x0, y0, x1, y1);
    f[kk][0] = __byte_perm(x0, y0, selEven); // row g (m = 2g), k = 4q ..
    f[kk][1] = __byte_perm(x0, y0, selOdd);  // row g + 8 (m = 2g + 1)
    f[kk][2] = __byte_perm(x1, y1, selEven); // k = 16 + 4q ..
    f[kk][3] = __byte_perm(x1, y1, selOdd);
  }
}

/// One stage's wgmmas with A from the fragments `f`, WN columns of B from shared address b; the
/// first k32 step scales the old accumulators by `scaleD`. Fenced and committed by the caller.
template <int WN, Dt TA, Dt TB>
__device__ __forceinline__ void stageMmaRs(float (&acc)[WN / 2], const AFrags &f, u32 b,
                                           int scaleD) {
#pragma unroll
  for (int kk = 0; kk < kBK / 32; ++kk)
    wgmmaRs<WN, TA, TB>(acc, f[kk], smemDesc(b + kk * 32), kk > 0 ? 1 : scaleD);
}

/// mainLoop (gemm_sm90_ring.cuh) with A MN-major (`aOff`: the lane's aTransLaneOffset), each
/// stage waited for before the next one's fragments are written: Overlap does not apply. (Two
/// fragment sets alternating under one stage in flight made ptxas serialize the wgmmas, C7513:
/// it takes a fragment written while an earlier group is pending as an input defined inside the
/// pipeline.) The other consumer warpgroup's stage keeps the tensor cores busy meanwhile.
template <int WN, int BM, int BN, int Stages, Dt TA, Dt TB, int Cm>
__device__ __forceinline__ void mainLoopATrans(float (&acc)[1][WN / 2],
                                               const Ring<BM, BN, Stages> &ring, u32 aOff,
                                               u32 bOff, int kBlocks, int &s, u32 &phase) {
  using R = Ring<BM, BN, Stages>;
  const int lane = threadIdx.x % 32;
  AFrags f;
  for (int kb = 0; kb < kBlocks; ++kb) {
    mbarWait(ring.full(s), phase);
    loadAFrags(f, ring.a + s * R::kStageA, aOff);
    wgmmaFence();
    stageMmaRs<WN, TA, TB>(acc[0], f, ring.b + s * R::kStageB + bOff, 1);
    wgmmaCommit();
    wgmmaWait<0>();
    if (lane == 0)
      releaseStage<Cm>(ring.empty(s));
    if (++s == Stages) {
      s = 0;
      phase ^= 1u;
    }
  }
#pragma unroll
  for (int i = 0; i < WN / 2; ++i)
    fenceReg(acc[0][i]);
}

} // namespace sm90
} // namespace fp8c
