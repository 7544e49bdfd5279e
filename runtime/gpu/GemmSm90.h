// The generated Hopper FP8 GEMM (codegen/kernels/gemm_sm90.cuh) on the host:
//   D[m, n] = act(sum_k A[m, k] B[n, k] * invScaleA * invScaleB + bias[n]), optionally with
//   amaxD = max |D| (before scaleD) and an FP8 D = sat(rne(D * scaleD)),
// A and B FP8 (e4m3 x e4m3, e5m2 x e4m3, e4m3 x e5m2; or A bf16 cast to FP8 in the kernel with
// a quantization scale known before the launch, castA), row-major and K-major (TN), f32
// accumulation; D bf16, f16, f32, e4m3 or e5m2. The semantics and the scale-buffer layouts are
// those of the cuBLASLt backend (CublasLtGemm.h, GemmScaleMode), so a plan's CublasLtGemm step
// can run on either:
//   Tensor       invScaleA, invScaleB: one f32 each
//   OuterVector  invScaleA: [M], invScaleB: [N]
//   Block128     invScaleA: [ceil(K/128)][ldsa] (M contiguous, ldsa >= M);
//                invScaleB: [ceil(N/128)][ldsb] (ldsb >= ceil(K/128)); per-K-block promotion.
//                Both grids 16-byte aligned with pitches that are multiples of 4 (TMA loads).
// Any M, N, K >= 1: TMA reads out-of-range rows and K columns as zeros, stores are predicated.
// A and B need 16-byte aligned pointers and row pitches that are multiples of 16 bytes; D a
// 16-byte aligned pointer. amaxD must hold 0 (or a smaller magnitude) before the call.
//
// Usage:
//   auto runner = GemmSm90Runner::create();                 // current context, sm_90 only
//   GemmSm90Kernel k;                                       // dtypes, scales, epilogue
//   k = chooseGemmSm90Tiles(k, problem, runner->device());  // tile shape for this problem
//   runner->run(k, problem, pointers, stream);              // NVRTC + cache on first use
// From a plan's CublasLtGemm step `g` (GemmSm90Step.h; Executable runs it for backend
// generated, and for auto where cuBLASLt refuses): aType/bType/dType from the
// buffers' dtypes, scaleMode = g.scaleMode, fastAccum = g.fastAccum, biasType from g.bias's
// buffer, activation from g.epilogue (Gelu* -> GeluTanh, as cuBLASLt's GELU is the tanh form;
// Relu* -> Relu), amaxD = g.amaxD >= 0; problem m = g.m at run time, n = g.n, k = g.k, pitches
// from the buffers' ld, Block128 ldsa = roundup(M, 4) and ldsb = the B scale buffer's ld. FP8
// operands only; D needs 16-byte alignment.
// Kernels are compiled through the KernelCache (memory and disk) and loaded once per context;
// the tensor maps (cuTensorMapEncodeTiled) are built per call on the host, so run() is
// capturable in a CUDA graph and allocates nothing.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/DType.h"
#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/jit/KernelCache.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fp8c {

/// How the kernel's two consumer warpgroups share the work (codegen/kernels/gemm_sm90.cuh).
enum class GemmSchedule {
  /// Both on every bm x bn tile (bm = 128: 64 rows each; bm = 64: half the columns each), the
  /// epilogue run by both at once while the tensor cores idle. Every scale mode.
  Cooperative,
  /// Each on whole bm x bn tiles of its own, alternately: one warpgroup's epilogue overlaps the
  /// other's main loop. bm * bn <= 128 * 128 (accumulators in registers); no promotion
  /// (Block128 scales and fastAccum off are cooperative-only).
  PingPong,
};

