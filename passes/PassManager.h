// The pass manager: a pipeline parsed from a string, run over each graph of a module, with
// --verify-each, --print-ir-after-all and --print-ir-after=PASS.
//
//   PassManager pm;
//   if (Status s = pm.parsePipeline("canonicalize,quantize{recipe=tensorwise},fuse,cse,dce"); !s) ...
//   pm.setVerifyEach(true);
//   bool ok = pm.run(module, diag);
#pragma once

#include "passes/Pass.h"
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
  /// Appends the passes of a pipeline string `a,b{k=v k2=v2},c`. Unknown passes and options
  /// are errors that list what exists.
  Status parsePipeline(std::string_view pipeline);
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

/// The default pipeline for a recipe (what `--recipe=NAME` means).
std::string defaultPipeline(std::string_view recipe);
/// The default pipeline without a recipe: the recipe pipeline minus `quantize` (shape-infer,
/// canonicalize, cse, fuse, dce). GEMMs stay in the graph's own precision.
std::string noRecipePipeline();
/// The default pipeline for `recipe`; std::nullopt: the pipeline without a recipe.
std::string defaultPipeline(std::optional<RecipeKind> recipe);
/// `pipeline` with each `fuse` given the FP8 GEMM backend (fuse{gemm-backend=B}, beside any
/// options of its own), so the fusion plan shows it and plans for it; unchanged for "auto" or
/// "".
std::string withGemmBackend(std::string_view pipeline, std::string_view backend);

} // namespace fp8c
