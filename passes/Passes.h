// Factories of fp8c's passes, one per file. The registry (PassRegistry.cpp) names them.
#pragma once

#include "passes/Pass.h"
#include "ir/Status.h"

#include <memory>

namespace fp8c {

/// Runs the verifier as a pass.
std::unique_ptr<Pass> createVerifyPass();
/// Re-infers every result type from the inputs; `tokens=N` first specializes the dynamic
/// leading dim of every input to N.
Expected<std::unique_ptr<Pass>> createShapeInferPass(const PassOptions &opts);
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
/// Rewrites fp8.linear / fp8.matmul into FP8 ops with a scaling recipe (passes/Recipe.h).
Expected<std::unique_ptr<Pass>> createQuantizePass(const PassOptions &opts);
/// Reverse-mode autodiff: appends the backward ops, gradient inputs of the outputs and gradient
/// results of the inputs (passes/Autodiff.cpp).
std::unique_ptr<Pass> createAutodiffPass();
/// Groups ops into fp8.kernel regions per the fusion plan (passes/FusionPlan.h).
/// Option gemm-backend=auto|cublaslt|generated: who runs the FP8 GEMMs, shown by
/// --print-fusion-plan (codegen takes it from CodegenOptions::gemmBackend). Option
/// grad-epilogue=on|off: whether the backward's gelu_grad may join the dgrad GEMM's epilogue.
Expected<std::unique_ptr<Pass>> createFusePass(const PassOptions &opts);

} // namespace fp8c
