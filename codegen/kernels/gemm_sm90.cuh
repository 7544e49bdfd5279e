// The Hopper (sm_90a) FP8 GEMM: D[M, N] = epilogue(sum_k A[m, k] B[n, k] * scales), A and B
// FP8 (e4m3 x e4m3, e5m2 x e4m3, e4m3 x e5m2), both K-major (TN), f32 accumulation.
//
// One persistent block per SM, 384 threads in three warpgroups:
//   warpgroup 0, the producer: one thread loads BM x 128 tiles of A and BN x 128 tiles of B
//     with the tensor memory accelerator (cp.async.bulk.tensor, 128-byte swizzle) into a ring of
//     `Stages` shared-memory stages, the block's tiles one after the other; each stage is
//     completed on its `full` mbarrier (transaction bytes) and handed back on its `empty`
//     mbarrier. It gives registers away (setmaxnreg.dec).
//   warpgroups 1 and 2, the consumers, in one of two schedules (Sched):
//   - Cooperative: both on every tile, rows 0-63 and 64-127 of a 128 x BN tile, or (BM = 64,
//     for small M) columns 0..BN/2-1 and BN/2.. of a 64 x BN tile. Each waits on a stage's
//     `full` barrier, issues four wgmma m64nWNk32 (K = 128 per stage) from shared memory, and
//     releases the stage once its wgmmas completed (wgmma.wait_group); with `Overlap`, one
//     stage's wgmmas stay in flight while the next stage is waited for. Then the epilogue runs
//     on the accumulators in registers, both warpgroups at once, while the tensor cores idle:
//     for a 16-bit or FP8 D (EB > 0) through shared memory and TMA stores that drain while the
//     next tile's main loop runs (gemm_sm90_store.cuh), otherwise stored from registers.
//     With `Promote` (blockwise scales, or fast accumulation off), each 128-wide K block goes
//     to a second register set and is added to the f32 result once its wgmmas completed: the
//     tensor cores' FP8 accumulation keeps fewer bits than f32 (cuBLASLt's "fast accumulation"
//     is that mode; promotion is its precise counterpart, as in DeepSeek-V3 / DeepGEMM). The
//     two warpgroups alternate their blocks, each promoting while the other's wgmmas run.
//     A 256-wide slice (tensor scales) goes through a 128-column set in two halves, each
//     issued, waited for and added, the halves alternating between the warpgroups.
//   - PingPong: each warpgroup owns whole BM x BN tiles (BM / 64 wgmma m64nBNk32 per k32 step,
//     BM * BN / 128 accumulators per thread), warpgroup w the block's tiles w, w + 2, ...; it
//     skips the ring stages of the other's tiles. The main loops alternate (turn mbarriers), so
//     one warpgroup's epilogue runs while the other's main loop keeps the tensor cores busy.
//     No promotion.
// Tiles are visited in groups of `groupM` tile rows (all tile columns of a group before the
// next group), so the A rows and B columns in use at one time stay in L2.
// Clusters (Cm = 2, __cluster_dims__(2, 1, 1)): the two blocks of a cluster work on vertically
// adjacent tiles with the same B tile; each producer loads its own A tile and half of the B tile,
// multicast into both blocks' stage (one full barrier per block counts all the bytes), and a
// stage is refilled once the consumer warps of *both* blocks released it (each arrives on the
// stage's empty barrier in both blocks). The blocks meet at a cluster barrier after the barriers
// are initialized and before either exits.
//
// bf16-A prologue (CS > 0 staging slots, gemm_sm90_cast.cuh): A is bf16 in memory; the producer
// warpgroup stages its tiles by TMA and all four of its warps cast them to FP8 into the ring's A
// tiles (quantization scale p.quantA per tensor or row, amax of A with AmaxA), so a stage's
// `full` barrier completes on B's bytes plus four warp arrivals. (Measured slower than a
// separate cast on the H200: docs/gemm.md.)
//
// Cast-ahead A (CA, gemm_sm90_cast_ahead.cuh): A is bf16 in memory; every warp casts the first
// wave's rows into an FP8 copy in global memory at entry, producer warps 1-3 cast the rest while
// the main loops run, and the producer thread waits for a tile row's rows (per-tile-row ready
// counters) before its TMA loads of them.
//
// A MN-major (AT, gemm_sm90_atrans.cuh): A is stored as A^T [K, M]; its tiles land as 128 K
// rows by 128 bytes of M, and the cooperative consumers read them with transposing
// shared-memory loads into the wgmma's register operand (tensor scales, the plain TMA-store
// epilogue, which puts the rows back in order).
//
// Scales are *inverse* scales (dequantization factors, multiplied), laid out as cuBLASLt's:
//   Scale::Tensor  scaleA[0], scaleB[0]
//   Scale::Row     scaleA[M] (per row of A), scaleB[N] (per row of B)
//   Scale::Block   scaleA: 1x128 blocks of A, [ceil(K/128)][ldsa] (M contiguous, ldsa >= M);
//                  scaleB: 128x128 blocks of B, [ceil(N/128)][ldsb] (ldsb >= ceil(K/128)).
//                  Each 128-wide K block is accumulated apart (wgmma with scale-d 0) and added
//                  to the f32 result times scaleA * scaleB of that block (needs Promote).
// Epilogue (gemm_sm90_epilogue.cuh), in this order: y = acc * scales; y += bias[n]; y = act(y);
// amax = max |y| over the valid elements (Amax 1: of the tensor, into amax[0]; 2: of each row,
// into amax[row]; atomic, NaN wins; the amax must start at 0); D = y
// rounded to D's type, or for an FP8 D, sat(rne(y * scaleD[0])). Amax 3 (kAmaxBlock) is the
// 1x128-block cast instead: y rounded to bf16, each block's scale from its amax, an FP8 D of
// sat(rne(y * scale)) with the scales and their inverses written beside it
// (gemm_sm90_block_cast.cuh).
//
// With Dual (gemm_sm90_dual.cuh), B is two tensors of N rows (gate: mapB, up: mapB2, scales
// scaleB and scaleB2) and D[m, n] = swiglu(gate[m, n], up[m, n]): each stage loads BN / 2 rows of
// each, and the epilogue stores BN / 2 columns per tile.
//
// With XO != 0 (gemm_sm90_store_aux.cuh), the TMA-store epilogue of an FP8 D also writes the
// pre-activation in bf16 (mapAux) and D transposed (mapDT), or takes the backward's gelu_grad
// of the result with a saved input (p.epiIn) and the column sums of that (p.colPart); the maps
// are unused otherwise. With XO == kXoResidual (gemm_sm90_residual.cuh), the epilogue adds a
// bf16 input (p.epiIn) to its value before the amax, cast and store, for any D.
//
// With EW (gemm_sm90_offload.cuh; cooperative 128 x 128 tiles), that extra-output epilogue runs
// on warps 1-3 of the producer warpgroup: the consumers hand each tile over in bf16 through two
// shared-memory tile slots and go on with the next tile's main loop.
//
// With a `Side` Spec (gemm_sm90_side.cuh), warps 1-3 of the producer warpgroup run an
// independent cast-transpose of the plan (that launch's Spec and Args, `side`) beside the main
// loops, in kSideSharedBytes at the end of the dynamic shared memory.
//
// Tails: TMA reads outside [M, K] / [N, K] as zeros (the K tail adds nothing); TMA stores clip
// at M and N, register stores are predicated on row < M and col < N. Requirements (checked on the
// host, runtime/gpu/GemmSm90): A, B 16-byte aligned with row pitches a multiple of 16 bytes; D
// 16-byte aligned.
//
// wgmma fencing: the accumulators are touched by nothing between a stage's wgmma.fence and the
// wait_group that completes its wgmmas (zeroed before the tile's first fence, read after the last
// wait, fenceReg pinning the order), so ptxas never has to insert warpgroup.arrive (C7519, which
// NVRTC 13.0 was seen to crash on).
//
// Compiled by NVRTC for sm_90a with no toolkit headers; the generated source (codegen/gemm/
// GemmSource.cpp) defines a config struct of named members and instantiates gemmSm90<Config> in
// an extern "C" __global__ __launch_bounds__(384, 1) kernel.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_atrans.cuh"
#include "fp8c/gemm_sm90_block_cast.cuh"
#include "fp8c/gemm_sm90_block_scales.cuh"
#include "fp8c/gemm_sm90_cast.cuh"
#include "fp8c/gemm_sm90_cast_ahead.cuh"
#include "fp8c/gemm_sm90_defs.cuh"
#include "fp8c/gemm_sm90_dual.cuh"
#include "fp8c/gemm_sm90_epilogue.cuh"
#include "fp8c/gemm_sm90_offload.cuh"
#include "fp8c/gemm_sm90_promote.cuh"
#include "fp8c/gemm_sm90_residual.cuh"
#include "fp8c/gemm_sm90_ring.cuh"
#include "fp8c/gemm_sm90_side.cuh"
#include "fp8c/gemm_sm90_store.cuh"
#include "fp8c/gemm_sm90_store_aux.cuh"
#include "fp8c/gemm_sm90_wgmma.cuh"

