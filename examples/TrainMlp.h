// A two-layer MLP regression trained with fp8c's training step (training/Training.h) on the
// CPU interpreter: y = linear(gelu_tanh(linear(x, w1, b1)), w2, b2), loss = mean((y - t)^2),
// targets from a fixed random teacher MLP (MlpProblem.h), a fresh random batch every step (every
// micro-batch with gradient accumulation) by default (seeded: every recipe sees the same data),
// plain SGD on f32 master weights on the host; the graph's dtype (f32 or bf16) is what the weights
// are rounded to each step. Used by examples/train_mlp.cpp and by the loss-curve test. The loop and
// its GPU counterpart are in MlpStepBackend.h and MlpGpuBackend.h. Also train_mlp's command line
// (parseTrainMlpArgs), here so that the tests can check its usage errors.
#pragma once

#include "MlpStepBackend.h"

#include "ir/DType.h"
#include "ir/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c::example {

struct MlpRegressionConfig {
  int64_t batch = 64, in = 64, hidden = 128, out = 32;
  int steps = 300;
  int pool = 0; ///< batches in the data pool, used in turn; 0: one per micro-batch (all fresh)
  int accumulate = 1; ///< micro-batches per optimizer step (gradient accumulation)
  float lr = 0.1f;
  uint64_t seed = 1;
  std::string recipe = "none"; ///< none | tensorwise | delayed | rowwise | blockwise
  DType dtype = DType::F32;    ///< the graph's dtype
};

/// The loss of every optimizer step (before that step's update).
Expected<std::vector<double>> trainMlpRegression(const MlpRegressionConfig &c);

/// train_mlp's command line with its defaults applied (examples/train_mlp.cpp).
struct TrainMlpArgs {
  std::string device = "cpu"; ///< cpu | gpu
  std::string csv;            ///< "" : no CSV
  MlpSizes sizes;
  int64_t steps = 0;      ///< optimizer steps: 300 on the CPU, 200 on the GPU by default
  int64_t accumulate = 1; ///< micro-batches per optimizer step
  int64_t pool = 0;       ///< steps x accumulate on the CPU (all fresh), 8 on the GPU by default
  int64_t seed = 1;
  double lr = 0.1, maxGap = kMaxRelGapDefault;
  std::vector<std::string> recipes = {"tensorwise", "delayed", "blockwise"};
};

/// The largest --accumulate train_mlp takes (the counts stay far inside int).
inline constexpr int64_t kMaxAccumulate = 65536;

/// train_mlp's usage text: the options and what --accumulate means (the others are described
/// at the top of train_mlp.cpp).
extern const char *const kTrainMlpUsage;

/// Parses train_mlp's options (argv[1..]); an Error saying which option is wrong and why, for
/// an unknown option or a bad value (e.g. "--accumulate=0").
Expected<TrainMlpArgs> parseTrainMlpArgs(const std::vector<std::string> &args);

} // namespace fp8c::example
