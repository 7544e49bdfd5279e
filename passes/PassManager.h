// The pass manager: a pipeline parsed from a string, run over each graph of a module, with
// --verify-each, --print-ir-after-all and --print-ir-after=PASS.
//
//   PassManager pm;
//   if (Status s = pm.parsePipeline("canonicalize,quantize{recipe=tensorwise},fuse,cse,dce"); !s) ...
//   pm.setVerifyEach(true);
//   bool ok = pm.run(module, diag);
#pragma once

#include "passes/Pass.h"
#include "passes/Passes.h"
#include "passes/Recipe.h"
#include "ir/Status.h"

#include <memory>
#include <ostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fp8c {

class PassManager {
public:
  /// Appends the passes of a pipeline string `a,b{k=v k2=v2},c`, each pass's text options
  /// parsed once into its typed options; what the text does not say comes from `defaults`.
  /// Unknown passes and options are errors that list what exists.
  Status parsePipeline(std::string_view pipeline, const PipelineDefaults &defaults = {});
  void addPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

  void setVerifyEach(bool on) { verifyEach_ = on; }
  void setPrintIrAfterAll(bool on) { printAfterAll_ = on; }
  void addPrintIrAfter(std::string passName) { printAfter_.insert(std::move(passName)); }
  /// Where IR dumps and analyses go (default: none).
  void setDumpStream(std::ostream *os) { dump_ = os; }
  void setAnalysisStream(std::ostream *os) { analysis_ = os; }

  /// The pipeline as a string (canonical option order).
  std::string str() const;
  bool empty() const { return passes_.empty(); }
  /// Whether a pass named `name` is in the pipeline.
  bool contains(std::string_view name) const;

  /// Runs the pipeline on every graph; stops at the first failing pass and returns false.
  bool run(Module &m, DiagnosticEngine &diag);
  bool run(Graph &g, DiagnosticEngine &diag);

private:
  std::vector<std::unique_ptr<Pass>> passes_;
  bool verifyEach_ = false;
  bool printAfterAll_ = false;
  std::set<std::string, std::less<>> printAfter_;
  std::ostream *dump_ = nullptr;
  std::ostream *analysis_ = nullptr;
};

/// Appends the default pipeline: shape-infer, canonicalize, quantize with `recipe` and
/// canonicalize again (none without a recipe: GEMMs stay in the graph's own precision), cse,
/// fuse with `fuse`, dce. What `--recipe=NAME` means.
void addDefaultPipeline(PassManager &pm, const std::optional<Recipe> &recipe,
                        const FuseOptions &fuse = {});

/// Parses the options of one pass, `k=v k2=v2` (separated by spaces or commas); errors name
/// `passName`.
Expected<PassOptions> parsePassOptionList(std::string_view passName, std::string_view body);

} // namespace fp8c
