// The fusion plan: which ops each kernel takes, in which role, which backend it would go to,
// and why ops were not fused where they might have been (docs/architecture.md). `fuse` computes
// the plan and applies it, writing it into the IR (ir/KernelPlan.h: KernelKind, OpRole,
// KernelBackend as kernel and op attributes); `--print-fusion-plan` prints it.
#pragma once

#include "ir/IR.h"
#include "ir/KernelPlan.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace fp8c {

struct PlannedKernel {
  KernelKind kind;
  std::vector<Op *> ops;          ///< in block order
  std::map<Op *, OpRole> roles;
  KernelBackend backend = KernelBackend::Generated;
  std::string backendReason;      ///< why that backend
  bool loadTime = false;          ///< depends only on parameters (weights=static): run at load
  Op *existing = nullptr;         ///< an fp8.kernel already in the graph, kept as it is
  /// Who runs the kernel's FP8 GEMMs (the fuse pass's gemm-backend option,
  /// CompileOptions::backend); Auto for other kernels and bf16 GEMMs.
  GemmBackend gemmBackend = GemmBackend::Auto;
};

/// An op that stayed out of a kernel it could have joined, and why.
struct FusionRejection {
  Op *op;
  size_t kernel;     ///< the kernel it did not join
  std::string where; ///< "epilogue", "prologue", "chain"
  std::string reason;
};

struct FusionPlan {
  std::vector<PlannedKernel> kernels; ///< in a valid execution order
  std::vector<FusionRejection> rejections;
  /// Kernel index of each planned op.
  std::map<Op *, size_t> kernelOf;
  /// Non-empty when planning failed (an internal error: the plan would have a cycle).
  std::string error;
};

/// Plans the fusion of the top-level ops of `g` (kernel ops already present are left alone).
/// `gemmBackend` is who may run the FP8 GEMMs: epilogues only the generated GEMM writes (the
/// transposed FP8 D) are planned unless it is CublasLt. `gradEpilogue` false leaves the
/// backward's gelu_grad out of the dgrad GEMM's epilogue (the fuse pass's grad-epilogue=off:
/// side launches run its cast-transpose beside another GEMM instead).
FusionPlan planFusion(const Graph &g, GemmBackend gemmBackend = GemmBackend::Auto,
                      bool gradEpilogue = true);

/// Human-readable plan, pinned by the lit tests.
void printFusionPlan(const Graph &g, const FusionPlan &plan, std::ostream &os);

} // namespace fp8c
