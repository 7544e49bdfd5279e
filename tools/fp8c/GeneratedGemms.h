// The generated Hopper GEMM kernels of a plan, for `fp8c --emit=cuda|ptx|cubin --backend=
// generated`: for each GEMM step the generated GEMM runs, the spec (codegen/gemm/GemmSpec.h) the
// runtime's tile heuristic picks without autotuning, at the dynamic dim's size (--dynamic-dim)
// on a 132-SM sm_90a (gemmSm90DefaultDevice).
#pragma once

#include "codegen/LaunchPlan.h"
#include "codegen/gemm/GemmSpec.h"
#include "ir/Status.h"

#include <string>
#include <vector>

namespace fp8c::cli {

/// One generated GEMM kernel of a plan: the step that runs it and its spec.
struct GeneratedGemmKernel {
  std::string step;
  GemmSm90Spec spec;
};

/// The generated GEMM kernels of `plan`'s steps with backend generated at run-time size `m`
/// (one per distinct kernel name, in step order); none for an arch other than sm_90a. An error
/// naming the step where the generated GEMM cannot run it.
Expected<std::vector<GeneratedGemmKernel>> generatedGemmKernels(const LaunchPlan &plan,
                                                                const std::string &arch,
                                                                int64_t m);

} // namespace fp8c::cli