/// What selects one compiled kernel (its template arguments).
struct GemmSm90Kernel {
  DType aType = DType::F8E4M3FN, bType = DType::F8E4M3FN, dType = DType::BF16;
  GemmScaleMode scaleMode = GemmScaleMode::Tensor;
  std::optional<DType> biasType; ///< set iff the epilogue adds bias[n] (bf16, f16 or f32)
  Activation activation = Activation::None;
  bool amaxD = false;
  /// With amaxD: max |D| per row of D into amaxD[M] (a rowwise recipe's current amax of the
  /// GEMM output) instead of one per tensor.
  bool amaxRows = false;
  GemmSchedule schedule = GemmSchedule::Cooperative;
  /// Tile rows: 128 or 64. Cooperative: bm = 128, the consumers split the rows; bm = 64, they
  /// split the columns. PingPong: one consumer's whole tile (bm / 64 wgmmas per k step).
  int bm = 128;
  int bn = 256;         ///< tile columns: 64, 128, 192 or 256 (cooperative bm = 64: 128 or 256)
  int stages = 4;       ///< shared-memory ring depth
  /// Keep one stage's wgmmas in flight while the next is waited for (fast accumulation only;
  /// promotion ignores it: its two consumer warpgroups alternate their K blocks).
  bool overlap = true;
  /// The tensor cores' own FP8 accumulation over all of K (cuBLASLt's fast accumulation); when
  /// false, every 128-wide K block is promoted into f32 registers (always so for Block128).
  /// Promotion holds two accumulator sets, so it needs bn <= 192, or with tensor scales
  /// bn = 256 (bm = 128, cooperative), whose K blocks are promoted in two 128-column halves.
  /// (The 128 of cuBLASLt's own promotion interval: fp8c-gemm-bench --accum-probe.)
  bool fastAccum = true;
  /// Blocks per cluster along M: 1, or 2 for pairs of blocks on vertically adjacent tiles that
  /// share the B tile, each loading half of it and multicasting it to both (TMA multicast:
  /// half the L2 -> shared-memory traffic for B).
  int clusterM = 1;
  /// The bf16-A prologue: A is bf16 in memory and the kernel casts it to aType itself,
  /// q = sat(rne(a * quantScaleA)), with Tensor scales one quantization scale, with OuterVector
  /// scales one per row of A (GemmSm90Pointers::quantScaleA); invScaleA stays the dequantization
  /// factor of the epilogue. The producer warpgroup stages the bf16 tiles in `castSlots` slots
  /// of bm x 128 bf16 (TMA) and writes the FP8 tile into the ring (codegen/kernels/
  /// gemm_sm90_cast.cuh). Single blocks (clusterM = 1); Tensor or OuterVector scales.
  bool castA = false;
  int castSlots = 2;
  /// Cast-ahead A (codegen/kernels/gemm_sm90_cast_ahead.cuh): A is bf16 in memory (pitch lda
  /// elements) and the kernel writes its FP8 copy, q = sat(rne(a * quantScaleA)) (Tensor: one
  /// scale; OuterVector: one per row), to GemmSm90Pointers::aCast (pitch ldaCast bytes), which
  /// its main loop loads by TMA: every warp casts the first wave of tiles' rows at entry, the
  /// producer warpgroup's warps 1-3 the rest while the main loops run, and the loads of a tile
  /// row wait for its rows (counters in GemmSm90Pointers::aReady). Launched cooperatively
  /// (every block resident at once, or the launch fails), so never as a programmatic
  /// dependent. Single blocks, Tensor or OuterVector scales, not with castA or epilogueWarps.
  bool castAhead = false;
  /// A given MN-major: A is stored as its transpose, [K, M] with M contiguous (pitch lda >= M,
  /// in elements), e.g. the untransposed FP8 copy of a gradient read as the A = dY^T of a weight
  /// gradient, so the cast that writes it needs no transposed copy. The consumers read A's
  /// tiles with transposing shared-memory loads into wgmma's register operand (codegen/kernels/
  /// gemm_sm90_atrans.cuh). Cooperative 128-row single blocks, FP8 A, tensor scales, and the
  /// plain TMA-store epilogue (a 16-bit or FP8 D with N and D's pitch in whole 16-byte units; a
  /// tensor amax at most, no extra outputs or dual GEMM).
  bool aTransposed = false;
  /// With castA or castAhead: max |A| over the bf16 values into GemmSm90Pointers::amaxA (NaN
  /// wins), as the delayed recipe records it. amaxA must hold 0 (or a smaller magnitude) before
  /// the call.
  bool amaxA = false;

  /// The epilogue through shared memory and TMA stores (codegen/kernels/gemm_sm90_store.cuh)
  /// where it applies: a 16-bit or FP8 D, whole chunks of 128 bytes of a row per consumer
  /// warpgroup (64 or 128 columns), and room for at least one 64-row chunk buffer per consumer
  /// warpgroup beside the ring. Otherwise (an f32 D), or when D's width or row pitch is not a
  /// multiple of 16 bytes (GemmSm90Runner::run then
  /// launches the same config with tmaStore off: launchedGemmSm90Kernel), the epilogue stores
  /// from registers.
  bool tmaStore = true;

