// The compiler driver: a graph through the pass pipeline and codegen to a LaunchPlan
// (compileToPlan, no GPU needed), then loaded as an Executable on a device (compile).
//
//   fp8c::CompileOptions opts;            // recipe = RecipeKind::Tensorwise (nullopt: none), ...
//   auto exe = fp8c::compile(graph, opts); // passes, codegen, NVRTC (cached), load, memory plan
//   if (!exe) { std::cerr << exe.error(); ... }
//   fp8c::Bindings b = {{"x", {xPtr, {m, 4096}, DType::BF16}}, {"w1", ...}, {"y", {yPtr, ...}}};
//   fp8c::Status s = (*exe)->run(b, stream); // no host sync, no allocation, graph-capturable
#pragma once

#include "codegen/Lowering.h"
#include "ir/IR.h"
#include "ir/Status.h"
#include "ir/GemmBackend.h"
#include "passes/PassManager.h"
#include "passes/Recipe.h"
#include "runtime/Executable.h"

#include <memory>
#include <optional>
#include <string>

namespace fp8c {

struct CompileOptions {
  /// The scaling recipe of the default pipeline (addDefaultPipeline), with its defaults
  /// (recipeDefaults); std::nullopt: no recipe, GEMMs and pointwise ops in the graph's own
  /// precision.
  std::optional<RecipeKind> recipe = RecipeKind::Tensorwise;
  std::string passes;                ///< a full pipeline; overrides `recipe` when set
  std::string arch;                  ///< NVRTC target; "" = the device's (sm_90a on Hopper)
  bool verifyEach = true;
  ElementwiseTuning tuning;          ///< generated elementwise launch shapes (default: built in)
  /// Who runs the FP8 GEMMs (ir/GemmBackend.h): Auto (cuBLASLt, the generated Hopper GEMM
  /// where cuBLASLt refuses a configuration), CublasLt or Generated (every FP8 GEMM on the
  /// generated kernel; a GEMM it cannot take is a compile() error). Every `fuse` of the
  /// pipeline plans for it. bf16/f16 GEMMs always run on cuBLASLt.
  GemmBackend backend = GemmBackend::Auto;
  /// A cast-transpose that shares no buffer with the FP8 GEMM step before it runs beside it:
  /// on the generated GEMM, by its producer warpgroup's idle warps during the main loops;
  /// after cuBLASLt, as its own launch (CodegenOptions::sideLaunches). Off (the default): one
  /// after the other. Opt-in: on the H200 under its power cap the delayed MLP's gelu_grad beside
  /// the weight-gradient GEMM at 8192 tokens tied with cuBLASLt plus the launch (958.8 against
  /// 965.9 us, fp8c-train-bench --sustain), so auto keeps the launch anyway.
  bool sideLaunches = false;
  /// How the executable is loaded: the device (default: the current context's), the largest
  /// M run() accepts, autotuning, non-finite counting (runtime/Executable.h).
  LoadOptions load;
};

/// Appends the pipeline compile() runs for `opts` to `pm`: its passes (text, each pass's options
/// parsed once; every `fuse` plans for opts.backend), else the default pipeline of its recipe
/// (or without one) with a fuse for opts.backend.
Status buildPipeline(PassManager &pm, const CompileOptions &opts);
/// Passes + lowering; no GPU needed. An empty `arch` lowers for sm_90a.
Expected<CompiledGraph> compileToPlan(const Graph &g, const CompileOptions &opts);
/// Compiles `g` for opts.load.device (the calling thread's current device by default) and
/// loads it there: passes, codegen for that device's arch (unless opts.arch names one),
/// NVRTC through the kernel cache, module loading, memory plan and arena allocation.
Expected<std::unique_ptr<Executable>> compile(const Graph &g, const CompileOptions &opts);

} // namespace fp8c
