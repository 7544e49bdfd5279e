// The GPU step backend of the MLP regression (MlpStepBackend.h): the training step from
// compileTraining (training/TrainingGpu.h) on device 0 with a bf16 graph, and the loss and the
// SGD update as fp8c-compiled graphs (MlpUpdateGraphs.h), so a step never leaves the device:
//
//   forward(x = pool[b], weights = bf16 slices of the flat parameter vector) -> y
//   loss graph(y, -t = pool[b])   -> dy = 2 (y - t) / n, column sums of (y - t)^2 (into a
//                                    per-step row of a device array: no host sync per step)
//   backward(dy)                  -> bf16 gradients (slices of the flat gradient vector)
//   sgd graph(master, gradients)  -> the other f32 master buffer and the bf16 weights
//
// With gradient accumulation (N micro-batches per optimizer step) that runs once per
// micro-batch with -lr / N, and the bf16 weights are written only by the last micro-batch's
// sgd graph (the others write a scratch buffer), so every micro-batch sees the step's starting
// weights; why that is one SGD step on the mean gradient is in MlpGpuBackend.cpp.
// The pool (x in bf16, -t in f32) and the initial weights are uploaded once, when the backend
// is made; begin() compiles the recipe's training step and copies the initial weights back.
// Every CUDA call is checked and its failure returned as an Error.
#pragma once

#include "MlpStepBackend.h"

namespace fp8c::example {

/// The GPU backend over `problem` (it keeps what it needs on the device; `problem` may go
/// away after the call). An Error where there is no CUDA device or an upload fails.
Expected<std::unique_ptr<MlpStepBackend>> makeGpuBackend(const MlpProblem &problem);

} // namespace fp8c::example