  /// Extra outputs of the TMA-store epilogue of an FP8 D (codegen/kernels/
  /// gemm_sm90_store_aux.cuh): auxOut writes the pre-activation act's input, acc * scales +
  /// bias rounded to bf16, to GemmSm90Pointers::aux (the activation then takes that rounded
  /// value; auxOut alone also beside a bf16 D, see auxBesideBf16D); transD writes D transposed ([N,
  /// M], pitch ldDT >= M rounded up to 16, the pad columns up to there written as zeros) to
  /// GemmSm90Pointers::dT. Either needs tmaStore, N a multiple of 16 and every pitch a whole number
  /// of 16-byte units (there is no register-epilogue form of them).
  bool auxOut = false;
  /// With auxOut: the pre-activation written as its unscaled e4m3 convert (sat(rne(y)), the
  /// training step's saved copy under gelu_saved=e4m3) instead of bf16; aux is then e4m3
  /// [M, N] with a pitch of whole 16-byte units. Not with epilogueWarps.
  bool auxFp8 = false;
  bool transD = false;
  /// The backward's gelu_grad in the epilogue: the value cast to D (and reduced into amaxD) is
  /// v = bf16(bf16(y) * gelu_tanh'(x)), y the GEMM result (scaled, with bias), x the GELU's
  /// saved input (bf16 [M, N], GemmSm90Pointers::epiIn, pitch ldIn): the dgrad GEMM of an
  /// MLP's second layer writes the FP8 gradient of the first layer's pre-activation directly.
  /// Activation None, no auxOut.
  bool geluGradIn = false;
  /// With geluGradIn: x is the GELU input's unscaled e4m3 copy (the training step's saved tensor
  /// under gelu_saved=e4m3; epiIn e4m3 [M, N]) and gelu_tanh'(x) comes from a 256-entry table per
  /// epilogue warp (codegen/kernels/gemm_sm90_offload.cuh): the same values as the bf16 form
  /// over the exact bf16 convert of x. epilogueWarps only.
  bool geluGradInFp8 = false;
  /// A residual add (codegen/kernels/gemm_sm90_residual.cuh): the epilogue's value becomes
  /// z = bf16(bf16(act(y)) + r), r a bf16 [M, N] input (GemmSm90Pointers::epiIn, pitch ldIn, a
  /// multiple of 8 elements, 16-byte aligned), before the amax, FP8 cast and store, which are
  /// then of z: a projection plus the residual stream in one pass. Any D; not with the extra
  /// outputs, geluGradIn or swiglu.
  bool residualIn = false;
  /// Column sums of the value cast to D (v, or act(y)), the bias gradient: written to
  /// GemmSm90Pointers::colSums ([N] of this dtype, bf16 or f32) through f32 partial sums per
  /// 64-row slice (GemmSm90Pointers::colPartials, [ceil(M/64)][N] f32) that a second kernel of
  /// the module adds up in order (deterministic), launched by run() after the GEMM.
  std::optional<DType> colSumType;
  /// The dual GEMM of a SwiGLU MLP (codegen/kernels/gemm_sm90_dual.cuh): B and B2
  /// (GemmSm90Pointers::b2, invScaleB2) are the gate and up weights, both [N, K], and
  /// D[m, n] = swiglu(gate, up) with gate = bf16(A B^T * invScaleA * invScaleB) and up likewise
  /// (the graph's roundings), then amaxD and the FP8 cast as usual. Each tile computes bn / 2
  /// output columns (bn / 2 rows of each weight). Tensor, row (invScaleB2 [N] like invScaleB)
  /// or 128-block scales, no bias, activation None, no extra outputs or bf16-A prologue,
  /// clusterM = 1, whole tiles per consumer warpgroup (not the cooperative bm = 64 split).
  bool swiglu = false;
  /// The 1x128-block FP8 cast of D (a blockwise recipe's next GEMM operand; codegen/kernels/
  /// gemm_sm90_block_cast.cuh): the epilogue's value y (after scales, bias and activation) is
  /// rounded to bf16, each 1x128 block of it gets the scale s = fp8.scale(amax of the block)
  /// (GemmSm90Problem::castMargin, castPow2), and D = sat(rne(y * s)) (an FP8 D; no scaleD or
  /// amaxD); s goes to GemmSm90Pointers::blockScale and 1 / s to blockInv (either may be null).
  /// Each consumer warpgroup's slice must hold whole 128-column blocks (128 x 128 or 64 x 256
  /// cooperative, 128-wide ping-pong tiles); no extra outputs, residual or dual GEMM.
  bool blockCast = false;
  /// The extra-output epilogue (auxOut, transD, geluGradIn, colSumType, with amaxD and the
  /// activation) on the producer warpgroup's three idle warps (codegen/kernels/
  /// gemm_sm90_offload.cuh): the consumers hand each tile over in bf16 through shared memory
  /// and go on with the next tile's main loop, so the epilogue's math overlaps the wgmmas.
  /// Cooperative 128 x 128 tiles, clusterM = 1, no bf16-A prologue, tensor amax only.
  bool epilogueWarps = false;
  /// A side launch (codegen/kernels/gemm_sm90_side.cuh): an independent one-pass cast-transpose
  /// of the plan (CublasLtGemm::side) run by the producer warpgroup's warps 1-3 beside the main
  /// loops. sideSpec is that launch's Spec (GeneratedLaunch::sideSpec: the source without its
  /// entry point), sideBuffers the count of its Args' buffers (GemmSm90Pointers::side). Empty:
  /// none. Not with castA, castAhead or epilogueWarps (they use those warps).
  std::string sideSpec;
  int sideBuffers = 0;
  /// Output columns of one tile: bn, or bn / 2 for the dual GEMM.
  int outCols() const { return swiglu ? bn / 2 : bn; }
  bool extraOutputs() const { return auxOut || transD || geluGradIn || colSumType.has_value(); }
  /// The bf16 pre-activation beside a bf16 D = bf16(act(y)) and no other extra output (amaxD
  /// of the bf16 values): a current-scaling recipe's GELU, cast to FP8 once its amax is known.
  bool auxBesideBf16D() const {
    return auxOut && !auxFp8 && !transD && !geluGradIn && !colSumType && dType == DType::BF16;
  }
  /// Whether D's type allows the extra outputs asked for: an FP8 D, or auxBesideBf16D().
  bool extraOutputsTyped() const { return isFloat8(dType) || auxBesideBf16D(); }
  /// 8 KB chunk buffers per unit of the extra-output epilogue: 2 with auxOut, else 1.
  int extraUnitChunks() const { return auxOut ? 2 : 1; }
  /// The epilogue's XO bits (gemm_sm90_store_aux.cuh: kXoAux | kXoTrans | kXoGeluGrad |
  /// kXoColSum, and kXoResidual).
  int extraOutputBits() const {
    return (auxOut ? 1 : 0) | (transD ? 2 : 0) | (geluGradIn ? 4 : 0) | (colSumType ? 8 : 0) |
           (residualIn ? 16 : 0) | (auxOut && auxFp8 ? 32 : 0) |
           (geluGradIn && geluGradInFp8 ? 64 : 0);
  }

