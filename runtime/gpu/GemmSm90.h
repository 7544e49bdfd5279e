// The generated Hopper FP8 GEMM (codegen/kernels/gemm_sm90.cuh) on the host:
//   D[m, n] = act(sum_k A[m, k] B[n, k] * invScaleA * invScaleB + bias[n]), optionally with
//   amaxD = max |D| (before scaleD) and an FP8 D = sat(rne(D * scaleD)),
// A and B FP8 (e4m3 x e4m3, e5m2 x e4m3, e4m3 x e5m2; or A bf16 cast to FP8 in the kernel with
// a quantization scale known before the launch, castA), row-major and K-major (TN), f32
// accumulation; D bf16, f16, f32, e4m3 or e5m2. The semantics and the scale-buffer layouts are
// those of the cuBLASLt backend (CublasLtGemm.h, GemmScaleMode), so a plan's GemmStep
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
//   GemmSm90Spec k;                                       // dtypes, scales, epilogue
//   k = chooseGemmSm90Tiles(k, problem, runner->device());  // tile shape for this problem
//   runner->run(k, problem, pointers, stream);              // NVRTC + cache on first use
// From a plan's GemmStep `g` (GemmSm90Step.h; Executable runs it for backend
// generated, and for auto where cuBLASLt refuses): aType/bType/dType from the
// buffers' dtypes, scaleMode = g.scaleMode, fastAccum = g.fastAccum, biasType from g.bias's
// buffer, activation from g.epilogue (Gelu* -> GeluTanh, as cuBLASLt's GELU is the tanh form;
// Relu* -> Relu), amaxD = g.amaxD >= 0; problem m = g.m at run time, n = g.n, k = g.k, pitches
// from the buffers' ld, Block128 ldsa = roundup(M, 4) and ldsb = the B scale buffer's ld. FP8
// operands only; D needs 16-byte alignment.
// The spec of one kernel (GemmSm90Spec), its name and CUDA source live in codegen/gemm/; this
// header adds the problem, the pointers, the host checks, the tile heuristic and the runner.
// Kernels are compiled through the KernelCache (memory and disk) and loaded once per context;
// the tensor maps (cuTensorMapEncodeTiled) are built per call on the host, so run() is
// capturable in a CUDA graph and allocates nothing.
#pragma once

#include "codegen/LaunchPlan.h"
#include "codegen/gemm/GemmSource.h"
#include "codegen/gemm/GemmSpec.h"
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

/// The NVRTC request of a kernel for `arch` (sm_90a: wgmma and setmaxnreg need it).
NvrtcRequest gemmSm90Request(const GemmSm90Spec &k, const std::string &arch = "sm_90a");

/// The errors known without a GPU: the spec's (checkGemmSm90Spec), then sizes, pitches,
/// and (when `p` is given) missing or misaligned pointers. Each names what to do instead.
Status checkGemmSm90(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                     const GemmSm90Pointers *p = nullptr);

/// The largest K at which chooseGemmSm90Tiles picks the ping-pong schedule for large problems.
constexpr int64_t kGemmSm90PingPongMaxK = 4096;

/// `k` with the tile shape and schedule (bm, bn, stages, overlap, schedule) that this problem
/// should use on `dev`: 64 x 128 cooperative for M <= 64 (decode); 128 x 192 x 5 cooperative
/// for promotion with tensor or row scales (fastAccum off) where those tiles fill the SMs;
/// 128 x 128 cooperative where 128 x 256 tiles would leave SMs idle or the kernel promotes;
/// otherwise 128 x 128 ping-pong for K <= kGemmSm90PingPongMaxK and 128 x 256 cooperative above
/// (measured on the H200: docs/gemm.md).
GemmSm90Spec chooseGemmSm90Tiles(GemmSm90Spec k, const GemmSm90Problem &prob,
                                   const Device &dev);

/// The kernel GemmSm90Runner::run launches for `k` on `prob`: `k`, with tmaStore off where D's
/// width N or row pitch is not a multiple of 16 bytes: TMA stores whole 16-byte units, so it
/// would write past N.
GemmSm90Spec launchedGemmSm90Kernel(GemmSm90Spec k, const GemmSm90Problem &prob);

/// Tile rows per group of the tile order (an L2-friendly raster): about
/// sqrt(SMs * bn / 128), so the A rows and B columns in use at once stay in L2.
int gemmSm90GroupM(const GemmSm90Spec &k, const GemmSm90Problem &prob, const Device &dev);

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
  Status run(const GemmSm90Spec &k, const GemmSm90Problem &prob, const GemmSm90Pointers &p,
             CUstream stream, int groupM = 0, int maxBlocks = 0, bool dependent = false);
  /// Compiles (or finds in the cache) and loads `k` ahead of its first run.
  Expected<std::shared_ptr<const CachedKernel>> prepare(const GemmSm90Spec &k);
  /// Persistent blocks `run` launches for `k` at most: one per SM, or with clusters the blocks
  /// of the clusters that can be resident at once (cuOccupancyMaxActiveClusters).
  Expected<int> maxResidentBlocks(const GemmSm90Spec &k);
  const Device &device() const { return device_; }

private:
  struct Loaded {
    CUfunction fn = nullptr;
    CUfunction colSumFn = nullptr; ///< colSumType: "<name>_colsum"
    std::shared_ptr<const CachedKernel> kernel;
    int maxClusters = 0; ///< clusterM > 1: clusters resident at once (cuOccupancyMaxActiveClusters)
  };
  GemmSm90Runner() = default;
  Expected<Loaded> load(const GemmSm90Spec &k);

  KernelCache *cache_ = nullptr;
  Device device_;
  std::mutex mu_;
  std::map<std::string, Loaded> loaded_;
};

} // namespace fp8c
