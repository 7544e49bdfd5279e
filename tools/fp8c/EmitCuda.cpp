// `fp8c --emit=cuda`: see EmitCuda.h.
#include "EmitCuda.h"

#include "GeneratedGemms.h"

#include "codegen/Lowering.h"
#include "codegen/gemm/GemmSource.h"

namespace fp8c::cli {

bool emitCuda(const Module &m, const std::string &arch, int64_t dynamicDim, std::ostream &out,
              std::ostream &err) {
  CodegenOptions opts;
  if (!arch.empty())
    opts.arch = arch;
  bool first = true;
  for (const auto &g : m.graphs()) {
    Expected<LaunchPlan> plan = lowerGraph(*g, opts);
    if (!plan) {
      err << plan.error() << "\n";
      return false;
    }
    if (!first)
      out << "\n";
    first = false;
    Expected<std::vector<GeneratedGemmKernel>> gemms =
        generatedGemmKernels(*plan, opts.arch, dynamicDim);
    if (!gemms) {
      err << "fp8c: error: " << gemms.error() << "\n";
      return false;
    }
    out << planToCudaText(*plan);
    for (const GeneratedGemmKernel &k : *gemms)
      out << "\n// ----- generated GEMM of step " << k.step << " (tile heuristic at M = "
          << dynamicDim << ", 132 SMs)\n"
          << gemmSm90Source(k.spec);
  }
  return true;
}

} // namespace fp8c::cli
