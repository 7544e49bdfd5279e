// Factories of fp8c's passes, one per file. The registry (PassRegistry.cpp) names them.
#pragma once

#include "ir/GemmBackend.h"
#include "passes/Pass.h"
#include "passes/Recipe.h"
#include "ir/Status.h"

#include <memory>

namespace fp8c {

/// Runs the verifier as a pass.
std::unique_ptr<Pass> createVerifyPass();
/// Re-infers every result type from the inputs; `tokens` > 0 first specializes the dynamic
/// leading dim of every input to that many tokens (pipeline text: `shape-infer{tokens=N}`).
std::unique_ptr<Pass> createShapeInferPass(int64_t tokens = 0);
/// The tokens of `shape-infer{tokens=N}` (0 when not given).
Expected<int64_t> parseShapeInferTokens(const PassOptions &opts);
/// Folds convert chains through exact widenings, converts to the same dtype, cast-of-dequant
/// with the same scale, transpose of transpose, relu of relu.
std::unique_ptr<Pass> createCanonicalizePass();
/// Common-subexpression elimination of region-free ops within each block.
std::unique_ptr<Pass> createCsePass();
/// Removes ops whose results are unused (inside kernel regions too).
std::unique_ptr<Pass> createDcePass();
// What `dce` does to one block (kernel regions included): erases every op whose results are
// unused. Returns how many ops went.
size_t eraseDeadOps(Block &b);
/// Rewrites fp8.linear / fp8.matmul into FP8 ops with a scaling recipe (passes/Recipe.h;
/// pipeline text: `quantize{recipe=... }`, parsed by parseRecipe).
std::unique_ptr<Pass> createQuantizePass(const Recipe &recipe);
/// Reverse-mode autodiff: appends the backward ops, gradient inputs of the outputs and gradient
/// results of the inputs (passes/Autodiff.cpp).
std::unique_ptr<Pass> createAutodiffPass();
/// The options of `fuse` (pipeline text: `fuse{gemm-backend=B grad-epilogue=on|off}`).
struct FuseOptions {
  /// Who runs the FP8 GEMMs, planned for, shown by --print-fusion-plan and written into each
  /// gemm kernel with an FP8 GEMM as its `gemm_backend`, which codegen reads (ir/KernelPlan.h).
  GemmBackend gemmBackend = GemmBackend::Auto;
  /// The backward's gelu_grad may join the dgrad GEMM's epilogue (off: a cast-transpose
  /// launch, which side launches can run beside another GEMM).
  bool gradEpilogue = true;
};
/// Groups ops into fp8.kernel regions per the fusion plan (passes/FusionPlan.h).
std::unique_ptr<Pass> createFusePass(const FuseOptions &opts = {});
/// What a textual pipeline's passes take where their text does not say (PassManager::
/// parsePipeline): the FP8 GEMM backend every `fuse` plans for (fp8c --backend,
/// CompileOptions::backend).
struct PipelineDefaults {
  GemmBackend gemmBackend = GemmBackend::Auto;
};
/// FuseOptions from the text options of `fuse{...}`, the GEMM backend `defaults.gemmBackend`
/// where the text gives none; an unknown value, or a gemm-backend other than a forced
/// `defaults.gemmBackend`, is an error.
Expected<FuseOptions> parseFuseOptions(const PassOptions &opts,
                                       const PipelineDefaults &defaults = {});

} // namespace fp8c
