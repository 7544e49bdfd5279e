// fp8c as MLIR passes (see Passes.h). Each pass that runs fp8c translates the module into
// fp8c's IR, works there, and (where it changes anything) replaces the module's body by the
// translation back.
#include "dialects/fp8/Passes.h"

#include "dialects/fp8/Fp8Dialect.h"
#include "dialects/fp8/Import.h"
#include "dialects/fp8/TextIO.h"
#include "dialects/fp8/Translate.h"

#include "ir/Verifier.h"
#include "passes/PassManager.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"

#include <optional>

namespace fp8c::fp8 {
namespace {

/// Re-emits fp8c's diagnostics as MLIR diagnostics (notes attached to the error before them).
void emitAll(const DiagnosticEngine &diag, mlir::MLIRContext *ctx) {
  std::optional<mlir::InFlightDiagnostic> current;
  for (const Diagnostic &d : diag.diagnostics()) {
    mlir::Location loc = toMlirLocation(d.loc, ctx);
    if (d.severity == Severity::Note && current) {
      current->attachNote(loc) << d.message;
      continue;
    }
    current.reset();
    current.emplace(d.severity == Severity::Warning ? mlir::emitWarning(loc)
                    : d.severity == Severity::Note  ? mlir::emitRemark(loc)
                                                    : mlir::emitError(loc));
    *current << d.message;
  }
}

/// Replaces the ops of `module` by those of `from`.
void replaceBody(mlir::ModuleOp module, mlir::ModuleOp from) {
  mlir::Block *body = module.getBody();
  while (!body->empty())
    body->back().erase();
  body->getOperations().splice(body->end(), from.getBody()->getOperations());
}

template <typename T> using ModulePass = mlir::PassWrapper<T, mlir::OperationPass<mlir::ModuleOp>>;

struct VerifyPass : ModulePass<VerifyPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyPass)
  llvm::StringRef getArgument() const override { return "fp8c-verify"; }
  llvm::StringRef getDescription() const override {
    return "Translate to fp8c's IR and run fp8c's verifier (changes nothing)";
  }
  void runOnOperation() override {
    DiagnosticEngine diag;
    std::unique_ptr<Module> m = translateToFp8c(getOperation(), diag);
    if (!m || !verifyModule(*m, diag))
      signalPassFailure();
    emitAll(diag, &getContext());
  }
};

struct PipelinePass : ModulePass<PipelinePass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelinePass)
  PipelinePass() = default;
  PipelinePass(const PipelinePass &other) : PassWrapper(other) {}
  llvm::StringRef getArgument() const override { return "fp8c-pipeline"; }
  llvm::StringRef getDescription() const override {
    return "Run an fp8c pass pipeline: translate to fp8c's IR, verify, run, translate back";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<Fp8Dialect, mlir::func::FuncDialect>();
  }

  Option<std::string> recipe{*this, "recipe",
                             llvm::cl::desc("run fp8c's default pipeline for this recipe "
                                            "(tensorwise, delayed, rowwise, blockwise; none: "
                                            "without quantize)")};
  Option<std::string> passes{*this, "passes",
                             llvm::cl::desc("an fp8c pipeline, e.g. "
                                            "'canonicalize,quantize{recipe=rowwise},fuse'")};
  Option<bool> verifyEach{*this, "verify-each", llvm::cl::desc("verify after every fp8c pass"),
                          llvm::cl::init(false)};

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    PassManager pm;
    if (passes.getValue().empty() && !recipe.getValue().empty()) {
      Expected<std::optional<Recipe>> r = parseRecipeSpec(recipe.getValue());
      if (!r) {
        module.emitError() << "fp8c-pipeline: recipe=" << recipe.getValue() << ": " << r.error();
        return signalPassFailure();
      }
      addDefaultPipeline(pm, *r);
    } else if (Status s = pm.parsePipeline(passes.getValue()); !s) {
      module.emitError() << "fp8c-pipeline: " << s.message();
      return signalPassFailure();
    }
    pm.setVerifyEach(verifyEach);
    DiagnosticEngine diag;
    std::unique_ptr<Module> m = translateToFp8c(module, diag);
    bool ok = m && verifyModule(*m, diag) && pm.run(*m, diag);
    mlir::OwningOpRef<mlir::ModuleOp> back;
    if (ok)
      back = translateFromFp8c(*m, &getContext(), diag);
    emitAll(diag, &getContext());
    if (!back)
      return signalPassFailure();
    replaceBody(module, *back);
  }
};

