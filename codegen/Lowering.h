// Lowering of a fused graph (every compute op inside an fp8.kernel) to a LaunchPlan: each
// pointwise/reduce kernel becomes generated CUDA C++ launches; each gemm kernel becomes a
// cuBLASLt FP8 GEMM with the epilogues cuBLASLt can take, and generated launches for its
// prologue and for the epilogue ops it cannot take. The CUDA text is deterministic.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <string>

namespace fp8c {

struct CodegenOptions {
  std::string arch = "sm_90a"; ///< sm_90a (Hopper) or sm_89 (Ada)
};

/// Lowers `g`, which must have been through `fuse` (and verify). Errors name the op.
Expected<LaunchPlan> lowerGraph(const Graph &g, const CodegenOptions &opts);

/// Every generated source of the plan, each headed by a comment naming the kernel and its
/// ops; cuBLASLt steps appear as comments. What `fp8c --emit=cuda` prints.
std::string planToCudaText(const LaunchPlan &plan);

} // namespace fp8c
