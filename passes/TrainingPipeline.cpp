// buildTrainingGraphs (TrainingPipeline.h): one straight-line pipeline, each step verified.
#include "passes/TrainingPipeline.h"

#include "ir/Clone.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace fp8c {
namespace {

bool runPipeline(Graph &g, const std::string &pipeline, const TrainingPipelineOptions &o,
                 DiagnosticEngine &diag, std::ostream *analysis) {
  PassManager pm;
  if (Status s = pm.parsePipeline(pipeline); !s) {
    diag.error(g.loc(), s.message());
    return false;
  }
  pm.setVerifyEach(o.verifyEach);
  pm.setPrintIrAfterAll(o.printIrAfterAll);
  pm.setDumpStream(o.dumpOut);
  pm.setAnalysisStream(analysis);
  return pm.run(g, diag) && verifyGraph(g, diag);
}

} // namespace

std::string trainingPipelinePrefix(const TrainingPipelineOptions &o) {
  std::string p = o.tokens > 0 ? "shape-infer{tokens=" + std::to_string(o.tokens) + "}"
                               : std::string("shape-infer");
  p += ",canonicalize,autodiff";
  if (!o.recipe.empty() && o.recipe != "none")
    p += ",quantize{recipe=" + o.recipe + (o.recipeOptions.empty() ? "" : " " + o.recipeOptions) +
         "},canonicalize";
  return p + ",cse,dce";
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
  if (!runPipeline(*train, trainingPipelinePrefix(o), o, diag, nullptr))
    return Error("the training pipeline failed on @" + g.name());
  Expected<TrainingGraphs> split = splitTrainingGraph(*train);
  if (!split) {
    diag.error(g.loc(), "training: " + split.error());
    return Error(split.error());
  }
  for (Graph *half : {split->forward.get(), split->backward.get()}) {
    if (!verifyGraph(*half, diag))
      return Error("internal error: the split @" + half->name() + " does not verify");
    const std::string fuse = o.gradEpilogue ? "fuse,dce" : "fuse{grad-epilogue=off},dce";
    if (o.fuse && !runPipeline(*half, withGemmBackend(fuse, o.gemmBackend), o, diag, o.analysisOut))
      return Error("fusing @" + half->name() + " failed");
  }
  return split;
}

} // namespace fp8c