  /// Whether the kernel promotes per K block (Block128 scales or !fastAccum).
  bool promotes() const { return !fastAccum || scaleMode == GemmScaleMode::Block128; }
  /// Chunk buffers per consumer warpgroup of the TMA-store epilogue: 2 where they fit in shared
  /// memory, else 1, or 0 where the epilogue stores from registers (see tmaStore).
  int epilogueBuffers() const;

  /// The kernel's entry name: "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n256_s4_o1", with
  /// "_m64" (bm = 64), "_pp" (ping-pong), "_c2" (clusterM = 2), "_promote" (fastAccum off),
  /// "_bias<dtype>", "_relu" / "_gelutanh" / "_geluerf" / "_silu" and "_amax" ("_amaxrow") when
  /// set, and "_abf16s<castSlots>" (castA) or "_aca" (castAhead) with "_amaxa" (amaxA),
  /// "_tms<buffers>" (TMA-store epilogue), "_aux" (auxOut; "_aux8" with auxFp8), "_dt"
  /// (transD), "_dgelu" (geluGradIn; "_dgelu8" with geluGradInFp8), "_res" (residualIn),
  /// "_colsum<dtype>" (colSumType), "_swiglu" (the dual GEMM), "_bcast" (blockCast), "_ew"
  /// (epilogueWarps), "_at" (aTransposed), "_side<hash of sideSpec>" (a side launch). With
  /// colSumType the module also holds "<name>_colsum", the partial sums' kernel.
  std::string name() const;
  /// Dynamic shared memory of one block.
  int64_t sharedBytes() const;
};

