// The training pipeline: forward graph -> (autodiff, quantize with the recipe, clean-up) ->
// split into forward and backward graphs (TrainingSplit.h) -> fuse each half. What
// `fp8c FILE --train --recipe=R` prints and what compile_training compiles.
#pragma once

#include "passes/Passes.h"
#include "passes/Recipe.h"
#include "passes/TrainingSplit.h"
#include "ir/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <ostream>

namespace fp8c {

class PassManager;

struct TrainingPipelineOptions {
  /// The recipe `quantize` applies; std::nullopt: no quantization (the bf16/f32 step).
  std::optional<Recipe> recipe = recipeDefaults(RecipeKind::Tensorwise);
  /// > 0: the dynamic leading dim becomes this many tokens first. Training graphs need static
  /// shapes (wgrad reduces over the tokens, and the transposes move them off the leading dim).
  int64_t tokens = 0;
  bool fuse = true;
  /// What `fuse` does on each half: the FP8 GEMM backend the halves are fused for, and whether
  /// the backward's gelu_grad may join the dgrad GEMM's epilogue (off with side launches,
  /// which run its cast-transpose beside another GEMM).
  FuseOptions fuseOptions;
  bool verifyEach = true;
  std::ostream *analysisOut = nullptr; ///< --print-fusion-plan of each half
  std::ostream *dumpOut = nullptr;     ///< --print-ir-after-all of the passes
  bool printIrAfterAll = false;
};

/// Appends the passes before the split: shape-infer (with the tokens), canonicalize, autodiff,
/// quantize with the recipe and canonicalize (when there is a recipe), cse, dce.
void addTrainingPipelinePrefix(PassManager &pm, const TrainingPipelineOptions &o);

/// Runs the training pipeline on a copy of `g`. Errors are located diagnostics in `diag`
/// (returns an Error whose message says which step failed).
Expected<TrainingGraphs> buildTrainingGraphs(const Graph &g, const TrainingPipelineOptions &o,
                                             DiagnosticEngine &diag);

} // namespace fp8c
