// compile()'s device-free half: a clone of the graph through the pass pipeline, then
// lowering to a LaunchPlan.
#include "runtime/Executable.h"

#include "codegen/Lowering.h"
#include "ir/Clone.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace fp8c {

std::string pipelineFor(const CompileOptions &opts) {
  if (!opts.passes.empty())
    return opts.passes;
  return defaultPipeline(opts.recipe);
}

Expected<CompiledGraph> compileToPlan(const Graph &g, const CompileOptions &opts) {
  std::optional<GemmBackend> backend = parseGemmBackend(opts.backend);
  if (!backend)
    return Error("unknown GEMM backend '" + opts.backend +
                 "'; backends: auto, cublaslt, generated");
  DiagnosticEngine diag;
  if (!verifyGraph(g, diag))
    return Error("the graph is invalid:\n" + diag.str());
  CompiledGraph out;
  out.graph = cloneGraph(g);
  out.pipeline = withGemmBackend(pipelineFor(opts), opts.backend);
  PassManager pm;
  if (Status s = pm.parsePipeline(out.pipeline); !s)
    return Error(s.message());
  pm.setVerifyEach(opts.verifyEach);
  if (!pm.run(*out.graph, diag) || !verifyGraph(*out.graph, diag))
    return Error("compiling @" + g.name() + " failed:\n" + diag.str());
  CodegenOptions co;
  co.arch = opts.arch.empty() ? "sm_90a" : opts.arch;
  co.tuning = opts.tuning;
  co.gemmBackend = *backend;
  co.sideLaunches = opts.sideLaunches;
  Expected<LaunchPlan> plan = lowerGraph(*out.graph, co);
  if (!plan)
    return Error(plan.error());
  out.plan = plan.take();
  return out;
}

} // namespace fp8c
