// The training pipeline: forward graph -> (autodiff, quantize with the recipe, clean-up) ->
// split into forward and backward graphs (TrainingSplit.h) -> fuse each half. What
// `fp8c FILE --train --recipe=R` prints and what compile_training compiles.
#pragma once

#include "passes/TrainingSplit.h"
#include "ir/Diagnostics.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace fp8c {

struct TrainingPipelineOptions {
  /// tensorwise | delayed | rowwise | blockwise | none (no quantization: the bf16/f32 step).
  std::string recipe = "tensorwise";
  /// More quantize options, pipeline syntax (`history_len=4 margin=1`).
  std::string recipeOptions;
  /// > 0: the dynamic leading dim becomes this many tokens first. Training graphs need static
  /// shapes (wgrad reduces over the tokens, and the transposes move them off the leading dim).
  int64_t tokens = 0;
  bool fuse = true;
  /// The FP8 GEMM backend the halves are fused for when forced ("cublaslt", "generated").
  std::string gemmBackend;
  /// The backward's gelu_grad may join the dgrad GEMM's epilogue (the fuse pass's
  /// grad-epilogue); off with side launches, which run its cast-transpose beside another GEMM.
  bool gradEpilogue = true;
  bool verifyEach = true;
  std::ostream *analysisOut = nullptr; ///< --print-fusion-plan of each half
  std::ostream *dumpOut = nullptr;     ///< --print-ir-after-all of the passes
  bool printIrAfterAll = false;
};

/// The passes before the split, as a pipeline string.
std::string trainingPipelinePrefix(const TrainingPipelineOptions &o);

/// Runs the training pipeline on a copy of `g`. Errors are located diagnostics in `diag`
/// (returns an Error whose message says which step failed).
Expected<TrainingGraphs> buildTrainingGraphs(const Graph &g, const TrainingPipelineOptions &o,
                                             DiagnosticEngine &diag);

} // namespace fp8c
