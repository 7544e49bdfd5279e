// The cuBLASLt backend: executes a LaunchPlan's GemmStep,
//   D[m, n] = sum_k A[m, k] B[n, k] * invScaleA * invScaleB (+ bias)(activation)
// with A, B row-major and K-major (TN), FP8 (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3) or bf16;
// bf16 / f16 operands may also be N-major (aKMajor / bKMajor: a transposed operand read as is).
// cuBLASLt is column-major, so the row-major problem is handed over transposed:
// cublasLtLayout() below, and the comment at its definition.
//
// Scales are *inverse* scales (dequantization factors, 1/s): cuBLASLt multiplies by them.
// Layouts of the scale buffers, by GemmScaleMode (f32, 16-byte aligned):
//   Tensor       invScaleA, invScaleB: one value each (any compute capability >= 8.9)
//   OuterVector  invScaleA: [M] (one per row of A); invScaleB: [N] (one per row of B)  (9.0)
//   Block128     invScaleA (1x128 blocks of A): [ceil(K/128)][M], M contiguous, M % 4 == 0;
//                invScaleB (128x128 blocks of B): [ceil(N/128)][roundUp(ceil(K/128), 4)],
//                K blocks contiguous, the row pitch padded to a multiple of 4        (9.0)
// With OuterVector / Block128, D cannot be FP8 and the epilogue is Default or Bias.
// With Block128, fast accumulation does not apply (those kernels promote per 128-wide K block).
// An FP8 K that is not a multiple of 16 is rounded up to one when both operands' row pitches
// allow: the padding columns must hold zeros (the producing cast writes them).
//
// Descriptors and the heuristic's algorithm are cached per CublasLtGemmConfig (shape with the
// run-time M, pitches, dtypes, modes, epilogue, fast accumulation, pointer alignment). Every
// cuBLASLt call is checked with cublasLtGetStatusString. cublasLtCreate needs a GPU; the
// config, layout, checks and descriptors below do not.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/DType.h"
#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"

