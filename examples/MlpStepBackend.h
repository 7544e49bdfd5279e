// The training loop of the MLP regression (TrainMlp.h) and the interface it drives: a step
// backend runs one SGD step of the student on a batch of the problem's pool (MlpProblem.h).
// Two backends: the CPU interpreter (InterpretedTraining, host loss and SGD; the reference,
// below) and the GPU (compileTraining, loss and SGD on the device; MlpGpuBackend.h).
//
// A step: y = mlp(x) with the current weights rounded to the graph's dtype; loss = mean((y -
// t)^2) over every element; dY = 2 (y - t) / n; the backward gives dL/dw; then w -= lr * dL/dw
// on the f32 master weights.
#pragma once

#include "MlpProblem.h"

#include "ir/DType.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace fp8c::example {

class MlpStepBackend {
public:
  virtual ~MlpStepBackend() = default;
  /// "CPU interpreter", "NVIDIA H200 (sm_90a, ...)".
  virtual std::string description() const = 0;
  /// Batches in the problem's pool.
  virtual int poolSize() const = 0;
  /// Starts a run of at most `steps` steps with `recipe` (none | tensorwise | delayed | rowwise
  /// | blockwise): builds the training step, sets the weights to the problem's initial ones and
  /// the scaling state (amax histories) to fresh.
  virtual Status begin(const std::string &recipe, int steps) = 0;
  /// One step on pool batch `batch` with learning rate `lr`.
  virtual Status step(int batch, float lr) = 0;
  /// The loss of every step since begin() (each before its update), in order. The GPU backend
  /// waits for its stream here.
  virtual Expected<std::vector<double>> losses() = 0;
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

/// The loop: begin(recipe, steps), then step(s % pool, lr) for s < steps, then losses().
Expected<LossCurve> runLossCurve(MlpStepBackend &backend, const std::string &recipe, int steps,
                                 float lr);

/// The CPU interpreter backend over `problem` (which must outlive it), graph dtype `dtype`
/// (F32 or BF16).
std::unique_ptr<MlpStepBackend> makeInterpreterBackend(const MlpProblem &problem, DType dtype);

/// max over the last `tail` steps (all when fewer) of |a - ref| / ref; the curves must have
/// equal lengths (else +inf).
double maxRelativeGap(const std::vector<double> &a, const std::vector<double> &ref, size_t tail);

} // namespace fp8c::example
