// Splitting a training graph (the output of `autodiff`, possibly quantized) into the forward
// graph and the backward graph, with the tensors the forward saves for the backward chosen
// explicitly:
//   - the forward computes what its outputs (the graph's results that are not gradients, and
//     the state updates that do not depend on a gradient) need;
//   - every FP8 tensor computed from forward values only and used by the backward (the
//     transposed FP8 copies of activations and weights that wgrad and dgrad read) is computed
//     in the forward too, with what it depends on, so the forward saves the 1-byte copy instead
//     of its high-precision source: with an FP8 recipe, saved memory falls;
//   - everything else is the backward's.
// The forward returns its outputs, then each saved tensor as a result `{fp8.saved = "key"}`;
// the backward takes each saved tensor as an input with the same attribute, the forward inputs
// it reads (weights, by their names), the gradient inputs and its own state, and returns the
// gradients and its state updates. A state (fp8.state pair) belongs to the half that computes
// its update.
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace fp8c {

struct SavedTensor {
  std::string key; ///< fp8.saved key: forward result and backward input name
  TensorType type;
};

struct TrainingGraphs {
  std::unique_ptr<Graph> forward;  ///< @<name>_fwd
  std::unique_ptr<Graph> backward; ///< @<name>_bwd
  std::vector<SavedTensor> saved;
  /// Forward inputs the backward also reads (bound to the same buffers).
  std::vector<SavedTensor> sharedInputs;
  /// Bytes of the saved tensors plus the shared inputs (dynamic dims counted as 1): what the
  /// forward keeps alive for the backward.
  int64_t savedBytes() const;
};

/// Splits `train` (see the file comment). An error when the graph has no fp8.grad inputs or a
/// state is read by both halves.
Expected<TrainingGraphs> splitTrainingGraph(const Graph &train);

} // namespace fp8c
