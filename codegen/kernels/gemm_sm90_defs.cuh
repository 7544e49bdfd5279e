// The Hopper FP8 GEMM's building blocks (gemm_sm90.cuh): the kernel's run-time arguments, its
// scale / activation / schedule enums, the shared-memory layout, the PTX wrappers (mbarriers, the
// tensor memory accelerator, wgmma fences) and the grouped tile order.
#pragma once

#include "fp8c/common.cuh"

namespace fp8c {
namespace sm90 {

using u64 = unsigned long long;

/// The driver's CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned, built on the host by
/// cuTensorMapEncodeTiled and passed by value as a __grid_constant__ kernel parameter.
struct alignas(64) TmaDesc {
  u64 opaque[16];
};

enum class Scale : int { Tensor = 0, Row = 1, Block = 2 };
enum class Act : int { None = 0, Relu = 1, GeluTanh = 2, GeluErf = 3, Silu = 4 };
/// How the two consumer warpgroups share the work (gemm_sm90.cuh): both on one tile
/// (Cooperative), or each on whole tiles of its own, alternating (PingPong).
enum class Sched : int { Cooperative = 0, PingPong = 1 };

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

/// Dynamic shared memory of a config: the ring, its full/empty mbarriers, the two ping-pong
/// turn mbarriers, the consumers' column buffers when the epilogue has per-column inputs (row
/// scales or bias: 16 bytes per pair of columns per consumer warpgroup), and 1024 bytes of slack
/// for alignment (GemmSm90Kernel::sharedBytes on the host computes the same).
FP8C_HD constexpr int sharedBytes(int bm, int bn, int stages, bool colInputs) {
  return stages * (bm * kBK + bn * kBK) + (2 * stages + 2) * 8 + (colInputs ? 16 * bn : 0) +
         1024;
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

} // namespace sm90
} // namespace fp8c