#include <cublasLt.h>

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace fp8c {

/// Everything that selects descriptors and an algorithm.
struct CublasLtGemmConfig {
  int64_t m = 0, n = 0, k = 0;       ///< D[m, n] = A[m, k] B[n, k]^T
  int64_t lda = 0, ldb = 0, ldd = 0; ///< row pitches in elements
  /// Operand layouts (bf16/f16 only; FP8 needs both K-major, "TN"): A's buffer is [M, K]
  /// (K contiguous) when aKMajor, else [K, M]; B's is [N, K] when bKMajor, else [K, N]. A
  /// transposed operand is read in place, with no transpose launch.
  bool aKMajor = true, bKMajor = true;
  DType aType = DType::F8E4M3FN, bType = DType::F8E4M3FN, dType = DType::BF16;
  std::optional<DType> biasType; ///< set iff the epilogue adds a bias
  GemmScaleMode scaleMode = GemmScaleMode::Tensor;
  GemmEpilogue epilogue = GemmEpilogue::Default;
  bool fastAccum = true;
  bool hasScaleD = false; ///< FP8 D: multiply by scaleD before the cast
  bool hasAmaxD = false;  ///< write max |D| (before scaleD) to amaxD
  /// With a GELU epilogue: also write the GELU's input (the GEMM result with its bias) to an aux
  /// matrix [m, n] of this type (bf16, the bias type, or D's type for a bf16 GEMM) with row
  /// pitch ldAux: cuBLASLt's GELU_AUX / GELU_AUX_BIAS, the pre-activation a training step saves.
  /// With DGelu / DGeluBgrad the same matrix is read: the GELU input of the forward.
  std::optional<DType> auxType;
  int64_t ldAux = 0;
  /// Guaranteed alignment in bytes (power of two, at most 256) of the A, B, D, bias and aux
  /// pointers.
  int alignA = 256, alignB = 256, alignD = 256, alignBias = 256, alignAux = 256;

  bool isFp8() const;
  /// A canonical one-line description; equal configs, equal strings (the cache key).
  std::string str() const;
};

/// The device pointers of one call.
struct CublasLtGemmPointers {
  const void *a = nullptr;
  const void *b = nullptr;
  void *d = nullptr;
  const float *invScaleA = nullptr;
  const float *invScaleB = nullptr;
  const void *bias = nullptr;
  float *amaxD = nullptr;
  const float *scaleD = nullptr;
  void *aux = nullptr; ///< the GELU input, with CublasLtGemmConfig::auxType (written or read)
};

/// The problem as cuBLASLt sees it (column-major): its A is our B, its B is our A.
struct CublasLtLayout {
  uint64_t rowsA = 0, colsA = 0; ///< K x N
  int64_t ldA = 0;
  uint64_t rowsB = 0, colsB = 0; ///< K x M
  int64_t ldB = 0;
  uint64_t rowsD = 0, colsD = 0; ///< N x M
  int64_t ldD = 0;
  cublasOperation_t transA = CUBLAS_OP_T, transB = CUBLAS_OP_N;
  /// cublasLtMatmulMatrixScale_t of cuBLASLt's A (our B) and B (our A).
  int32_t scaleModeA = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  int32_t scaleModeB = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
};
CublasLtLayout cublasLtLayout(const CublasLtGemmConfig &c);

/// The configuration errors known without asking cuBLASLt, for a device of compute capability
/// ccMajor.ccMinor: dtype pairs, scale modes by arch, FP8 D and epilogues by scale mode, bias
/// dtypes, pitches and alignment. Each names the configuration and says what to do instead.
Status checkCublasLtConfig(const CublasLtGemmConfig &c, int ccMajor, int ccMinor);

/// Step `g` of `plan` at run-time size `m`: its config and pointers, with `buffers[i]` the
/// device address of plan.buffers[i].
Expected<std::pair<CublasLtGemmConfig, CublasLtGemmPointers>>
cublasLtCall(const GemmStep &g, const LaunchPlan &plan, int64_t m,
             std::span<const CUdeviceptr> buffers);

/// The largest power of two (at most 256) dividing a device address: the alignment cuBLASLt is
/// told about.
int alignmentOf(uint64_t address);

/// cudaDataType of a dtype (CUDA_R_8F_E4M3, ...).
cudaDataType_t cudaDataTypeOf(DType t);

/// The matmul descriptor and the four layouts of a config (no GPU needed). Pointer attributes
/// are set per call by setPointers().
class CublasLtDescriptors {
public:
  static Expected<std::unique_ptr<CublasLtDescriptors>> create(const CublasLtGemmConfig &c);
  ~CublasLtDescriptors();
  Status setPointers(const CublasLtGemmPointers &p);

  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  CublasLtGemmConfig config;
};

/// Runs cuBLASLt GEMMs on one device: its handle (created once per device), a 32 MiB
/// workspace, and the descriptors and algorithm of every config seen. Thread-safe; for
/// concurrent streams use one runner per stream (the workspace is shared by its calls).
///
/// Autotuning (off unless FP8C_CUBLASLT_AUTOTUNE=1, CompileOptions::cublasLtAutotune or
/// setAutotune(true)): the first call of a config outside a stream capture times up to
/// kTuneCandidates of the heuristic's algorithms on that call's operands and stream, under a
/// sustained load as the generated GEMM's autotuner times its tiles (timeGpuCallsSustainedUs),
/// and keeps the fastest;
/// algorithms that reduce split-K partials in place (with atomics, not run-to-run
/// deterministic) are not candidates. Under a capture the heuristic's first choice runs and the
/// config is tuned on a later call. Off by default: on an H200 (2026-11-21, short bursts) it
/// gained nothing measurable on the training steps, and with it on the 128-block-scaled
/// linear.mlir at M = 37 left 999 outputs unwritten (GpuExampleTest), a candidate other than
/// the heuristic's first choice that was not investigated further; timed sustained (2026-12-04,
/// bench/README.md), the heuristic's first choice was the fastest of 8 at the Linear's wgrad
/// shape and within 0.15 % at its dgrad shape, and the tuned training steps ran 1.2-1.3 % slower.
class CublasLtRunner {
public:
  static constexpr size_t kWorkspaceBytes = size_t(32) << 20;
  static constexpr int kTuneCandidates = 8;

  /// A runner for the current context's device.
  static Expected<std::unique_ptr<CublasLtRunner>> create();
  ~CublasLtRunner();

  Status run(const CublasLtGemmConfig &c, const CublasLtGemmPointers &p, CUstream stream);
  /// Whether cuBLASLt has an algorithm for `c` on this device (the heuristic's answer,
  /// cached, refusals too); an Error only for a failure that is not "unsupported".
  Expected<bool> supports(const CublasLtGemmConfig &c, const CublasLtGemmPointers &p);
  Status run(const GemmStep &g, const LaunchPlan &plan, int64_t m,
             std::span<const CUdeviceptr> buffers, CUstream stream);
  /// How many configs have descriptors and an algorithm cached.
  size_t cachedConfigs() const;
  /// Autotuning's record of a config: how many algorithms were timed and, in microseconds per
  /// call, the heuristic's first choice and the one kept (its index in the heuristic's order),
  /// and every candidate's time in that order; empty before the config is tuned.
  struct TuneResult {
    int candidates = 0;
    double heuristicUs = 0, chosenUs = 0;
    int chosen = 0;
    std::vector<double> candidateUs;
  };
  std::optional<TuneResult> tuneResult(const CublasLtGemmConfig &c) const;
  void setAutotune(bool on) { autotune_ = on; }
  const Device &device() const { return device_; }

private:
  struct Entry;
  CublasLtRunner() = default;
  Expected<Entry *> entryFor(const CublasLtGemmConfig &c, const CublasLtGemmPointers &p);
  Status tune(Entry &e, const CublasLtGemmPointers &p, CUstream stream);
  Status matmul(const Entry &e, const cublasLtMatmulAlgo_t &algo, const CublasLtGemmPointers &p,
                CUstream stream);

  cublasLtHandle_t handle_ = nullptr;
  Device device_;
  DeviceBuffer workspace_;
  bool autotune_ = false;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  std::unordered_map<std::string, std::string> refused_; ///< config -> why cuBLASLt refused it
};

} // namespace fp8c
