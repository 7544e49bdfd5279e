// The Hopper FP8 GEMM's promotion per K block (gemm_sm90.cuh with Promote: blockwise scales,
// or fast accumulation off): the cooperative consumers' main loop that issues each K block's
// wgmmas into a second register set, releases its stage once they completed, and adds the
// block into the f32 result with its scales.
#pragma once

#include "fp8c/gemm_sm90_atrans.cuh"
#include "fp8c/gemm_sm90_block_scales.cuh"
#include "fp8c/gemm_sm90_ring.cuh"

namespace fp8c {
namespace sm90 {

/// acc += tmp * scales (wgmma accumulator layout: per 8 columns, rows row0 and row0 + 8). With
/// Scale::Block, the slice (with Dual: each of its gate and up halves, from the up weight's
/// scales for the second) starts Off columns into a 128-column block of B's scales, so each
/// 8-column group's block is known at compile time.
template <int WN, Scale S, int Off, bool Dual>
__device__ __forceinline__ void promoteAt(float (&acc)[WN / 2], const float (&tmp)[WN / 2],
                                          const PromoteScales<WN, S, Dual> &sc) {
  constexpr int kGroups = Dual ? WN / 16 : WN / 8; // 8-column groups per slice or half
#pragma unroll
  for (int j = 0; j < WN / 8; ++j) {
    if constexpr (S == Scale::Block) {
      const bool up = j >= kGroups;
      const int q = (Off + 8 * (up ? j - kGroups : j)) / 128;
      const float b = up ? sc.sbUp[q] : sc.sb[q];
      const float f0 = sc.sa0 * b, f1 = sc.sa1 * b;
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

/// promoteAt at the slice's offset into its first scale block, colBase % 128 (with Dual the
/// halves' first column, colBase / 2, % 128): a warp-uniform branch between unrolled loops.
/// Widths in whole 128-column blocks start at 0, in 64-column units at 0 or 64, the dual GEMM's
/// 96-column halves at 0, 32, 64 or 96.
template <int WN, Scale S, bool Dual>
__device__ __forceinline__ void promote(float (&acc)[WN / 2], const float (&tmp)[WN / 2],
                                        const PromoteScales<WN, S, Dual> &sc, int colBase) {
  constexpr int kWidth = Dual ? WN / 2 : WN;
  const int off = (Dual ? colBase / 2 : colBase) % 128;
  if constexpr (S != Scale::Block || kWidth % 128 == 0) {
    promoteAt<WN, S, 0, Dual>(acc, tmp, sc);
  } else if constexpr (kWidth % 64 == 0) {
    if (off == 0)
      promoteAt<WN, S, 0, Dual>(acc, tmp, sc);
    else
      promoteAt<WN, S, 64, Dual>(acc, tmp, sc);
  } else {
    static_assert(kWidth % 32 == 0, "slices in 32-column units");
    if (off == 0)
      promoteAt<WN, S, 0, Dual>(acc, tmp, sc);
    else if (off == 32)
      promoteAt<WN, S, 32, Dual>(acc, tmp, sc);
    else if (off == 64)
      promoteAt<WN, S, 64, Dual>(acc, tmp, sc);
    else
      promoteAt<WN, S, 96, Dual>(acc, tmp, sc);
  }
}

/// Tensor scales, a slice promoted in parts of PW columns: acc's columns Part * PW.. += tmp.
template <int WN, int PW, int Part>
__device__ __forceinline__ void promotePart(float (&acc)[WN / 2], const float (&tmp)[PW / 2]) {
#pragma unroll
  for (int i = 0; i < PW / 2; ++i)
    acc[Part * (PW / 2) + i] += tmp[i];
}

/// Issues the wgmmas of WN columns of stage `stage` (B rows from bOff) into `tmp` (scale-d 0:
/// overwritten), committed as one group; the stage must be full. With AT (A MN-major,
/// gemm_sm90_atrans.cuh) A comes from the fragments `f`, loaded here from the stage (aOff: the
/// lane's offset); they must stay unchanged until the group completed.
template <int WN, int BM, int BN, int Stages, Dt TA, Dt TB, bool AT>
__device__ __forceinline__ void issueColumns(float (&tmp)[1][WN / 2],
                                             const Ring<BM, BN, Stages> &ring, u32 aOff, u32 bOff,
                                             int stage, AFrags &f) {
  using R = Ring<BM, BN, Stages>;
  if constexpr (AT)
    loadAFrags(f, ring.a + stage * R::kStageA, aOff);
#pragma unroll
  for (int i = 0; i < WN / 2; ++i)
    fenceReg(tmp[0][i]);
  wgmmaFence();
  if constexpr (AT)
    stageMmaRs<WN, TA, TB>(tmp[0], f, ring.b + stage * R::kStageB + bOff, 0);
  else
    stageMma<WN, 1, TA, TB>(tmp, ring.a + stage * R::kStageA + aOff,
                            ring.b + stage * R::kStageB + bOff, 0);
  wgmmaCommit();
}

/// Issues one K block's wgmmas (WN columns) into `tmp` from ring position (s, phase), which it
/// advances, once the stage is full; committed as one group.
template <int WN, int BM, int BN, int Stages, Dt TA, Dt TB, bool AT>
__device__ __forceinline__ void issueBlock(float (&tmp)[1][WN / 2], const Ring<BM, BN, Stages> &ring,
                                           u32 aOff, u32 bOff, int &s, u32 &phase, AFrags &f) {
  mbarWait(ring.full(s), phase);
  issueColumns<WN, BM, BN, Stages, TA, TB, AT>(tmp, ring, aOff, bOff, s, f);
  if (++s == Stages) {
    s = 0;
    phase ^= 1u;
  }
}

/// After the wait that completed the block in `tmp`: pins its accumulators after the wait and
/// releases its stage (ring position r, which it advances).
template <int WN, int Stages, int Cm>
__device__ __forceinline__ void retireBlock(float (&tmp)[1][WN / 2], u32 empty, int &r, int lane) {
#pragma unroll
  for (int i = 0; i < WN / 2; ++i)
    fenceReg(tmp[0][i]);
  if (lane == 0)
    releaseStage<Cm>(empty);
  if (++r == Stages)
    r = 0;
}

/// One tile's main loop with promotion, for cooperative consumer warpgroup cw (BM = 128: rows
/// 64 cw.., aOff; BM = 64: columns, bOff), from ring position (s, phase), which it advances.
/// Per 128-wide K block: tmp = A_kb B_kb^T, then acc += tmp * scaleA[kb][row] * scaleB[nb][kb]
/// (Scale::Block: the thread's first row rowLocal within the tile, the slice's first scale block
/// nbLocal) or acc += tmp: the f32 sum of the tensor cores' per-block results, more precise
/// than their own FP8 accumulation over all of K.
/// Each block is waited for (wait_group 0) and added into acc while the tensor cores would
/// idle, unless the other warpgroup's block runs meanwhile. So the warpgroups alternate:
/// warpgroup 1 issues its first block once warpgroup 0's first one has completed (named barrier
/// 3, once per kernel: `staggered`); from then on each one's block queues behind the other's,
/// and each promotes while the other's wgmmas run. A 256-wide slice (tensor scales) holds 128
/// accumulators of its result: its K blocks go through a 128-column register set in two halves,
/// each issued, waited for and added, alternating between the warpgroups as whole blocks do.
template <int WN, int BM, int BN, int Stages, Dt TA, Dt TB, Scale S, int Cm, bool Dual,
          bool AT = false>
__device__ __forceinline__ void promotingMainLoop(float (&acc)[WN / 2],
                                                  const Ring<BM, BN, Stages> &ring, u32 aOff,
                                                  u32 bOff, int kBlocks, int &s, u32 &phase,
                                                  bool &staggered, int cw, int rowLocal,
                                                  int nbLocal, int colBase) {
  using Sc = PromoteScales<WN, S, Dual>;
  constexpr int kParts = WN > 192 ? 2 : 1;
  constexpr int PW = WN / kParts;
  static_assert(kParts == 1 || (S == Scale::Tensor && !Dual),
                "promotion in halves: tensor scales, no dual GEMM");
  const int lane = threadIdx.x % 32;
  float tmp0[1][PW / 2];
  AFrags f; // AT: the block's A fragments (both halves read them)
  int r = s; // the ring position of the block to release next
  // Blockwise scales: read from the ring stage of the block after its wgmmas completed, before
  // the stage is released.
  auto scalesOf = [&](int stage, int kb) {
    if constexpr (S == Scale::Block)
      return Sc::read(ring.scaleStage(stage), rowLocal, nbLocal, BM, kb);
    else
      return Sc{};
  };
  if (cw == 1 && !staggered)
    namedBarrier(3, 256);
  for (int kb = 0; kb < kBlocks; ++kb) {
    if constexpr (kParts == 1) {
      issueBlock<WN, BM, BN, Stages, TA, TB, AT>(tmp0, ring, aOff, bOff, s, phase, f);
      wgmmaWait<0>();
      if (cw == 0 && !staggered && kb == 0)
        namedBarrierArrive(3, 256);
      const Sc sc = scalesOf(r, kb);
      retireBlock<WN, Stages, Cm>(tmp0, ring.empty(r), r, lane);
      promote<WN, S, Dual>(acc, tmp0[0], sc, colBase);
    } else {
      // Half 0 from the next stage (advancing s), half 1 from the same stage (r), which is
      // released after it.
      issueBlock<PW, BM, BN, Stages, TA, TB, AT>(tmp0, ring, aOff, bOff, s, phase, f);
      wgmmaWait<0>();
      if (cw == 0 && !staggered && kb == 0)
        namedBarrierArrive(3, 256);
#pragma unroll
      for (int i = 0; i < PW / 2; ++i)
        fenceReg(tmp0[0][i]);
      promotePart<WN, PW, 0>(acc, tmp0[0]);
      issueColumns<PW, BM, BN, Stages, TA, TB, AT>(tmp0, ring, aOff, bOff + u32(PW) * kBK, r, f);
      wgmmaWait<0>();
      retireBlock<PW, Stages, Cm>(tmp0, ring.empty(r), r, lane);
      promotePart<WN, PW, 1>(acc, tmp0[0]);
    }
  }
  staggered = true;
}

} // namespace sm90
} // namespace fp8c
