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
/// The host's fp8c::Activation (ir/Activation.h): the same enumerators and values
/// (test/unit/ir/OpTableTest.cpp checks).
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
  const float *quantA; ///< bf16-A prologue: A's quantization scale ([1] or, Scale::Row, [M])
  float *amaxA;        ///< bf16-A prologue with AmaxA: max |A| (starts at 0)
  const void *epiIn;   ///< XO & kXoGeluGrad: the GELU's saved input, bf16 [M, N] (pitch ldIn)
  float *colPart;      ///< XO & kXoColSum: column sums per 64-row slice, f32 [ceil(M/64)][N]
  const float *scaleB2; ///< Dual: the up weight's scale, laid out as scaleB; mapB2 its tensor map
  /// Amax == kAmaxBlock (the 1x128-block FP8 cast of D, gemm_sm90_block_cast.cuh): each block's
  /// quantization scale, row-major [M][ldbs] (or null), and its inverse (what the next GEMM
  /// multiplies by), K-block-major [ceil(N/128)][ldbi] with ldbi >= M (or null).
  float *blockScale;
  float *blockInv;
  i64 ldd;  ///< D row pitch in elements
  i64 ldIn; ///< row pitch of epiIn in elements
  i64 ldsa; ///< Scale::Block: row pitch of scaleA (>= M)
  i64 ldsb; ///< Scale::Block: row pitch of scaleB (>= ceil(K/128))
  i64 ldbs, ldbi; ///< kAmaxBlock: row pitches of blockScale and blockInv
  int m, n, k;
  int tilesM, tilesN, kBlocks;
  int groupM; ///< unit rows (tiles, or clusters' tile pairs) per group of the tile order
  int castMargin; ///< kAmaxBlock: the scale formula's margin (fp8.scale's `margin`)
  int castPow2;   ///< kAmaxBlock: 1 when the scales are rounded down to powers of two
  // CA (cast-ahead A, gemm_sm90_cast_ahead.cuh): the bf16 A (pitch ldaSrc elements), the FP8
  // copy the kernel writes and mapA loads (pitch ldaCast bytes), and the rows cast per tile row
  // ([tilesM], then the count of blocks done; zero before the launch, zero after it).
  const void *aSrc;
  u8 *aCast;
  u32 *aReady;
  i64 ldaSrc, ldaCast;
  // Delayed scaling's history push (pushAmaxWhenLast, gemm_sm90_epilogue.cuh), or pushHistory
  // null: the grid's last block pushes the tensor amax (`amax`, rounded to pushRound, a Dt) into
  // the pushLen entries of pushHistory in place, and with pushResetAmax puts the amax back to
  // zero. pushCounter: a u32 at zero before the launch, left at zero after it.
  float *pushHistory;
  u32 *pushCounter;
  int pushLen, pushRound, pushResetAmax, pushPad;
};

constexpr int kBK = 128;     ///< K (bytes) of one stage
constexpr int kThreadsSm90 = 384;
constexpr int kConsumerWarps = 8;

/// The column-sum exchange of an epilogue with XO & kXoColSum, per consumer warpgroup: one
/// float2 per lane of each of its warps (the Ring lays it out; the host's
/// GemmSm90Spec::sharedBytes counts the whole layout).
constexpr int kColSumBytes = 4 * 32 * 8;


// --- PTX wrappers ------------------------------------------------------------------------------

__device__ __forceinline__ u32 smemAddr(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ float ldSharedF32(u32 addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
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
/// tmaLoad2d into the same shared-memory offset `dst` of every block of the cluster in
/// `ctaMask`, completing on each one's mbarrier at offset `bar`.
__device__ __forceinline__ void tmaLoad2dMulticast(u32 dst, const TmaDesc *map, u32 bar, int c0,
                                                   int c1, u16 ctaMask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(ctaMask)
               : "memory");
}
__device__ __forceinline__ void tmaPrefetchMap(const TmaDesc *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<u64>(map)) : "memory");
}
/// Orders this thread's generic-proxy shared-memory writes before later async-proxy reads
/// (wgmma operands written by the bf16-A prologue, chunks read by TMA stores).
__device__ __forceinline__ void fenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
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
// --- clusters ------------------------------------------------------------------------------------

/// This block's rank in its cluster.
__device__ __forceinline__ int clusterRank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return int(r);
}
/// Every thread of every block of the cluster, with release / acquire ordering of shared memory
/// (mbarrier initialization before any remote use, the last remote use before a block exits).
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
/// Arrives on the mbarrier at shared offset `bar` of block `rank` of the cluster (itself too),
/// with the default .release.cta semantics: the consumers release a stage whose reads (wgmma)
/// have completed, and nothing they wrote needs ordering for the other block. (With
/// .release.cluster, which orders the thread's earlier memory operations at cluster scope, the
/// first cluster kernels ran at 0.25-0.60x of cuBLASLt instead of 0.87-0.95x.)
__device__ __forceinline__ void mbarArriveCluster(u32 bar, int rank) {
  asm volatile("{\n.reg .b32 remote;\n"
               "mapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(bar),
               "r"(rank)
               : "memory");
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

/// Position t of a grid of `rowsM` x `tilesN` visited in groups of `groupM` rows, all columns of
/// a group before the next.
__device__ __forceinline__ void groupedCoords(int t, int rowsM, int tilesN, int groupM, int &tm,
                                              int &tn) {
  const int perGroup = groupM * tilesN;
  const int g = t / perGroup;
  const int first = g * groupM;
  const int rows = min(rowsM - first, groupM);
  const int r = t - g * perGroup;
  tm = first + r % rows;
  tn = r / rows;
}

/// The tiles a block works on. The unit of work is a tile for Cm = 1; for clusters of Cm
/// blocks along M it is Cm vertically adjacent tiles (Cm um + rank, tn), one per block of the
/// cluster, which share the B tile (each block loads 1 / Cm of it and multicasts it). The units
/// are visited in the grouped order (groupM unit rows per group); a block takes units first,
/// first + stride, ... Every block of a cluster walks the same units in the same order. Rows of
/// a unit past tilesM (odd tile counts) are loaded as TMA's zeros and stored nowhere.
template <int Cm> struct TileWalk {
  int first, stride, units, unitsM, rank;
  __device__ __forceinline__ explicit TileWalk(const GemmParams &p) {
    rank = Cm == 1 ? 0 : clusterRank();
    first = int(blockIdx.x) / Cm;
    stride = int(gridDim.x) / Cm;
    unitsM = (p.tilesM + Cm - 1) / Cm;
    units = unitsM * p.tilesN;
  }
  __device__ __forceinline__ void coords(int u, const GemmParams &p, int &tm, int &tn) const {
    int um;
    groupedCoords(u, unitsM, p.tilesN, p.groupM, um, tn);
    tm = um * Cm + rank;
  }
};

} // namespace sm90
} // namespace fp8c
