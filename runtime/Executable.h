// The C++ compile/run API (docs/architecture.md, "Runtime"):
//
//   fp8c::CompileOptions opts;            // recipe = RecipeKind::Tensorwise (nullopt: none), ...
//   auto exe = fp8c::compile(graph, opts); // passes, codegen, NVRTC (cached), load, memory plan
//   if (!exe) { std::cerr << exe.error(); ... }
//   fp8c::Bindings b = {{"x", {xPtr, {m, 4096}, DType::BF16}}, {"w1", ...}, {"y", {yPtr, ...}}};
//   fp8c::Status s = (*exe)->run(b, stream); // no host sync, no allocation, graph-capturable
//
// Bindings name graph inputs, parameters and outputs (an output is named after the value the
// graph returns). Scaling state (amax histories) lives on the device inside the executable
// and persists across runs. Non-finite values are reported, not hidden (docs/numerics.md):
// enqueueNonFiniteReport / nonFiniteReport give, without a synchronization of their own, the
// non-finite amaxes each history skipped and (CompileOptions::countNonFinite) the NaN / inf
// elements of each output. With weights=static, parameters are quantized once: on the first
// run that binds them, when their pointers change, or after invalidateParameters() (their
// contents changed in place). No exception crosses this API.
#pragma once

#include "codegen/LaunchPlan.h"
#include "codegen/Lowering.h"
#include "ir/DType.h"
#include "ir/IR.h"
#include "ir/Status.h"
#include "ir/GemmBackend.h"
#include "passes/PassManager.h"
#include "passes/Recipe.h"
#include "runtime/MemoryPlan.h"
#include "runtime/NonFiniteReport.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace fp8c {

struct CompileOptions {
  /// The scaling recipe of the default pipeline (addDefaultPipeline), with its defaults
  /// (recipeDefaults); std::nullopt: no recipe, GEMMs and pointwise ops in the graph's own
  /// precision.
  std::optional<RecipeKind> recipe = RecipeKind::Tensorwise;
  std::string passes;                ///< a full pipeline; overrides `recipe` when set
  std::string arch;                  ///< NVRTC target; "" = the device's (sm_90a on Hopper)
  int64_t maxTokens = 8192;          ///< the largest M run() accepts (sizes the memory plan)
  bool verifyEach = true;
  ElementwiseTuning tuning;          ///< generated elementwise launch shapes (default: built in)
  /// Who runs the FP8 GEMMs (ir/GemmBackend.h): Auto (cuBLASLt, the generated Hopper GEMM
  /// where cuBLASLt refuses a configuration), CublasLt or Generated (every FP8 GEMM on the
  /// generated kernel; a GEMM it cannot take is a compile() error). Every `fuse` of the
  /// pipeline plans for it. bf16/f16 GEMMs always run on cuBLASLt.
  GemmBackend backend = GemmBackend::Auto;
  /// On a Hopper GPU (sm_90), measure in compile() (runtime/gpu/GemmSm90Autotune.h): each FP8
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
  /// A cast-transpose that shares no buffer with the FP8 GEMM step before it runs beside it:
  /// on the generated GEMM, by its producer warpgroup's idle warps during the main loops;
  /// after cuBLASLt, as its own launch (CodegenOptions::sideLaunches). Off (the default): one
  /// after the other. Opt-in: on the H200 under its power cap the delayed MLP's gelu_grad beside
  /// the weight-gradient GEMM at 8192 tokens tied with cuBLASLt plus the launch (958.8 against
  /// 965.9 us, fp8c-train-bench --sustain), so auto keeps the launch anyway.
  bool sideLaunches = false;
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

/// A device tensor handed to run(): pointer, concrete shape, dtype (compact row-major).
struct DeviceTensor {
  void *data = nullptr;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
};
using Bindings = std::map<std::string, DeviceTensor, std::less<>>;

/// What compile() produces before touching a GPU: the fused graph and its lowered plan.
struct CompiledGraph {
  std::unique_ptr<Graph> graph; ///< after the pipeline
  LaunchPlan plan;
  std::string pipeline;
};

/// Appends the pipeline compile() runs for `opts` to `pm`: its passes (text, each pass's options
/// parsed once; every `fuse` plans for opts.backend), else the default pipeline of its recipe
/// (or without one) with a fuse for opts.backend.
Status buildPipeline(PassManager &pm, const CompileOptions &opts);
/// Passes + lowering; no GPU needed. `arch` must be set (or defaults to sm_90a).
Expected<CompiledGraph> compileToPlan(const Graph &g, const CompileOptions &opts);

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
  /// Seconds compile() spent in NVRTC/cache lookups, and how many kernels it compiled cold.
  double jitSeconds() const;
  int coldCompiles() const;
  /// Per GEMM step of the last run(), in plan order: "<step name>: <who ran it>", e.g.
  /// "fp8c_mlp_k3_gemm: cublaslt", "...: generated sm90 fp8c_gemm_sm90_... (auto: cuBLASLt
  /// refused: ...)" or, where compile() measured (CompileOptions::autotune), "...: generated
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
  /// and the scale, since compile() or resetState(). All zero before the first copy.
  NonFiniteReport nonFiniteReport() const;
  /// Whether run() counts the outputs' NaN / inf elements: on after compile() with
  /// CompileOptions::countNonFinite, which loads the counting kernels (without it, this does
  /// nothing). Off, e.g. for timed runs, a run costs nothing extra.
  void setCountNonFinite(bool on);

  struct Impl;

private:
  friend Expected<std::unique_ptr<Executable>> compile(const Graph &, const CompileOptions &);
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Compiles `g` for the current device (device 0): passes, codegen, NVRTC through the kernel
/// cache, module loading, memory plan and arena allocation.
Expected<std::unique_ptr<Executable>> compile(const Graph &g, const CompileOptions &opts);

} // namespace fp8c
