// `fp8c --emit=cuda`: see EmitCuda.h.
#include "EmitCuda.h"

#include "codegen/Lowering.h"

namespace fp8c::cli {

bool emitCuda(const Module &m, const std::string &arch, std::ostream &out, std::ostream &err) {
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
    out << planToCudaText(*plan);
  }
  return true;
}

} // namespace fp8c::cli
