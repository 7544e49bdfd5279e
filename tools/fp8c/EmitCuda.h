// `fp8c --emit=cuda [--arch=sm_90a|sm_89]`: lowers every function of a fused module to its
// LaunchPlan and prints the generated CUDA (codegen's planToCudaText), with the generated
// Hopper GEMM kernels of its steps.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/IR.h"

#include <ostream>
#include <string>

namespace fp8c::cli {

/// Lowers each function of `m` (which must have been through `fuse`, e.g. --recipe=R) for
/// `arch` and writes the plan's CUDA text to `out`, functions separated by a blank line.
/// On an error (a located diagnostic) writes it to `err` and returns false; writes nothing
/// to `out` for the failing function.
/// Who runs each kernel's FP8 GEMMs is the kernel's gemm_backend, which `fuse` wrote from
/// --backend (ir/KernelPlan.h). After each plan, the source of every generated GEMM kernel its
/// steps run (GeneratedGemms.h; the tile heuristic at M = `dynamicDim`).
bool emitCuda(const Module &m, const std::string &arch, int64_t dynamicDim, std::ostream &out,
              std::ostream &err);

} // namespace fp8c::cli
