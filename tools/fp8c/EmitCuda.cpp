// `fp8c --emit=cuda`: see EmitCuda.h.
#include "EmitCuda.h"

#include "codegen/Lowering.h"

namespace fp8c::cli {

bool emitCuda(const Module &m, const std::string &arch, const std::string &backend,
              std::ostream &out, std::ostream &err) {
  CodegenOptions opts;
  if (!arch.empty())
    opts.arch = arch;
  if (std::optional<GemmBackend> b = parseGemmBackend(backend)) {
    opts.gemmBackend = *b;
  } else {
    err << "unknown GEMM backend '" << backend << "'; backends: auto, cublaslt, generated\n";
    return false;
  }
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