/// The most buffers a side launch (GemmSm90Kernel::sideSpec) may take.
constexpr int kGemmSm90MaxSideBuffers = 32;

/// Sizes and row pitches (in elements) of one call.
struct GemmSm90Problem {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0; ///< with aTransposed, lda is A^T's pitch (>= M)
  int64_t ldsa = 0, ldsb = 0; ///< Block128 scale grid pitches
  int64_t ldAux = 0, ldDT = 0; ///< auxOut, transD: pitches of aux ([M, N]) and dT ([N, M])
  int64_t ldIn = 0;            ///< geluGradIn, residualIn: pitch of epiIn ([M, N])
  /// blockCast: pitches of blockScale ([M, ceil(N/128)], >= ceil(N/128)) and blockInv
  /// ([ceil(N/128), M], >= M), and the scale formula's margin and power-of-two rounding (the
  /// fp8.scale op's attributes: not part of the compiled kernel).
  int64_t ldBlockScale = 0, ldBlockInv = 0;
  int castMargin = 0;
  bool castPow2 = false;
  int64_t ldaCast = 0; ///< castAhead: pitch of aCast in bytes (>= K, a multiple of 16)
};

/// Device pointers of one call (inverse scales: dequantization factors, multiplied).
struct GemmSm90Pointers {
  const void *a = nullptr;
  const void *b = nullptr;
  const void *b2 = nullptr; ///< swiglu: the up weight, [N, K] with B's pitch
  void *d = nullptr;
  const float *invScaleA = nullptr;
  const float *invScaleB = nullptr;
  const float *invScaleB2 = nullptr; ///< swiglu: the up weight's inverse scale, [1]
  const void *bias = nullptr;
  float *amaxD = nullptr;
  const float *scaleD = nullptr;
  const float *quantScaleA = nullptr; ///< castA: A's quantization scale, [1] or [M]
  float *amaxA = nullptr;             ///< castA / castAhead with amaxA: max |A|
  /// castAhead: A's FP8 copy that the kernel writes, [M, K] with pitch ldaCast bytes.
  void *aCast = nullptr;
  /// castAhead: gemmSm90CastAheadCounters(M) u32, zero before the first call; each call leaves
  /// them zero (one buffer per stream: calls that may overlap need their own).
  uint32_t *aReady = nullptr;
  void *aux = nullptr;                ///< auxOut: the pre-activation [M, N] (bf16, or e4m3)
  void *dT = nullptr;                 ///< transD: D transposed [N, M]
  /// geluGradIn: the GELU's saved input (bf16, or e4m3 with geluGradInFp8); residualIn: the
  /// residual r (bf16). [M, N].
  const void *epiIn = nullptr;
  void *colSums = nullptr;            ///< colSumType: the column sums [N]
  float *colPartials = nullptr;       ///< colSumType: workspace, [ceil(M/64)][N] f32
  float *blockScale = nullptr;        ///< blockCast: the blocks' scales, or null
  float *blockInv = nullptr;          ///< blockCast: their inverses, or null
  /// sideSpec: the side launch's buffers in its Args order (sideBuffers of them), and its M
  /// (the run's dynamic size, which the launch's Spec takes, not the GEMM's M).
  std::array<void *, kGemmSm90MaxSideBuffers> side{};
  int64_t sideM = 0;
  /// Delayed scaling's history push, or pushHistory null: the grid's last block pushes amaxD
  /// (a tensor amax; rounded to pushRound, bf16 / f16 / f32) into the pushLen entries of
  /// pushHistory in place, and with pushResetAmax puts amaxD back to zero. pushCounter: a u32
  /// at zero before the first call; each call leaves it zero.
  float *pushHistory = nullptr;
  uint32_t *pushCounter = nullptr;
  int64_t pushLen = 0;
  DType pushRound = DType::F32;
  bool pushResetAmax = false;
};

/// u32 counters of the aReady workspace a castAhead problem of m rows needs (any tile).
inline int64_t gemmSm90CastAheadCounters(int64_t m) { return (m + 63) / 64 + 1; }

/// f32 elements of the colPartials workspace a problem of m rows and n columns needs.
inline int64_t gemmSm90ColPartials(int64_t m, int64_t n) { return (m + 63) / 64 * n; }

/// The CUDA source of a kernel: #include "fp8c/gemm_sm90.cuh" and one instantiation.
std::string gemmSm90Source(const GemmSm90Kernel &k);
/// The NVRTC request of a kernel for `arch` (sm_90a: wgmma and setmaxnreg need it).
NvrtcRequest gemmSm90Request(const GemmSm90Kernel &k, const std::string &arch = "sm_90a");

