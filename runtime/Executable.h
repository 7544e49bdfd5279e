// An executable: a LaunchPlan's kernels JIT-compiled and loaded on one device, its arena, and
// run() on the caller's stream (docs/architecture.md, "Runtime"). driver/Compile.h's compile()
// builds one from a graph; Executable::load takes a plan compiled before.
//
// Bindings name graph inputs, parameters and outputs (an output is named after the value the
// graph returns). Scaling state (amax histories) lives on the device inside the executable
// and persists across runs. Non-finite values are reported, not hidden (docs/numerics.md):
// enqueueNonFiniteReport / nonFiniteReport give, without a synchronization of their own, the
// non-finite amaxes each history skipped and (LoadOptions::countNonFinite) the NaN / inf
// elements of each output. With weights=static, parameters are quantized once: on the first
// run that binds them, when their pointers change, or after invalidateParameters() (their
// contents changed in place). Every call that touches the device makes the executable's
// device's primary context current for its duration and restores the caller's after. No
// exception crosses this API.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/DType.h"
#include "ir/IR.h"
#include "ir/Status.h"
#include "runtime/MemoryPlan.h"
#include "interp/NonFiniteReport.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace fp8c {


/// A device tensor handed to run(): pointer, concrete shape, dtype (compact row-major).
struct DeviceTensor {
  void *data = nullptr;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
};
using Bindings = std::map<std::string, DeviceTensor, std::less<>>;

/// A graph compiled for one target before touching a GPU (driver/Compile.h's compileToPlan):
/// the graph after the pipeline and its lowered plan.
struct CompiledGraph {
  std::unique_ptr<Graph> graph; ///< after the pipeline
  LaunchPlan plan;
  std::string pipeline;
  std::string arch; ///< the NVRTC target the plan was lowered for
};

/// How an executable is loaded onto its device.
struct LoadOptions {
  /// The CUDA device ordinal; -1: the device of the calling thread's current context, device 0
  /// when none is current.
  int device = -1;
  int64_t maxTokens = 8192; ///< the largest M run() accepts (sizes the memory plan)
  /// On a Hopper GPU (sm_90), measure while loading (runtime/gpu/GemmSm90Autotune.h): each FP8
  /// GEMM step that may run on the generated GEMM and has at least kGemmSm90TuneMinRows rows
  /// at maxTokens gets the fastest of a few tile configs, timed at that M on scratch buffers
  /// (the winner is cached on disk next to the kernels); with backend Auto, the step runs on
  /// whichever of cuBLASLt and that winner measured faster (the generated GEMM only when at
  /// least 1 % faster); a step with fewer rows (decode) is not tile-tuned but, with Auto,
  /// timed the same way against cuBLASLt with the heuristic's config. Both choices hold for M
  /// in the power-of-two bucket of the step's largest M; smaller M keep the heuristic
  /// (chooseGemmSm90Tiles; auto: cuBLASLt where it accepts).
  /// Off, or without a Hopper GPU: no measurement, the heuristics alone.
  bool autotune = true;
  /// cuBLASLt's algorithm per GEMM config tuned on its first call: the heuristic's candidates
  /// timed under a sustained load (CublasLtRunner autotuning; FP8C_CUBLASLT_AUTOTUNE=1 turns it
  /// on for every executable). Off (the default): the heuristic's first choice.
  bool cublasLtAutotune = false;
  /// After each run(), count every output's NaN and +-inf elements on the device for
  /// nonFiniteReport(): one more launch per output, reading it once (its bytes at the device's
  /// read rate: ~20 us for a 64 MiB output, e.g. y [8192, 4096] bf16, at ~3.3 TB/s; ~3 us of
  /// launch at decode sizes) and a 4-byte memset per run. Off (the default): outputs are not
  /// counted. The histories' skipped amaxes are counted either way (an atomic on the skip
  /// path only: nothing on a clean run).
  bool countNonFinite = false;
};

/// The device ordinal `device` names (LoadOptions::device: -1 resolves to the current
/// context's device, else 0) and that device's NVRTC target ("sm_90a" on Hopper).
struct TargetDevice {
  int ordinal = 0;
  std::string arch;
};
Expected<TargetDevice> resolveDevice(int device);

