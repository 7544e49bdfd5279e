// The compiler driver (Compile.h): a clone of the graph through the pass pipeline, lowering to
// a LaunchPlan, and loading it on the device.
#include "driver/Compile.h"

#include "codegen/Lowering.h"
#include "ir/Clone.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace fp8c {

Status buildPipeline(PassManager &pm, const CompileOptions &opts) {
  if (!opts.passes.empty())
    return pm.parsePipeline(opts.passes, PipelineDefaults{opts.backend});
  addDefaultPipeline(pm, opts.recipe ? std::optional<Recipe>(recipeDefaults(*opts.recipe))
                                     : std::nullopt,
                     FuseOptions{opts.backend});
  return Status::ok();
}

Expected<CompiledGraph> compileToPlan(const Graph &g, const CompileOptions &opts) {
  DiagnosticEngine diag;
  if (!verifyGraph(g, diag))
    return Error("the graph is invalid:\n" + diag.str());
  CompiledGraph out;
  out.graph = cloneGraph(g);
  PassManager pm;
  if (Status s = buildPipeline(pm, opts); !s)
    return Error(s.message());
  out.pipeline = pm.str();
  pm.setVerifyEach(opts.verifyEach);
  if (!pm.run(*out.graph, diag) || !verifyGraph(*out.graph, diag))
    return Error("compiling @" + g.name() + " failed:\n" + diag.str());
  CodegenOptions co;
  co.arch = opts.arch.empty() ? "sm_90a" : opts.arch;
  co.tuning = opts.tuning;
  co.sideLaunches = opts.sideLaunches;
  Expected<LaunchPlan> plan = lowerGraph(*out.graph, co);
  if (!plan)
    return Error(plan.error());
  out.plan = plan.take();
  out.arch = co.arch;
  return out;
}

Expected<std::unique_ptr<Executable>> compile(const Graph &g, const CompileOptions &opts) {
  Expected<TargetDevice> dev = resolveDevice(opts.load.device);
  if (!dev)
    return Error(dev.error());
  CompileOptions o = opts;
  if (o.arch.empty())
    o.arch = dev->arch;
  o.load.device = dev->ordinal;
  Expected<CompiledGraph> cg = compileToPlan(g, o);
  if (!cg)
    return Error(cg.error());
  return Executable::load(cg.take(), o.load);
}

} // namespace fp8c