struct RoundTripPass : ModulePass<RoundTripPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RoundTripPass)
  llvm::StringRef getArgument() const override { return "fp8c-roundtrip"; }
  llvm::StringRef getDescription() const override {
    return "Translate to fp8c's IR and back (the translation's identity test)";
  }
  void runOnOperation() override {
    DiagnosticEngine diag;
    std::unique_ptr<Module> m = translateToFp8c(getOperation(), diag);
    mlir::OwningOpRef<mlir::ModuleOp> back;
    if (m)
      back = translateFromFp8c(*m, &getContext(), diag);
    emitAll(diag, &getContext());
    if (!back)
      return signalPassFailure();
    replaceBody(getOperation(), *back);
  }
};

struct ImportPass : ModulePass<ImportPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ImportPass)
  llvm::StringRef getArgument() const override { return "fp8c-import"; }
  llvm::StringRef getDescription() const override {
    return "Import linalg.matmul, linalg.matmul_transpose_b and arith.addf / arith.mulf (bias "
           "broadcasts folded into fp8.linear) into the fp8 dialect";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<Fp8Dialect>();
  }
  void runOnOperation() override {
    if (mlir::failed(importUpstreamOps(getOperation())))
      signalPassFailure();
  }
};

struct RecordNamesPass : ModulePass<RecordNamesPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RecordNamesPass)
  RecordNamesPass(std::string text, std::string bufferName)
      : text_(std::move(text)), bufferName_(std::move(bufferName)) {}
  llvm::StringRef getArgument() const override { return "fp8c-record-names"; }
  void runOnOperation() override { recordNamesFromSource(getOperation(), text_, bufferName_); }
  std::string text_, bufferName_;
};

struct PrintFp8cTextPass : ModulePass<PrintFp8cTextPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintFp8cTextPass)
  explicit PrintFp8cTextPass(llvm::raw_ostream &os) : os_(os) {}
  llvm::StringRef getArgument() const override { return "fp8c-print-text"; }
  void runOnOperation() override {
    printFp8cText(getOperation(), os_);
    markAllAnalysesPreserved();
  }
  llvm::raw_ostream &os_;
};

} // namespace

void registerFp8cPasses() {
  mlir::PassRegistration<VerifyPass>();
  mlir::PassRegistration<PipelinePass>();
  mlir::PassRegistration<RoundTripPass>();
  mlir::PassRegistration<ImportPass>();
}

std::unique_ptr<mlir::Pass> createVerifyPass() { return std::make_unique<VerifyPass>(); }
std::unique_ptr<mlir::Pass> createPipelinePass(std::string recipe, std::string pipeline) {
  auto pass = std::make_unique<PipelinePass>();
  pass->recipe = recipe;
  pass->passes = pipeline;
  return pass;
}
std::unique_ptr<mlir::Pass> createRoundTripPass() { return std::make_unique<RoundTripPass>(); }
std::unique_ptr<mlir::Pass> createImportPass() { return std::make_unique<ImportPass>(); }
std::unique_ptr<mlir::Pass> createRecordNamesPass(std::string text, std::string bufferName) {
  return std::make_unique<RecordNamesPass>(std::move(text), std::move(bufferName));
}
std::unique_ptr<mlir::Pass> createPrintFp8cTextPass(llvm::raw_ostream &os) {
  return std::make_unique<PrintFp8cTextPass>(os);
}

} // namespace fp8c::fp8