/// One step's time in a profiled run (Executable::lastProfile).
struct StepTime {
  std::string name; ///< the step's kernel or GEMM name
  std::string what; ///< the ops it runs, or "gemm: <who ran it>"
  double us = 0;
  /// A generated launch: the bytes of the buffers it takes at the run's M (bytesTouched, the
  /// fewest it can move). 0 for a GEMM step.
  int64_t bytes = 0;
};

class Executable {
public:
  ~Executable();
  const Graph &graph() const;
  const LaunchPlan &plan() const;
  const MemoryPlan &memoryPlan() const;
  /// Names callers bind: inputs (incl. parameters) and outputs.
  std::vector<std::string> inputNames() const;
  std::vector<std::string> parameterNames() const;
  std::vector<std::string> outputNames() const;
  std::vector<std::string> stateNames() const;
  /// Seconds loading spent in NVRTC/cache lookups, and how many kernels it compiled cold.
  double jitSeconds() const;
  int coldCompiles() const;
  /// Per GEMM step of the last run(), in plan order: "<step name>: <who ran it>", e.g.
  /// "fp8c_mlp_k3_gemm: cublaslt", "...: generated sm90 fp8c_gemm_sm90_... (auto: cuBLASLt
  /// refused: ...)" or, where loading measured (LoadOptions::autotune), "...: generated
  /// sm90 fp8c_gemm_sm90_... (auto: measured 612.3 us vs cuBLASLt 640.1 us at M=8192;
  /// autotuned: ...)" / "...: cublaslt (auto: measured 640.1 us vs generated 700.2 us at
  /// M=8192)". Empty before the first run. For logs (fp8c --run=gpu prints it).
  std::vector<std::string> gemmBackendLog() const;

  /// Runs the graph on `stream`. Checks every binding's shape and dtype against the graph.
  Status run(const Bindings &bindings, CUstream stream);
  /// With weights=static: the parameters' contents changed in place (an optimizer step), so
  /// the next run() quantizes them again (runs the plan's load steps) even though their
  /// pointers are the same. Without load steps it does nothing.
  void invalidateParameters();
  /// Whether the plan quantizes its parameters in load steps (weights=static): those run on
  /// the first run(), when the parameters' pointers change, or after invalidateParameters().
  bool hasLoadSteps() const;
  /// Zeroes every state buffer (fresh amax histories) and every Scratch buffer, on `stream`.
  Status resetState(CUstream stream);
  /// With profiling on, run() records a CUDA event after each step it enqueues (a few
  /// microseconds per step); lastProfile() waits for the last run and returns each step's time
  /// (runtime/StepProfiler.h). For breakdowns in benchmarks, not for timing the whole run.
  void setProfiling(bool on);
  Expected<std::vector<StepTime>> lastProfile();
  /// Reads a state buffer (synchronizes `stream`). For tests and monitoring.
  Expected<std::vector<float>> readState(const std::string &key, CUstream stream);
  /// Enqueues on `stream`, after the runs before it, the copy of the non-finite counters into
  /// pinned host memory (8 bytes per output, 4 per state buffer); no synchronization, so a
  /// training loop may ask every step and read the answer after its own sync.
  Status enqueueNonFiniteReport(CUstream stream);
  /// The counters the last enqueueNonFiniteReport copied, valid once its stream has reached
  /// that copy (synchronize it first): per output (plan order) the NaN / +-inf elements of the
  /// last run() before the copy (-1 where that run did not count them); per state buffer (an
  /// amax history, by its key) the non-finite amaxes its pushes skipped, keeping the history
  /// and the scale, since loading or resetState(). All zero before the first copy.
  NonFiniteReport nonFiniteReport() const;
  /// Whether run() counts the outputs' NaN / inf elements: on after loading with
  /// LoadOptions::countNonFinite, which loads the counting kernels (without it, this does
  /// nothing). Off, e.g. for timed runs, a run costs nothing extra.
  void setCountNonFinite(bool on);

  /// Loads `compiled` on its device: NVRTC through the kernel cache, module loading, the GEMM
  /// choices (with autotuning, LoadOptions::autotune), the memory plan and the arena; state
  /// zeroed.
  static Expected<std::unique_ptr<Executable>> load(CompiledGraph compiled,
                                                    const LoadOptions &opts);

  struct Impl;

private:
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace fp8c
