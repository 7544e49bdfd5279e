// The generated GEMM kernels of a plan: see GeneratedGemms.h.
#include "GeneratedGemms.h"

#include "runtime/gpu/GemmSm90Step.h"

#include <set>

namespace fp8c::cli {

Expected<std::vector<GeneratedGemmKernel>> generatedGemmKernels(const LaunchPlan &plan,
                                                                const std::string &arch,
                                                                int64_t m) {
  std::vector<GeneratedGemmKernel> out;
  if (arch != "sm_90a")
    return out;
  const Device dev = gemmSm90DefaultDevice();
  std::set<std::string> names;
  for (const std::vector<Step> *steps : {&plan.loadSteps, &plan.steps})
    for (const Step &s : *steps) {
      const auto *g = std::get_if<GemmStep>(&s);
      if (!g || g->backend != GemmBackend::Generated)
        continue;
      Expected<GemmSm90Spec> k = gemmSm90HeuristicSpec(*g, plan, m, dev);
      if (!k)
        return Error(k.error());
      if (names.insert(k->name()).second)
        out.push_back({g->name, *k});
    }
  return out;
}

} // namespace fp8c::cli
