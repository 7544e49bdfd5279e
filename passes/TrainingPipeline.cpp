// buildTrainingGraphs (TrainingPipeline.h): one straight-line pipeline, each step verified.
#include "passes/TrainingPipeline.h"

#include "ir/Clone.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace fp8c {
namespace {

bool runPipeline(Graph &g, PassManager &pm, const TrainingPipelineOptions &o,
                 DiagnosticEngine &diag, std::ostream *analysis) {
  pm.setVerifyEach(o.verifyEach);
  pm.setPrintIrAfterAll(o.printIrAfterAll);
  pm.setDumpStream(o.dumpOut);
  pm.setAnalysisStream(analysis);
  return pm.run(g, diag) && verifyGraph(g, diag);
}

} // namespace

void addTrainingPipelinePrefix(PassManager &pm, const TrainingPipelineOptions &o) {
  pm.addPass(createShapeInferPass(o.tokens > 0 ? o.tokens : 0));
  pm.addPass(createCanonicalizePass());
  pm.addPass(createAutodiffPass());
  if (o.recipe) {
    pm.addPass(createQuantizePass(*o.recipe));
    pm.addPass(createCanonicalizePass());
  }
  pm.addPass(createCsePass());
  pm.addPass(createDcePass());
}

Expected<TrainingGraphs> buildTrainingGraphs(const Graph &g, const TrainingPipelineOptions &o,
                                             DiagnosticEngine &diag) {
  std::unique_ptr<Graph> train = cloneGraph(g);
  for (unsigned i = 0; i < train->numInputs() && o.tokens <= 0; ++i)
    if (train->input(i)->type().hasDynamicDim()) {
      diag.error(train->loc(), "training @" + g.name() + " needs static shapes: input %" +
                                   train->input(i)->name() + " has type " +
                                   train->input(i)->type().str() +
                                   "; give the token count (--tokens=N)");
      return Error("training needs static shapes");
    }
  PassManager prefix;
  addTrainingPipelinePrefix(prefix, o);
  if (!runPipeline(*train, prefix, o, diag, nullptr))
    return Error("the training pipeline failed on @" + g.name());
  Expected<TrainingGraphs> split = splitTrainingGraph(*train);
  if (!split) {
    diag.error(g.loc(), "training: " + split.error());
    return Error(split.error());
  }
  for (Graph *half : {split->forward.get(), split->backward.get()}) {
    if (!verifyGraph(*half, diag))
      return Error("internal error: the split @" + half->name() + " does not verify");
    if (!o.fuse)
      continue;
    PassManager fuse;
    fuse.addPass(createFusePass(o.fuseOptions));
    fuse.addPass(createDcePass());
    if (!runPipeline(*half, fuse, o, diag, o.analysisOut))
      return Error("fusing @" + half->name() + " failed");
  }
  return split;
}

} // namespace fp8c