namespace fp8c {
namespace sm90 {

// --- the consumers -------------------------------------------------------------------------------

/// The epilogue of one consumer warpgroup's 64 x WN slice at (rowBase, colBase): with `Dual`, the
/// swiglu of its gate and up halves (gemm_sm90_dual.cuh; scales gateScale = tensorScale and
/// upScale) stored as WN / 2 columns from colBase / 2; with the residual add (kXoResidual), the
/// sums through the TMA-store or register epilogue; otherwise the extra-output epilogue
/// (XO != 0), the TMA-store epilogue (EB > 0) or the register epilogue.
template <int WN, int EB, Dt TD, Scale S, bool HasBias, Dt TBias, Act A, int Amax, int XO,
          bool InAhead, bool Dual, bool AT = false>
__device__ __forceinline__ void finishSlice(float (&acc)[WN / 2], const GemmParams &p,
                                            const TmaDesc &mapD, const TmaDesc &mapAux,
                                            const TmaDesc &mapDT, u32 epiBuf, u32 colSumBuf,
                                            int &seq, int bar, int rowBase, int colBase,
                                            const float (&sa)[2], const float4 *colBuf,
                                            float tensorScale, float upScale, float scaleD) {
  // The second stage of the dual, residual and block-cast epilogues gets values already
  // dequantized (A's scale included): it multiplies by one.
  const float unitSa[2] = {1.0f, 1.0f};
  if constexpr (Dual) {
    float h[WN / 4];
    swigluHalves<WN, S>(acc, h, tensorScale, upScale, sa, colBuf);
    // h is scaled: row scales were applied above (the epilogue multiplies by 1), block scales
    // by promotion.
    constexpr Scale SH = S == Scale::Row ? Scale::Tensor : S;
    if constexpr (EB > 0)
      epilogueTma<WN / 2, EB, TD, SH, HasBias, TBias, A, Amax>(h, p, mapD, epiBuf, seq, bar,
                                                               rowBase, colBase / 2, unitSa, colBuf,
                                                               1.0f, scaleD);
    else
      epilogue<WN / 2, TD, SH, HasBias, TBias, A, Amax>(h, p, rowBase, colBase / 2, unitSa, colBuf,
                                                        1.0f, scaleD);
  } else if constexpr (XO == kXoResidual) {
    addResidual<WN, S, HasBias, A>(acc, p, rowBase, colBase, sa, colBuf, tensorScale);
    if constexpr (EB > 0)
      epilogueTma<WN, EB, TD, Scale::Tensor, false, TBias, Act::None, Amax>(
          acc, p, mapD, epiBuf, seq, bar, rowBase, colBase, unitSa, colBuf, 1.0f, scaleD);
    else
      epilogue<WN, TD, Scale::Tensor, false, TBias, Act::None, Amax>(acc, p, rowBase, colBase, unitSa,
                                                                     colBuf, 1.0f, scaleD);
  } else if constexpr (Amax == kAmaxBlock) {
    // The values leave FP8-ready (scaled per block): stored with scale 1, nothing else to do.
    blockCastSlice<WN, TD, S, HasBias, A>(acc, p, rowBase, colBase, sa, colBuf, tensorScale);
    if constexpr (EB > 0)
      epilogueTma<WN, EB, TD, Scale::Tensor, false, TBias, Act::None, kAmaxNone, true>(
          acc, p, mapD, epiBuf, seq, bar, rowBase, colBase, unitSa, colBuf, 1.0f, 1.0f);
    else
      epilogue<WN, TD, Scale::Tensor, false, TBias, Act::None, kAmaxNone>(
          acc, p, rowBase, colBase, unitSa, colBuf, 1.0f, 1.0f);
  } else if constexpr (XO != 0) {
    epilogueTmaAux<WN, EB, TD, S, HasBias, TBias, A, Amax, XO, InAhead>(
        acc, p, mapD, mapAux, mapDT, epiBuf, colSumBuf, seq, bar, rowBase, colBase, sa, colBuf,
        tensorScale, scaleD);
  } else if constexpr (EB > 0) {
    epilogueTma<WN, EB, TD, S, HasBias, TBias, A, Amax, false, AT>(
        acc, p, mapD, epiBuf, seq, bar, rowBase, colBase, sa, colBuf, tensorScale, scaleD);
  } else {
    epilogue<WN, TD, S, HasBias, TBias, A, Amax>(acc, p, rowBase, colBase, sa, colBuf,
                                                tensorScale, scaleD);
  }
}

/// Cooperative consumer warpgroup cw (0 or 1): BM = 128, rows 64 cw.. of every tile; BM = 64,
/// columns cw * BN / 2.. of every tile. With EW (the offloaded epilogue) the warpgroup only
/// writes its slice's bf16 values into the tile's slot (gemm_sm90_offload.cuh).
template <int BM, int BN, int Stages, Dt TA, Dt TB, Dt TD, Scale S, bool HasBias, Dt TBias,
          Act A, int Amax, bool Overlap, bool Promote, int Cm, int EB, int XO, bool Dual, bool EW,
          bool AT>
__device__ __forceinline__ void consumeCooperative(const GemmParams &p, const Ring<BM, BN, Stages> &ring,
                                                   const TmaDesc &mapD, const TmaDesc &mapAux,
                                                   const TmaDesc &mapDT, float4 *colBuf, int cw,
                                                   float tensorScale, float upScale,
                                                   float scaleD) {
  constexpr int WN = BM == 128 ? BN : BN / 2;
  using In = EpilogueInputs<WN, 1, S, HasBias, TBias, Dual>;
  const int t = threadIdx.x % 128;
  const TileWalk<Cm> walk(p);
  int s = 0;
  u32 phase = 0;
  int seq = 0;            // TMA-store chunks issued by this warpgroup
  int tileSeq = 0;        // EW: the block's tiles so far (tile slot and phase)
  bool staggered = false; // promotion: the warpgroups' K blocks alternate (see below)
  float acc[1][WN / 2];
  for (int u = walk.first; u < walk.units; u += walk.stride) {
    int tm, tn;
    walk.coords(u, p, tm, tn);
    const int rowBase = tm * BM + (BM == 128 ? cw * 64 : 0);
    const int colBase = tn * BN + (BM == 128 ? 0 : cw * WN);
    // With A MN-major (AT, BM = 128): the lane's ldmatrix offset into the stage's A tile, in
    // the 16-byte unit of its warp's 16 rows.
    const u32 aOff = AT ? aTransLaneOffset(t % 32, 4 * cw + t / 32)
                        : BM == 128 ? u32(cw) * 64 * kBK : 0u;
    const u32 bOff = BM == 128 ? 0u : u32(cw) * WN * kBK;
    In in;
    in.load(p, rowBase, colBase);
    // (The offloaded epilogue's warps prefetch their own units' input, closer to its use.)
    if constexpr (!EW && (XO & (kXoGeluGrad | kXoResidual)) != 0)
      prefetchEpilogueInput<WN, 64>(p, rowBase, colBase);
#pragma unroll
    for (int i = 0; i < WN / 2; ++i)
      acc[0][i] = 0.0f;
    if constexpr (Promote) {
      // Blockwise scales: the thread's first row within the tile and the slice's first 128-column
      // scale block within the tile's (gemm_sm90_block_scales.cuh).
      const int rowLocal = rowBase - tm * BM + (t / 32) * 16 + (t % 32) / 4;
      const int nbLocal = Dual ? 0 : colBase / 128 - (tn * BN) / 128;
      promotingMainLoop<WN, BM, BN, Stages, TA, TB, S, Cm, Dual, AT>(
          acc[0], ring, aOff, bOff, p.kBlocks, s, phase, staggered, cw, rowLocal, nbLocal, colBase);
    } else if constexpr (AT) {
      mainLoopATrans<WN, BM, BN, Stages, TA, TB, Cm>(acc, ring, aOff, bOff, p.kBlocks, s, phase);
    } else {
      mainLoop<WN, 1, BM, BN, Stages, TA, TB, Overlap, Cm>(acc, ring, aOff, bOff, p.kBlocks, s,
                                                          phase, [] {});
    }
    in.stage(colBuf, 1 + cw);
    if constexpr (EW) {
      // The slot is free once the epilogue warps have read its previous tile (the first two
      // waits pass at once), and full once all 256 consumer threads have written theirs.
      const int slot = tileSeq & 1;
      mbarWait(ring.yEmpty(slot), (u32(tileSeq >> 1) & 1u) ^ 1u);
      stageSliceY<WN, S, HasBias, (XO & kXoAux) != 0>(acc[0], ring.tileSlot(slot) + u32(cw) * (kTileSlotBytes / 2),
                                  in.sa[0], colBuf, tensorScale);
      mbarArrive(ring.yFull(slot));
      ++tileSeq;
    } else {
      finishSlice<WN, EB, TD, S, HasBias, TBias, A, Amax, XO, (WN <= 192), Dual, AT>(
          acc[0], p, mapD, mapAux, mapDT, ring.epiBuffer(cw), ring.colSumBuffer(cw), seq, 1 + cw,
          rowBase, colBase, in.sa[0], colBuf, tensorScale, upScale, scaleD);
    }
  }
  if (EB > 0 && t == 0)
    bulkWaitAll(); // the chunk buffers live in shared memory: no exit before the stores read them
}

/// Ping-pong consumer warpgroup cw (0 or 1): the block's tiles are blockIdx.x + i * gridDim.x,
/// i = 0, 1, ...; this warpgroup takes those with i % 2 == cw, whole (BM / 64 slices of 64 rows,
/// all BN columns). The producer fills the ring with every tile's kBlocks stages in the block's
/// order, so after each tile the warpgroup skips the other's kBlocks stages.
/// The main loops alternate: warpgroup cw waits on turn[cw] before its tile's first stage and
/// arrives on turn[1 - cw] once its tile's last stage is issued (turn[0] starts completed). So
/// one main loop feeds the tensor cores while the other warpgroup runs its epilogue, and the
/// ring's parity waits stay exact: a `full` barrier's parity names the awaited phase only while
/// the barrier is at most one phase behind, i.e. once the stage's previous fill, which belongs
/// to the other warpgroup's tile at the start of a tile, has landed; the other warpgroup passed
/// all of its tile's full waits before it handed over the turn. (Without the turns, a warpgroup
/// quick to finish its epilogue could take a stage still holding the other's tile for its own.)
template <int BM, int BN, int Stages, Dt TA, Dt TB, Dt TD, Scale S, bool HasBias, Dt TBias,
          Act A, int Amax, bool Overlap, int Cm, int EB, int XO, bool Dual>
__device__ __forceinline__ void consumePingPong(const GemmParams &p, const Ring<BM, BN, Stages> &ring,
                                                const TmaDesc &mapD, const TmaDesc &mapAux,
                                                const TmaDesc &mapDT, float4 *colBuf, int cw,
                                                float tensorScale, float upScale, float scaleD) {
  constexpr int kSlices = BM / 64;
  using In = EpilogueInputs<BN, kSlices, S, HasBias, TBias, Dual>;
  const TileWalk<Cm> walk(p);
  const u32 turnMine = ring.turn(cw), turnOther = ring.turn(1 - cw);
  int s = (cw * p.kBlocks) % Stages;
  u32 phase = u32((cw * p.kBlocks) / Stages) & 1u;
  u32 turnPhase = 0;
  int seq = 0; // TMA-store chunks issued by this warpgroup
  float acc[kSlices][BN / 2];
  for (int u = walk.first + cw * walk.stride; u < walk.units; u += 2 * walk.stride) {
    int tm, tn;
    walk.coords(u, p, tm, tn);
    In in;
    in.load(p, tm * BM, tn * BN);
    if constexpr ((XO & (kXoGeluGrad | kXoResidual)) != 0)
      prefetchEpilogueInput<BN, BM>(p, tm * BM, tn * BN);
#pragma unroll
    for (int h = 0; h < kSlices; ++h)
#pragma unroll
      for (int i = 0; i < BN / 2; ++i)
        acc[h][i] = 0.0f;
    mbarWait(turnMine, turnPhase);
    turnPhase ^= 1u;
    mainLoop<BN, kSlices, BM, BN, Stages, TA, TB, Overlap, Cm>(
        acc, ring, 0u, 0u, p.kBlocks, s, phase, [&] {
          if (threadIdx.x % 128 == 0)
            mbarArrive(turnOther);
        });
    in.stage(colBuf, 1 + cw);
#pragma unroll
    for (int h = 0; h < kSlices; ++h)
      finishSlice<BN, EB, TD, S, HasBias, TBias, A, Amax, XO, false, Dual>(
          acc[h], p, mapD, mapAux, mapDT, ring.epiBuffer(cw), ring.colSumBuffer(cw), seq, 1 + cw,
          tm * BM + 64 * h, tn * BN, in.sa[h], colBuf, tensorScale, upScale, scaleD);
    // The other warpgroup's tile.
    const int skip = s + p.kBlocks;
    s = skip % Stages;
    phase ^= u32(skip / Stages) & 1u;
  }
  if (EB > 0 && threadIdx.x % 128 == 0)
    bulkWaitAll(); // the chunk buffers live in shared memory: no exit before the stores read them
}

// --- the kernel body -----------------------------------------------------------------------------

/// The kernel body of one config: `Cfg` is a struct of named static constexpr members (the
/// generated source defines it, codegen/gemm/GemmSource.cpp):
///   kBM, kBN, kStages                tile rows (128 or 64), tile columns, ring stages
///   kTypeA, kTypeB, kTypeD           Dt of A, B and D
///   kScale                           Scale::Tensor, Row or Block
///   kHasBias, kTypeBias              the bias add and its Dt
///   kAct                             the activation
///   kAmax                            kAmaxNone, kAmaxTensor, kAmaxRows or kAmaxBlock
///   kOverlap, kPromote               one stage's wgmmas in flight; promotion per K block
///   kSchedule                        Sched::Cooperative or PingPong
///   kClusterM                        blocks per cluster along M (1 or 2)
///   kCastSlots, kAmaxA               the bf16-A prologue's staging slots (0: none); amax of A
///   kEpilogueBuffers                 the TMA-store epilogue's chunk buffers (0: registers)
///   kExtraOutputs                    the XO bits (gemm_sm90_store_aux.cuh, kXo*)
///   kDual, kEpilogueWarps, kCastAhead, kATransposed
///   Side, kSideBuffers               the side launch's Spec (NoSide: none) and its buffers
template <class Cfg>
__device__ __forceinline__ void
gemmSm90(const TmaDesc &mapA, const TmaDesc &mapB, const TmaDesc &mapB2, const TmaDesc &mapD,
         const TmaDesc &mapAux, const TmaDesc &mapDT, const TmaDesc &mapSA, const TmaDesc &mapSB,
         const TmaDesc &mapSB2, const GemmParams &p,
         const Args<Cfg::kSideBuffers> *side = nullptr) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, Stages = Cfg::kStages;
  constexpr Dt TA = Cfg::kTypeA, TB = Cfg::kTypeB, TD = Cfg::kTypeD;
  constexpr Scale S = Cfg::kScale;
  constexpr bool HasBias = Cfg::kHasBias;
  constexpr Dt TBias = Cfg::kTypeBias;
  constexpr Act A = Cfg::kAct;
  constexpr int Amax = Cfg::kAmax;
  constexpr bool Overlap = Cfg::kOverlap, Promote = Cfg::kPromote;
  constexpr Sched Sc = Cfg::kSchedule;
  constexpr int Cm = Cfg::kClusterM, CS = Cfg::kCastSlots;
  constexpr bool AmaxA = Cfg::kAmaxA;
  constexpr int EB = Cfg::kEpilogueBuffers, XO = Cfg::kExtraOutputs;
  constexpr bool Dual = Cfg::kDual, EW = Cfg::kEpilogueWarps, CA = Cfg::kCastAhead;
  using Side = typename Cfg::Side;
  constexpr int SideN = Cfg::kSideBuffers;
  constexpr bool AT = Cfg::kATransposed;
  constexpr bool kPingPong = Sc == Sched::PingPong;
  constexpr bool kSide = HasSide<Side>::value;
  // The side launch (gemm_sm90_side.cuh) takes the producer's warps 1-3.
  static_assert(!kSide || (CS == 0 && !CA && !EW),
                "a side launch: no bf16-A prologue, cast-ahead A or offloaded epilogue");
  static_assert(BM == 128 || BM == 64, "BM");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN");
  static_assert(S != Scale::Block || Promote, "blockwise scales are promoted per K block");
  static_assert(!kPingPong || !Promote, "ping-pong: no promotion (cooperative only)");
  static_assert(Cm == 1 || Cm == 2, "clusters of 1 or 2 blocks along M");
  // The bf16-A prologue (CS staging slots, gemm_sm90_cast.cuh): tensor or row quantization
  // scales, single blocks.
  static_assert(CS == 0 || (CS >= 2 && Cm == 1 && S != Scale::Block),
                "bf16-A prologue: CS >= 2 slots, tensor or row scales, no clusters");
  static_assert(CS > 0 || CA || !AmaxA, "amax of A is taken by the bf16-A prologue or cast-ahead A");
  // Cast-ahead A (gemm_sm90_cast_ahead.cuh): tensor or row quantization scales, single blocks,
  // the producer's warps 1-3 free (no bf16-A prologue, no offloaded epilogue).
  static_assert(!CA || (CS == 0 && !EW && Cm == 1 && S != Scale::Block),
                "cast-ahead A: tensor or row scales, single blocks, no bf16-A prologue or "
                "offloaded epilogue");
  // The TMA-store epilogue (EB chunk buffers per consumer warpgroup): a 16-bit or FP8 D, whole
  // chunks (128 bytes of a row) per warpgroup.
  static_assert(EB == 0 || (XO & kXoOutputs) != 0 || ((TD == Dt::BF16 || TD == Dt::F16 || isFp8(TD)) &&
                            (kPingPong || BM == 128 ? BN : BN / 2) / (Dual ? 2 : 1) %
                                    epiChunkCols<TD>() ==
                                0),
                "TMA-store epilogue: a 16-bit or FP8 D and whole 128-byte chunks per warpgroup");
  // Extra outputs (gemm_sm90_store_aux.cuh): an FP8 D (or a bf16 D beside the bf16
  // pre-activation alone) through TMA stores, in units of 16 KB (with the pre-activation) or 8 KB.
  static_assert((XO & kXoOutputs) == 0 ||
                    ((isFp8(TD) || (XO == kXoAux && TD == Dt::BF16 && !EW)) &&
                     (EW || EB == xoUnitChunks<XO>() || EB == 2 * xoUnitChunks<XO>())),
                "extra epilogue outputs: an FP8 D (a bf16 one beside the bf16 pre-activation "
                "alone) and one or two units per warpgroup");
  // The residual add (gemm_sm90_residual.cuh): alone among the XO bits, not in the dual GEMM.
  static_assert((XO & kXoResidual) == 0 || (XO == kXoResidual && !Dual),
                "the residual add combines with no extra outputs and not with the dual GEMM");
  // The 1x128-block cast of D (gemm_sm90_block_cast.cuh): whole blocks per warpgroup slice, an
  // FP8 D, no extra outputs, residual or dual GEMM.
  static_assert(Amax != kAmaxBlock ||
                    (isFp8(TD) && (kPingPong || BM == 128 ? BN : BN / 2) % 128 == 0 && XO == 0 &&
                     !Dual),
                "block cast: an FP8 D, slices of whole 128-column blocks, no extra outputs");
  // The offloaded epilogue (gemm_sm90_offload.cuh): the extra-output epilogue of cooperative
  // 128 x 128 tiles in single blocks, one unit buffer per epilogue warp.
  static_assert(!EW || (!kPingPong && BM == 128 && BN == 128 && Cm == 1 && CS == 0 && !Dual &&
                        (XO & kXoOutputs) != 0 && EB == 1 &&
                        (Amax == kAmaxNone || Amax == kAmaxTensor)),
                "offloaded epilogue: cooperative 128 x 128 single blocks, extra outputs, one unit "
                "buffer, no amax or a tensor amax");
  // The e4m3 saved input's derivative tables live in the offloaded epilogue's warps only.
  static_assert((XO & kXoGeluGradFp8) == 0 || (EW && (XO & kXoGeluGrad) != 0),
                "the e4m3 saved input of gelu_grad (kXoGeluGradFp8): the offloaded epilogue only");
  // A MN-major (gemm_sm90_atrans.cuh): FP8 A loaded as it is, the cooperative 128-row tiles of
  // single blocks, tensor scales, and the plain TMA-store epilogue (its rows relabelled).
  static_assert(!AT || (!kPingPong && BM == 128 && Cm == 1 && CS == 0 && !CA && !EW && !Dual &&
                        !kSide && XO == 0 && EB > 0 && S == Scale::Tensor &&
                        (Amax == kAmaxNone || Amax == kAmaxTensor)),
                "A MN-major: cooperative 128-row single blocks, tensor scales, FP8 A, the plain "
                "TMA-store epilogue with at most a tensor amax");
  static_assert(!kPingPong || BM * BN <= 128 * 128,
                "ping-pong: a warpgroup's tile holds at most 128 accumulators per thread");
  // The dual GEMM (gemm_sm90_dual.cuh): gate and up halves of every warpgroup's columns, tensor,
  // row or block scales, the swiglu as the epilogue's only operation, single blocks loading A
  // as FP8.
  static_assert(!Dual || ((kPingPong || BM == 128) &&
                          (S != Scale::Block || !kPingPong) && !HasBias && A == Act::None &&
                          XO == 0 && CS == 0 && Cm == 1 && BN % 32 == 0),
                "dual GEMM: whole tiles per warpgroup, block scales only cooperative, no "
                "bias, activation or extra outputs, no bf16-A prologue or cluster");
  // Cooperative BM = 128: consumer c takes rows 64c..64c+63 and all BN columns. BM = 64: both
  // take the 64 rows, consumer c the columns c*BN/2..; half the tensor work per B byte.
  constexpr int WN = kPingPong || BM == 128 ? BN : BN / 2;
  static_assert(WN == 64 || WN == 96 || WN == 128 || WN == 192 || WN == 256, "WN");
  using R = Ring<BM, BN, Stages>;
  // Registers: __launch_bounds__(384, 1) caps every thread at 168 at entry; the producer gives
  // back all but 40 (56 when it casts A or runs a side launch), the consumers take the rest
  // (multiples of 8). With the
  // offloaded epilogue both keep 168: its warps spilled at 136 (the 128 x 128 consumers need
  // less than 168 even when promoting). (Two blocks per SM, 80 at entry, was tried: ptxas
  // refuses the wgmma with 80 registers, C7602.)
  constexpr int kProducerRegs = EW ? 168 : kSide ? 72 : CS > 0 || CA ? 56 : 40;
  constexpr int kConsumerRegs = ((168 * 384 - 128 * kProducerRegs) / 256) / 8 * 8;