/// The errors of a kernel config alone: dtypes, tile shape, stages and shared memory, scale
/// mode and promotion vs tile and schedule.
Status checkGemmSm90Kernel(const GemmSm90Kernel &k);
/// The errors known without a GPU: the kernel's, then sizes, pitches,
/// and (when `p` is given) missing or misaligned pointers. Each names what to do instead.
Status checkGemmSm90(const GemmSm90Kernel &k, const GemmSm90Problem &prob,
                     const GemmSm90Pointers *p = nullptr);

/// The largest K at which chooseGemmSm90Tiles picks the ping-pong schedule for large problems.
constexpr int64_t kGemmSm90PingPongMaxK = 4096;

/// `k` with the tile shape and schedule (bm, bn, stages, overlap, schedule) that this problem
/// should use on `dev`: 64 x 128 cooperative for M <= 64 (decode); 128 x 192 x 5 cooperative
/// for promotion with tensor or row scales (fastAccum off) where those tiles fill the SMs;
/// 128 x 128 cooperative where 128 x 256 tiles would leave SMs idle or the kernel promotes;
/// otherwise 128 x 128 ping-pong for K <= kGemmSm90PingPongMaxK and 128 x 256 cooperative above
/// (measured on the H200: docs/gemm.md).
GemmSm90Kernel chooseGemmSm90Tiles(GemmSm90Kernel k, const GemmSm90Problem &prob,
                                   const Device &dev);

/// The kernel GemmSm90Runner::run launches for `k` on `prob`: `k`, with tmaStore off where D's
/// width N or row pitch is not a multiple of 16 bytes: TMA stores whole 16-byte units, so it
/// would write past N.
GemmSm90Kernel launchedGemmSm90Kernel(GemmSm90Kernel k, const GemmSm90Problem &prob);

/// Tile rows per group of the tile order (an L2-friendly raster): about
/// sqrt(SMs * bn / 128), so the A rows and B columns in use at once stay in L2.
int gemmSm90GroupM(const GemmSm90Kernel &k, const GemmSm90Problem &prob, const Device &dev);

/// Runs generated GEMMs on the current context's device (compute capability 9.0). Thread-safe.
class GemmSm90Runner {
public:
  /// A runner for the current context's device; an error on anything but sm_90.
  static Expected<std::unique_ptr<GemmSm90Runner>> create(KernelCache *cache = nullptr);

  /// D = ... for one problem on `stream`. `groupM` (tile rows per group of the tile order) 0
  /// picks gemmSm90GroupM(); `maxBlocks` 0 launches as many persistent blocks as there are
  /// tiles, at most one per SM (with clusters: whole clusters, at most as many as can be
  /// resident at once).
  /// `dependent`: launch as a programmatic dependent of the stream's previous kernel (its blocks
  /// set up while that kernel finishes and wait for it before any global access: gemm_sm90.cuh);
  /// only where the previous operation on `stream` is a kernel launch.
  Status run(const GemmSm90Kernel &k, const GemmSm90Problem &prob, const GemmSm90Pointers &p,
             CUstream stream, int groupM = 0, int maxBlocks = 0, bool dependent = false);
  /// Compiles (or finds in the cache) and loads `k` ahead of its first run.
  Expected<std::shared_ptr<const CachedKernel>> prepare(const GemmSm90Kernel &k);
  /// Persistent blocks `run` launches for `k` at most: one per SM, or with clusters the blocks
  /// of the clusters that can be resident at once (cuOccupancyMaxActiveClusters).
  Expected<int> maxResidentBlocks(const GemmSm90Kernel &k);
  const Device &device() const { return device_; }

private:
  struct Loaded {
    CUfunction fn = nullptr;
    CUfunction colSumFn = nullptr; ///< colSumType: "<name>_colsum"
    std::shared_ptr<const CachedKernel> kernel;
    int maxClusters = 0; ///< clusterM > 1: clusters resident at once (cuOccupancyMaxActiveClusters)
  };
  GemmSm90Runner() = default;
  Expected<Loaded> load(const GemmSm90Kernel &k);

  KernelCache *cache_ = nullptr;
  Device device_;
  std::mutex mu_;
  std::map<std::string, Loaded> loaded_;
};

} // namespace fp8c
