// The blockwise (1x128 A, 128x128 B) scales of the Hopper FP8 GEMM's promotion (gemm_sm90.cuh):
// each consumer thread copies the four scales its promotion of K block kb needs (A's two rows,
// B's one or two 128-column blocks) from global into a private 16-byte shared-memory slot with
// cp.async, two blocks ahead, and reads the slot back with one ld.shared.v4 just before it
// promotes. Plain global loads into registers cost a quarter of the kernel's time on an H200
// (1.10x of cuBLASLt without them, 0.81-0.88x with them, loaded two blocks ahead or not):
// fencing the next block's wgmmas waits for every pending register write, so each load's L2
// round trip stalled the tensor cores. cp.async writes no register.
#pragma once

#include "fp8c/gemm_sm90_defs.cuh"

namespace fp8c {
namespace sm90 {

/// The scales of one 128-wide K block for promotion: with Scale::Block, A's 1x128 block scales
/// of the thread's two rows and B's 128x128 block scale of each 128-column block that the
/// warpgroup's WN columns touch (colBase % 128 is 0 or 64: a 192-wide slice spans two blocks,
/// split at column 128 or 64); otherwise 1.
template <int WN, Scale S> struct PromoteScales {
  static constexpr int kSb = WN % 128 == 0 ? WN / 128 : (WN + 64) / 128;
  static_assert(kSb <= 2, "a promoting slice spans at most two B scale blocks");
  float sa0 = 1.0f, sa1 = 1.0f, sb[kSb];
  __device__ __forceinline__ PromoteScales() {
#pragma unroll
    for (int q = 0; q < kSb; ++q)
      sb[q] = 1.0f;
  }
};

/// 4 bytes global -> shared without a register; srcBytes 0 writes zero.
__device__ __forceinline__ void cpAsync4(u32 dst, const void *src, u32 srcBytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
               "r"(srcBytes)
               : "memory");
}

/// A consumer thread's two scale slots: block kb in slot kb & 1. fetch(kb) commits one
/// cp.async group (empty past the last block), so take(kb), after fetch(kb + 1), waits for
/// all but the newest group.
template <int WN> struct BlockScaleSlots {
  using Sc = PromoteScales<WN, Scale::Block>;
  u32 base;
  int row0, colBase;
  __device__ __forceinline__ BlockScaleSlots(u32 slots, int row0_, int colBase_)
      : base(slots), row0(row0_), colBase(colBase_) {}
  __device__ __forceinline__ void fetch(const GemmParams &p, int kb) {
    if (kb < p.kBlocks) {
      const u32 dst = base + u32(kb & 1) * 16u;
      const float *a = p.scaleA + i64(kb) * p.ldsa;
      cpAsync4(dst, a + (row0 < p.m ? row0 : 0), row0 < p.m ? 4u : 0u);
      cpAsync4(dst + 4u, a + (row0 + 8 < p.m ? row0 + 8 : 0), row0 + 8 < p.m ? 4u : 0u);
#pragma unroll
      for (int q = 0; q < Sc::kSb; ++q) {
        const int nb = colBase / 128 + q;
        const bool in = nb * 128 < p.n;
        cpAsync4(dst + 8u + 4u * u32(q), p.scaleB + (in ? i64(nb) * p.ldsb + kb : 0),
                 in ? 4u : 0u);
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  __device__ __forceinline__ Sc take(int kb) const {
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    float v[4];
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "r"(base + u32(kb & 1) * 16u)
                 : "memory");
    Sc sc;
    sc.sa0 = v[0];
    sc.sa1 = v[1];
#pragma unroll
    for (int q = 0; q < Sc::kSb; ++q)
      sc.sb[q] = v[2 + q];
    return sc;
  }
};

} // namespace sm90
} // namespace fp8c