  extern __shared__ u8 smemRaw[];
  const R ring(smemAddr(smemRaw), CS, EB, (XO & kXoColSum) != 0, S == Scale::Block, Dual, EW);

  // Broadcast from lane 0, so the compiler knows it is warp-uniform: the ring positions and
  // descriptors derived from it then live in uniform registers instead of being computed per
  // thread and moved over (R2UR) before every wgmma.
  const int wg = __shfl_sync(0xFFFFFFFFu, int(threadIdx.x) / 128, 0);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Stages; ++s) {
      // Filled by TMA (one arrival with the transaction bytes), and with the bf16-A prologue
      // also by the four producer warps that write the cast A tile.
      mbarInit(ring.full(s), CS > 0 ? 5 : 1);
      // A stage is released by each warp that read it: all 8 consumer warps (cooperative) or
      // the 4 of the warpgroup that owns its tile (ping-pong), in every block of the cluster.
      mbarInit(ring.empty(s), (kPingPong ? kConsumerWarps / 2 : kConsumerWarps) * Cm);
    }
    mbarInit(ring.turn(0), 1);
    mbarInit(ring.turn(1), 1);
#pragma unroll
    for (int j = 0; j < CS; ++j) {
      mbarInit(ring.stagingFull(j), 1);
      mbarInit(ring.stagingEmpty(j), 4);
    }
    if constexpr (EW)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        mbarInit(ring.yFull(j), kConsumerWarps * 32); // every consumer thread
        mbarInit(ring.yEmpty(j), 4);                  // one arrival per 64 x 64 unit
      }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    mbarArrive(ring.turn(0)); // consumer warpgroup 0 takes the first turn
  }
  // With a cluster, the other blocks' producers and consumers use this block's barriers.
  if constexpr (Cm > 1)
    clusterSync();
  else
    __syncthreads();
  // Launched as a programmatic dependent of the previous kernel (GemmSm90Runner::run's
  // `dependent`), the block got here while that kernel may still run: every global access
  // below (A, the scales, the outputs) waits for it. Otherwise a no-op.
  waitForPrerequisiteGrids();
  // Cast-ahead A: the first wave's rows, by every warp (phase 1).
  u32 castMag = 0;
  if constexpr (CA)
    castMag = castAheadFirstWave<BM, TA, S, AmaxA>(p);

  if (wg == 0) {
    // Producer: every tile of the block in order, whichever warpgroup consumes it.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kProducerRegs));
    if constexpr (CS > 0) {
      castProducer<BM, BN, Stages, CS, TA, S, AmaxA>(mapA, mapB, p, ring);
    } else if (CA && threadIdx.x >= 32) {
      if constexpr (CA)
        castAheadRest<BM, TA, S, AmaxA>(p, int(threadIdx.x) / 32 - 1, castMag);
    } else if (EW && threadIdx.x >= 32) {
      if constexpr (EW)
        offloadedEpilogue<BM, BN, Stages, TD, A, Amax, XO>(
            p, ring, mapD, mapAux, mapDT, smemAddr(smemRaw) + dynamicSharedBytes() - kEpilogueTableBytes,
            int(threadIdx.x) / 32 - 1);
    } else if (kSide && threadIdx.x >= 32) {
      if constexpr (kSide)
        sideCastTranspose<Side, SideN>(*side, smemRaw + dynamicSharedBytes() - kSideSharedBytes,
                                       int(threadIdx.x) / 32 - 1);
    } else if (threadIdx.x == 0) {
      tmaPrefetchMap(&mapA);
      tmaPrefetchMap(&mapB);
      if constexpr (S == Scale::Block) {
        tmaPrefetchMap(&mapSA);
        tmaPrefetchMap(&mapSB);
        if constexpr (Dual)
          tmaPrefetchMap(&mapSB2);
      }
      if constexpr (Dual)
        tmaPrefetchMap(&mapB2);
      const TileWalk<Cm> walk(p);
      int s = 0;
      u32 phase = 0;
      int castTm = -1; // cast-ahead A: the tile row last seen complete
      for (int u = walk.first; u < walk.units; u += walk.stride) {
        int tm, tn;
        walk.coords(u, p, tm, tn);
        if constexpr (CA)
          if (tm != castTm) {
            waitTileRowCast<BM>(p, tm);
            castTm = tm;
          }
        for (int kb = 0; kb < p.kBlocks; ++kb) {
          // The stage is free once every consumer warp of the cluster that reads it released
          // it (the other blocks' multicast writes into this block's stage too).
          mbarWait(ring.empty(s), phase ^ 1u);
          mbarExpectTx(ring.full(s), R::kStageA + R::kStageB +
                                         (S == Scale::Block ? blockScaleTxBytes<BM, Dual>() : 0u));
          // A MN-major: its tile is 128 rows of K by BM bytes of M.
          if constexpr (AT)
            tmaLoad2d(ring.a + s * R::kStageA, &mapA, ring.full(s), tm * BM, kb * kBK);
          else
            tmaLoad2d(ring.a + s * R::kStageA, &mapA, ring.full(s), kb * kBK, tm * BM);
          if constexpr (S == Scale::Block) {
            // The block's scales: A's rows of the tile, B's two 128-column blocks from the
            // tile's first (gemm_sm90_block_scales.cuh).
            tmaLoad2d(ring.scaleStage(s), &mapSA, ring.full(s), tm * BM, kb);
            // The dual GEMM: the gate weight's blocks from the tile's first gate column, then
            // the up weight's.
            const int nb0 = (Dual ? tn * (BN / 2) : tn * BN) / 128;
            tmaLoad2d(ring.scaleStage(s) + BM * 4, &mapSB, ring.full(s), kb & ~3, nb0);
            if constexpr (Dual)
              tmaLoad2d(ring.scaleStage(s) + BM * 4 + 128, &mapSB2, ring.full(s), kb & ~3, nb0);
          }
          if constexpr (Dual) {
            // The gate rows of the tile's output columns, then the same rows of up.
            tmaLoad2d(ring.b + s * R::kStageB, &mapB, ring.full(s), kb * kBK, tn * (BN / 2));
            tmaLoad2d(ring.b + s * R::kStageB + R::kStageB / 2, &mapB2, ring.full(s), kb * kBK,
                      tn * (BN / 2));
          } else if constexpr (Cm == 1) {
            tmaLoad2d(ring.b + s * R::kStageB, &mapB, ring.full(s), kb * kBK, tn * BN);
          } else {
            // This block's 1 / Cm of the B tile (mapB's box is BN / Cm rows), to every block.
            tmaLoad2dMulticast(ring.b + s * R::kStageB + u32(walk.rank) * (R::kStageB / Cm),
                               &mapB, ring.full(s), kb * kBK, tn * BN + walk.rank * (BN / Cm),
                               u16((1 << Cm) - 1));
          }
          if (++s == Stages) {
            s = 0;
            phase ^= 1u;
          }
        }
      }
      if constexpr (CA)
        finishCastAhead(p);
    }
  } else {
    // Consumers.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kConsumerRegs));
    // Tensor scales: B's (and the up weight's) here, A's in EpilogueInputs::sa; the epilogue
    // multiplies by one, then the other (finishPair).
    float tensorScale = 1.0f, upScale = 1.0f, scaleD = 1.0f;
    if constexpr (S == Scale::Tensor)
      tensorScale = p.scaleB[0];
    if constexpr (Dual && S == Scale::Tensor)
      upScale = p.scaleB2[0];
    if constexpr (isFp8(TD) && Amax != kAmaxBlock)
      scaleD = p.scaleD[0];
    if constexpr (kPingPong)
      consumePingPong<BM, BN, Stages, TA, TB, TD, S, HasBias, TBias, A, Amax, Overlap, Cm, EB, XO,
                      Dual>(p, ring, mapD, mapAux, mapDT, ring.colBuffer(smemRaw, wg - 1), wg - 1,
                            tensorScale, upScale, scaleD);
    else
      consumeCooperative<BM, BN, Stages, TA, TB, TD, S, HasBias, TBias, A, Amax, Overlap,
                         Promote, Cm, EB, XO, Dual, EW, AT>(p, ring, mapD, mapAux, mapDT,
                                                    ring.colBuffer(smemRaw, wg - 1), wg - 1,
                                                    tensorScale, upScale, scaleD);
  }
  // No block may exit while another block of its cluster can still arrive on its barriers.
  if constexpr (Cm > 1)
    clusterSync();
  // Every epilogue (the consumers', or the offloaded one on the producer's warps) has added its
  // amax by now.
  if (p.pushHistory != nullptr)
    pushAmaxWhenLast(p);
}

} // namespace sm90
} // namespace fp8c
