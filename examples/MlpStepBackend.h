// The training loop of the MLP regression (TrainMlp.h) and the interface it drives: a step
// backend runs one SGD step of the student on one batch of the problem's pool (MlpProblem.h),
// or on several (micro-batches: gradient accumulation, train_mlp's --accumulate).
// Two backends: the CPU interpreter (InterpretedTraining, host loss and SGD; the reference,
// below) and the GPU (compileTraining, loss and SGD on the device; MlpGpuBackend.h).
//
// A step (an optimizer step): for each of its N micro-batches (N = 1 unless gradient
// accumulation), y = mlp(x) with the current weights rounded to the graph's dtype; loss =
// mean((y - t)^2) over every element; dY = 2 (y - t) / n; the backward gives dL/dw; all N at the
// same weights. Then w -= lr * (the mean of the N dL/dw) on the f32 master weights: one step on
// the mean of the micro-batches' losses, which is the step's loss.
#pragma once

#include "MlpProblem.h"

#include "ir/DType.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fp8c::example {

/// Forwards since begin(), by the WeightCasts each ran with (training/Training.h).
struct WeightCastCounts {
  int cast = 0, reuse = 0;
};

class MlpStepBackend {
public:
  virtual ~MlpStepBackend() = default;
  /// "CPU interpreter", "NVIDIA H200 (sm_90a, ...)".
  virtual std::string description() const = 0;
  /// Batches in the problem's pool.
  virtual int poolSize() const = 0;
  /// Starts a run of at most `steps` optimizer steps of `microBatches` (>= 1) micro-batches each
  /// with `recipe` (none | tensorwise | delayed | rowwise | blockwise, with quantize options
  /// after '+': training/Training.h's trainingOptionsFor): builds the training step, sets the
  /// weights to the problem's initial ones, the scaling state (amax histories) to fresh and the
  /// WeightCasts counts to zero.
  virtual Status begin(const std::string &recipe, int steps, int microBatches) = 0;
  /// One optimizer step with learning rate `lr` over the micro-batches `batches` (pool indices,
  /// exactly as many as begin() was given; N = 1 is a plain SGD step): the forward and backward
  /// of each at the same weights, then one SGD update with the mean of their gradients; its loss
  /// is the mean of theirs. The first micro-batch's forward casts the weights
  /// (WeightCasts::Cast); the others reuse those FP8 copies (WeightCasts::Reuse) when the
  /// step casts its weights at load (weights=static: training/Training.h's castsWeightsAtLoad),
  /// and cast again otherwise (the runtime refuses Reuse without weights=static). A forward that
  /// refuses is an Error, never retried.
  virtual Status step(const std::vector<int> &batches, float lr) = 0;
  /// The loss of every optimizer step since begin() (each before its update), in order. The GPU
  /// backend waits for its stream here.
  virtual Expected<std::vector<double>> losses() = 0;
  /// The forwards run since begin(), by WeightCasts.
  virtual WeightCastCounts weightCastCounts() const = 0;
  /// The f32 master weights by name (w1, b1, w2, b2), row-major, as the last step left them.
  /// The GPU backend waits for its stream here.
  virtual Expected<std::map<std::string, std::vector<float>>> masterWeights() = 0;
};

/// The student: y = linear(gelu_tanh(linear(x, w1, b1)), w2, b2), every tensor in `dtype`,
/// values named x, w1, b1, w2, b2 (inputs), h, g, y (y is the output).
Expected<std::unique_ptr<Graph>> buildMlpGraph(const MlpSizes &sizes, DType dtype);

/// A loss curve and where its time went.
struct LossCurve {
  std::vector<double> loss;
  double beginSeconds = 0; ///< begin(): building / compiling the training step
  double stepSeconds = 0;  ///< the steps and losses()
};

/// The loop: begin(recipe, steps, accumulate), then for s < steps the optimizer step over the
/// micro-batches (s * accumulate + i) % pool, i < accumulate (the pool's batches in turn), then
/// losses(): one loss per optimizer step.
Expected<LossCurve> runLossCurve(MlpStepBackend &backend, const std::string &recipe, int steps,
                                 float lr, int accumulate = 1);

/// The CPU interpreter backend over `problem` (which must outlive it), graph dtype `dtype`
/// (F32 or BF16).
std::unique_ptr<MlpStepBackend> makeInterpreterBackend(const MlpProblem &problem, DType dtype);

/// train_mlp's default bound on maxRelativeGap(fp8 curve, bf16 curve, kGapTail), also what the
/// GPU test holds the recipes to. test/unit/training/TrainingLossCurveTest.cpp holds every step of every
/// FP8 recipe to 3 % of the unquantized loss on the CPU (1.5x the worst it measured). What FP8
/// rounding alone costs: e4m3 rounds each operand element with a relative error of at most
/// 2^-4 (~2.5 % RMS), so an FP8 GEMM output moves by ~3.5 % RMS and y by ~5 % RMS after two,
/// which adds about (0.05)^2 E[y^2] ~ 1e-3 to the loss (E[y^2] ~ 0.4 in this problem): under
/// 1 % while the loss stays above 0.1; the e5m2 gradients move the trajectory by the rest. A broken
/// recipe (a stale or wrong scale, a wrong gradient) leaves the loss near its start or makes it
/// NaN: far outside 3 %.
inline constexpr double kMaxRelGapDefault = 0.03;
/// The steps at the end of the curves that the gap is taken over.
inline constexpr size_t kGapTail = 50;

/// max over the last `tail` steps (all when fewer) of |a - ref| / ref; the curves must have
/// equal lengths (else +inf). NaN when a loss in the window is NaN.
double maxRelativeGap(const std::vector<double> &a, const std::vector<double> &ref, size_t tail);

} // namespace fp8c::example
