// The training-step API (docs/architecture.md, "Training"): a forward graph becomes a forward
// and a backward program that share the saved tensors (what the forward keeps for the
// backward, passes/TrainingSplit.h) and keep their scaling state (amax histories of inputs,
// weights and gradients) across steps.
//
//   fp8c::TrainingOptions o;                        // recipe = recipeDefaults(Delayed), ...
//   auto step = fp8c::InterpretedTraining::create(graph, o);   // CPU interpreter
//   auto outs = step->forward({{"x", x}, {"w1", w1}, ...});     // by input name
//   auto grads = step->backward({{"y", dLoss_dY}});             // by output name
//   grads->at("w1") ...                                          // by input name
//
// InterpretedTraining runs it on the CPU interpreter (the reference); training/TrainingGpu.h's
// compileTraining runs the same graphs on the GPU.
// The weight update is the caller's (examples/train_mlp.cpp does SGD on the host).
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"
#include "passes/TrainingPipeline.h"
#include "interp/HostTensor.h"
#include "interp/NonFiniteReport.h"

#include <map>
#include <memory>
#include <string>

namespace fp8c {

struct TrainingOptions {
  /// The recipe and its options (passes/Recipe.h); std::nullopt: no quantization. Its
  /// staticWeights (`weights=static`) quantizes the weights (fp8.param inputs) with their own
  /// amax in steps of their own, whose FP8 copies a forward may reuse while the weights are
  /// unchanged (WeightCasts::Reuse: gradient accumulation).
  std::optional<Recipe> recipe = recipeDefaults(RecipeKind::Tensorwise);
  int64_t tokens = 0;                ///< the dynamic leading dim, when the graph has one
  bool fuse = false; ///< run `fuse` on each half (the interpreter's results are the same)
  /// The FP8 GEMM backend (fused for, and for compileTraining also run on; the interpreter
  /// ignores it).
  GemmBackend gemmBackend = GemmBackend::Auto;
  /// ElementwiseTuning::fp8Tables of both halves' launches (-1: the default, on; 0: off).
  int fp8Tables = -1;
  /// ElementwiseTuning::byteStagedTranspose of both halves (-1: the default, on; 0: off).
  int byteStagedTranspose = -1;
  /// ElementwiseTuning::insideTiles of both halves (-1: the default, on; 0: off).
  int insideTiles = -1;
  /// CompileOptions::sideLaunches of both halves (a cast-transpose beside the GEMM before it).
  bool sideLaunches = false;
  /// CompileOptions::cublasLtAutotune of both halves (cuBLASLt's algorithm tuned sustained).
  bool cublasLtAutotune = false;
  /// The backward's gelu_grad may join the dgrad GEMM's epilogue (the fuse pass's
  /// grad-epilogue; off also with sideLaunches, whose launch it would take).
  bool gradEpilogue = true;
  /// CompileOptions::countNonFinite of both halves (GpuTraining::nonFiniteReport counts the
  /// NaN / inf elements of the outputs and input gradients; the interpreter always does).
  bool countNonFinite = false;
};

using NamedTensors = std::map<std::string, HostTensor, std::less<>>;

/// What a forward does with the FP8 copies of the weights of a step built with weights=static
/// (TrainingOptions::recipe). Cast: quantize the bound weights (what every forward does
/// by default, so an in-place weight update is always seen). Reuse: keep the copies of the last
/// forward that cast, for the micro-batches of a gradient accumulation whose weights have not
/// changed since (TransformerEngine's is_first_microbatch=False). A Reuse forward computes what
/// a forward would with the weights of that last Cast forward; it is an error without
/// weights=static, before any Cast forward, where the step reads a weight besides casting it
/// (that read would see the bound weight), or (on the GPU) with a weight bound to another buffer
/// than at that cast.
enum class WeightCasts { Cast, Reuse };

/// Options from a recipe spec as fp8c-train-bench and train_mlp take it: the recipe (or
/// "none"), then quantize options after '+', each `K=V` ("delayed+weights=static+history_len=4"),
/// parsed into TrainingOptions::recipe; the other fields keep their defaults. An unknown recipe
/// or option is an error.
Expected<TrainingOptions> trainingOptionsFor(const std::string &recipeSpec);

/// Whether a step's forward casts its weights in load steps (built with weights=static: its
/// weights are fp8.param inputs), so WeightCasts::Reuse may keep their FP8 copies.
bool castsWeightsAtLoad(const TrainingGraphs &graphs);

/// The pipeline options TrainingOptions mean.
TrainingPipelineOptions pipelineOptionsFor(const TrainingOptions &o);

/// A training step on the CPU interpreter. State starts at zero (empty histories), as an
/// Executable's does after resetState().
class InterpretedTraining {
public:
  static Expected<std::unique_ptr<InterpretedTraining>> create(const Graph &g,
                                                               const TrainingOptions &o);
  const TrainingGraphs &graphs() const { return graphs_; }

  /// Runs the forward on the named inputs (every non-state input of the forward graph);
  /// returns its outputs by name (state updates and saved tensors are kept inside). With
  /// WeightCasts::Reuse the weights (fp8.param inputs) read as at the last Cast forward.
  Expected<NamedTensors> forward(const NamedTensors &inputs, WeightCasts casts = WeightCasts::Cast);
  /// Runs the backward of the last forward with the gradients of the outputs (by output
  /// name); returns the gradients of the inputs by input name.
  Expected<NamedTensors> backward(const NamedTensors &outputGrads);
  /// A state's current value (an amax history), or null when there is no such key.
  const HostTensor *state(const std::string &key) const;
  /// Replaces a state's value (same shape and dtype), e.g. to continue from another runner's
  /// histories: a test that steps the GPU and this reference side by side gives both the same
  /// scales, so they differ only by rounding, not by a history one GEMM rounding apart.
  Status setState(const std::string &key, HostTensor value);
  std::vector<std::string> stateKeys() const;
  /// What the steps saw of non-finite values (docs/numerics.md): per amax history (fp8.state
  /// key) the non-finite amaxes its pushes skipped since create(), the history and the scale
  /// kept (GpuTraining::nonFiniteReport counts the same since resetState); per result of the
  /// last forward (outputs, by name) and backward (input gradients, by fp8.grad key) its NaN /
  /// +-inf elements.
  const NonFiniteReport &nonFiniteReport() const { return nonFinite_; }

private:
  InterpretedTraining() = default;
  Expected<std::vector<HostTensor>> runHalf(const Graph &g, const NamedTensors &named);
  void keepStates(const Graph &g, std::vector<HostTensor> &outs);

  TrainingGraphs graphs_;
  NamedTensors state_;   ///< by fp8.state key
  NamedTensors saved_;   ///< by fp8.saved key
  NamedTensors inputs_;  ///< the last forward's inputs (the backward may read some)
  NamedTensors castWeights_; ///< the fp8.param inputs of the last Cast forward
  bool castRan_ = false;
  NonFiniteReport nonFinite_;
  /// Counts the results' non-finite elements into nonFinite_.outputs (replacing those names).
  void countResults(const NamedTensors &results);
};

/// The name of a graph's result i: its fp8.grad / fp8.saved / fp8.state key, else the
/// returned value's name.
std::string resultName(const Graph &g, unsigned i);

} // namespace fp8c
