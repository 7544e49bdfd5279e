// Executable::Impl, private to the runtime: the state behind an Executable (its plan, arena,
// loaded kernels, GEMM runners and the GEMM choices compile() made) and the steps that run it.
// Executable.cpp compiles, binds and runs; ExecutableGemmChoice.cpp prepares the generated
// GEMM's kernels and autotunes (prepareGemms, tuneGemm); ExecutableNonFinite.cpp counts and
// reports non-finite values. Not part of the public API.
#pragma once

#include "runtime/Executable.h"

#include "runtime/StepProfiler.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fp8c {

// What cuBLASLt gets for one GEMM step at one M, with the plan's fallbacks applied.
struct CublasCall {
  CublasLtGemmConfig config;
  CublasLtGemmPointers pointers;
  bool padRows = false;      ///< Block128 at M % 4 != 0: run with M rounded up to 4
  bool addBiasAfter = false; ///< no outer-vector algorithm with the bias: a launch adds it
  bool epilogueAfter = false; ///< no GELU_AUX algorithm: D is the GELU input, launches follow
  std::string refused;       ///< set (when asked to check) where cuBLASLt cannot take it
};

struct LoadedLaunch {
  CUfunction fn = nullptr;
  int maxBlocks = 1; ///< co-resident blocks on the whole device (persistent / cooperative cap)
};

/// Page-locked host memory (cuMemAllocHost), so that a device-to-host copy into it is
/// asynchronous. Move-only; freed with the driver it came from.
class PinnedHostBuffer {
public:
  PinnedHostBuffer() = default;
  static Expected<PinnedHostBuffer> allocate(CudaDriver *drv, size_t bytes);
  ~PinnedHostBuffer();
  PinnedHostBuffer(PinnedHostBuffer &&o) noexcept;
  PinnedHostBuffer &operator=(PinnedHostBuffer &&o) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer &) = delete;
  PinnedHostBuffer &operator=(const PinnedHostBuffer &) = delete;
  unsigned char *data() const { return static_cast<unsigned char *>(ptr_); }

private:
  CudaDriver *drv_ = nullptr;
  void *ptr_ = nullptr;
};

struct Executable::Impl {
  CompiledGraph compiled;
  MemoryPlan memory;
  CudaDriver *drv = nullptr;
  Device device;
  DeviceBuffer arena;
  std::unique_ptr<CublasLtRunner> cublas;
  std::unique_ptr<GemmSm90Runner> sm90;              ///< created when a step may use it
  std::map<std::string, GemmSm90Spec> sm90Kernels; ///< by step name: the step's config
  /// By step name: the autotuned generated kernel for M in `bucket` (gemmSm90TuneBucket).
  struct TunedGemm {
    GemmSm90Spec kernel;
    int64_t bucket = 0;
    std::string note; ///< for the log: how it was chosen
  };
  std::map<std::string, TunedGemm> sm90Tuned;
  /// By step name (backend auto): who measured faster for M in `bucket`, and the times.
  struct AutoChoice {
    bool generated = false;
    /// With `generated`: the step's unfused form (unfusedSteps) on the generated GEMM, then its
    /// epiFallback launches, measured faster than the fused kernel.
    bool unfused = false;
    int64_t bucket = 0;
    std::string why; ///< "auto: measured ..."
  };
  std::map<std::string, AutoChoice> autoChoice;
  /// By step name: the unfused form of a step with one (GemmSm90Step.h's unfusedGemmOf), kept
  /// where auto measured it (its kernels are prepared under its own name).
  std::map<std::string, GemmStep> unfusedSteps;
  bool autotune = true; ///< CompileOptions::autotune
  std::map<std::string, std::string> gemmLog;        ///< by step name: who ran it last
  std::map<std::string, LoadedLaunch> launches; ///< by kernelName
  std::vector<CUdeviceptr> loadedParams;        ///< parameter pointers the constants match
  bool paramsLoaded = false;                    ///< the constants hold loadedParams' quantization
  std::string arch; ///< the NVRTC target the kernels were compiled for
  double jitSeconds = 0;
  int coldCompiles = 0;
  std::unique_ptr<StepProfiler> profiler; ///< set while profiling (setProfiling)
  /// While runSteps runs: the last operation it put on the stream is a generated launch, so the
  /// next generated launch or generated GEMM may be launched as its programmatic dependent
  /// (their first global access waits for it: enterLaunch() in the launches' entry points, the
  /// GEMM's prologue).
  bool afterLaunch = false;

  /// Non-finite reporting (ExecutableNonFinite.cpp): with countNonFinite (and canCount: the
  /// kernels loaded), run() counts each Output buffer's (outputBuffers, plan order) NaN / inf
  /// elements into its u64 of outputCounts with countKernels[dtype]; enqueueNonFiniteReport
  /// copies those and each State buffer's skip counter (stateBuffers; the u32 after its bytes)
  /// into `report`: the u64s, then the u32s. lastRunCounted: the last run() counted;
  /// reportCounted: it had when enqueueNonFiniteReport last copied.
  bool canCount = false, countNonFinite = false, lastRunCounted = false, reportCounted = false;
  std::vector<int> outputBuffers, stateBuffers;
  std::map<DType, LoadedLaunch> countKernels;
  DeviceBuffer outputCounts;
  PinnedHostBuffer report;
  /// Compiles the counting kernels (with countNonFinite) and allocates the counters.
  Status prepareNonFinite(bool countOutputs);
  /// run()'s output counts, after its steps.
  Status countOutputs(const std::vector<CUdeviceptr> &ptrs, int64_t m, CUstream stream);

  const LaunchPlan &plan() const { return compiled.plan; }
  Status compileKernels(const std::vector<Step> &steps);
  Status runSteps(const std::vector<Step> &steps, const std::vector<CUdeviceptr> &ptrs,
                  int64_t m, CUstream stream);
  Expected<std::vector<CUdeviceptr>> bind(const Bindings &b, int64_t *m);
  Status launch(const GeneratedLaunch &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                CUstream stream, bool dependent = false);
  Status runGemm(const GemmStep &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                 CUstream stream);
  Expected<CublasCall> cublasCall(const GemmStep &g, const std::vector<CUdeviceptr> &ptrs,
                                  int64_t m, bool checkSupport);
  Status runCublas(const GemmStep &g, const CublasCall &call,
                   const std::vector<CUdeviceptr> &ptrs, int64_t m, CUstream stream);
  Status runSm90(const GemmStep &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                 CUstream stream, const std::string &why);
  Status prepareGemms(const std::vector<Step> &steps, int64_t maxM);
  /// Compiles and loads the generated GEMM's kernels `ks` ahead of their first run.
  Status prepareSm90(const std::vector<GemmSm90Spec> &ks);
  /// Per plan buffer, the largest M at which a run touches it, or -1 for maxM: a buffer that
  /// only the cuBLASLt forms of auto steps touch (cublasOnlyBuffersOf), where prepareGemms
  /// measured the generated GEMM faster at maxM's bucket, is touched only at M below that
  /// bucket (planMemory sizes it there).
  std::vector<int64_t> cublasOnlyRowsCap(int64_t maxM) const;
  /// With `tuneTiles` the generated GEMM's tile configs are autotuned at maxM; without (steps
  /// below kGemmSm90TuneMinRows rows) the heuristic's config is the one compared.
  Status tuneGemm(const GemmStep &g, const GemmSm90Spec &base, int64_t maxM,
                  bool tuneTiles, bool compareCublasLt, bool *generatedWins);
};

} // namespace fp8c
