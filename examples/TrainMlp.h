// A two-layer MLP regression trained with fp8c's training step (runtime/Training.h) on the
// CPU interpreter: y = linear(gelu_tanh(linear(x, w1, b1)), w2, b2), loss = mean((y - t)^2),
// targets from a fixed random teacher MLP (MlpProblem.h), a fresh random batch every step by
// default (seeded: every recipe sees the same data), plain SGD on f32 master weights on the
// host; the graph's dtype (f32 or bf16) is what the weights are rounded to each step.
// Used by examples/train_mlp.cpp and by the loss-curve test. The loop and its GPU
// counterpart are in MlpStepBackend.h and MlpGpuBackend.h.
#pragma once

#include "ir/DType.h"
#include "ir/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c::example {

struct MlpRegressionConfig {
  int64_t batch = 64, in = 64, hidden = 128, out = 32;
  int steps = 300;
  int pool = 0; ///< batches in the data pool, used in turn; 0: one per step (all fresh)
  float lr = 0.1f;
  uint64_t seed = 1;
  std::string recipe = "none"; ///< none | tensorwise | delayed | rowwise | blockwise
  DType dtype = DType::F32;    ///< the graph's dtype
};

/// The loss of every step (before that step's update).
Expected<std::vector<double>> trainMlpRegression(const MlpRegressionConfig &c);

} // namespace fp8c::example
