// The blockwise (1x128 A, 128x128 B) scales of the Hopper FP8 GEMM's promotion (gemm_sm90.cuh).
// The producer loads each stage's scales by TMA beside its A and B tiles, completing on the
// stage's `full` barrier: A's BM row scales of the stage's K block (a box of BM x 1 of the
// [kBlocks][ldsa] grid) and B's scales of the two 128-column blocks from the tile's first (a box
// of 4 K blocks x 2 of the [nBlocks][ldsb] grid starting at K block kb & ~3: a box must start
// 16-byte aligned in its inner dimension, the H200 raised an illegal instruction otherwise;
// the consumers read element kb & 3 of each row).
// A consumer reads the four it needs with ld.shared once the block's wgmmas completed, before
// it releases the stage.
// Why not the consumers' own loads: global loads into registers cost a quarter of the kernel's
// time on an H200 (0.81-0.88x of cuBLASLt with them, loaded one or two blocks ahead; 1.11x with
// constant scales), and cp.async into per-thread shared slots cost more (0.66-0.71x). Our
// reading: the wgmma fence before the next block orders the warp's pending register and
// shared-memory writes, so each load in flight held the next wgmmas for an L2 round trip.
#pragma once

#include "fp8c/gemm_sm90_defs.cuh"

namespace fp8c {
namespace sm90 {

/// The bytes of one stage's scales in the ring: BM floats of A, then B's 4 x 2 floats padded
/// to 128 bytes (TMA writes shared memory at 128-byte aligned addresses); the dual GEMM's up
/// weight's box after them.
template <int BM, bool Dual = false> __host__ __device__ constexpr u32 blockScaleStageBytes() {
  return u32(BM) * 4u + (Dual ? 256u : 128u);
}
/// The bytes TMA writes into them per stage (the stage's `full` barrier counts them).
template <int BM, bool Dual = false> __host__ __device__ constexpr u32 blockScaleTxBytes() {
  return u32(BM) * 4u + (Dual ? 64u : 32u);
}

/// The scales of one 128-wide K block for promotion: with Scale::Block, A's 1x128 block scales
/// of the thread's two rows and B's 128x128 block scale of each 128-column block that the
/// warpgroup's WN columns touch (colBase % 128 is 0 or 64: a 192-wide slice spans two blocks,
/// split at column 128 or 64); otherwise 1.
/// With Dual (the dual GEMM, gemm_sm90_dual.cuh), sb holds the gate weight's two blocks from
/// the tile's first gate column and sbUp the up weight's: each WN / 2-column half spans at most
/// two 128-column blocks.
template <int WN, Scale S, bool Dual = false> struct PromoteScales {
  static constexpr int kSb = Dual ? 2 : WN % 128 == 0 ? WN / 128 : (WN + 64) / 128;
  static_assert(kSb <= 2, "a promoting slice spans at most two B scale blocks");
  static_assert(!Dual || WN / 2 <= 128, "a dual half spans at most two B scale blocks");
  float sa0 = 1.0f, sa1 = 1.0f, sb[kSb], sbUp[kSb];
  __device__ __forceinline__ PromoteScales() {
#pragma unroll
    for (int q = 0; q < kSb; ++q)
      sb[q] = sbUp[q] = 1.0f;
  }
  /// Reads K block kb's from a stage's scales at shared address `stage`: rowLocal is the
  /// thread's first row within the tile, nbLocal the slice's first B block relative to the
  /// tile's.
  __device__ __forceinline__ static PromoteScales read(u32 stage, int rowLocal, int nbLocal,
                                                       int bm, int kb) {
    PromoteScales sc;
    sc.sa0 = ldSharedF32(stage + u32(rowLocal) * 4u);
    sc.sa1 = ldSharedF32(stage + u32(rowLocal + 8) * 4u);
    const u32 b = stage + u32(bm) * 4u + u32(kb & 3) * 4u;
#pragma unroll
    for (int q = 0; q < kSb; ++q)
      sc.sb[q] = ldSharedF32(b + u32(nbLocal + q) * 16u);
    if constexpr (Dual) {
      sc.sbUp[0] = ldSharedF32(b + 128u);
      sc.sbUp[1] = ldSharedF32(b + 128u + 16u);
    }
    return sc;
  }
};

} // namespace sm90
} // namespace fp8c
