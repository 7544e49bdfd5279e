// The pass manager and registry (passes/PassManager.h, passes/PassRegistry.h): pipeline strings
// (parse, canonical str() and its round trip, errors that list what exists), and the run loop
// (stop at the first failure, a failure without a diagnostic gets one, --verify-each,
// --print-ir-after(-all), the analysis stream).
#include "passes/PassManager.h"
#include "ir/Builder.h"
#include "ir/Verifier.h"
#include "passes/PassRegistry.h"
#include "passes/Passes.h"

#include <gtest/gtest.h>

#include <sstream>

namespace fp8c {
namespace {

std::string parseError(std::string_view pipeline) {
  PassManager pm;
  Status s = pm.parsePipeline(pipeline);
  EXPECT_FALSE(s) << pipeline << " parsed as " << pm.str();
  return s.message();
}

std::string canonical(std::string_view pipeline) {
  PassManager pm;
  Status s = pm.parsePipeline(pipeline);
  EXPECT_TRUE(s) << s.message();
  return pm.str();
}

TEST(PassPipeline, CanonicalStringRoundTrips) {
  const std::string in = " shape-infer{tokens=8} , canonicalize,quantize{weights=static pow2=true "
                         "recipe=delayed algo=most_recent,history_len=4 margin=2 fast_accum=false "
                         "act_dtype=e5m2},cse,fuse,dce,verify";
  const std::string want = "shape-infer{tokens=8},canonicalize,quantize{recipe=delayed "
                           "history_len=4 algo=most_recent margin=2 pow2=true fast_accum=false "
                           "weights=static act_dtype=e5m2},cse,fuse,dce,verify";
  EXPECT_EQ(canonical(in), want);
  EXPECT_EQ(canonical(want), want);
}

TEST(PassPipeline, RecipeDefaultsAreSpelledOut) {
  EXPECT_EQ(canonical("quantize{recipe=tensorwise}"),
            "quantize{recipe=tensorwise margin=0 pow2=false fast_accum=true weights=dynamic}");
  // Blockwise defaults to power-of-two scales; delayed shows its history options.
  EXPECT_EQ(canonical("quantize{recipe=blockwise}"),
            "quantize{recipe=blockwise margin=0 pow2=true fast_accum=true weights=dynamic}");
  EXPECT_EQ(canonical("quantize{recipe=delayed}"),
            "quantize{recipe=delayed history_len=16 algo=max margin=0 pow2=false "
            "fast_accum=true weights=dynamic}");
  EXPECT_EQ(canonical("quantize{recipe=rowwise weight_dtype=f8E5M2 pow2=1 fast_accum=0}"),
            "quantize{recipe=rowwise margin=0 pow2=true fast_accum=false weights=dynamic "
            "weight_dtype=e5m2}");
}

// The default pipeline is built from pass objects with typed options; it prints as the text
// that parses back into it.
TEST(PassPipeline, DefaultPipelineOfEveryRecipeIsItsText) {
  for (RecipeKind r :
       {RecipeKind::Tensorwise, RecipeKind::Delayed, RecipeKind::Rowwise, RecipeKind::Blockwise}) {
    PassManager pm;
    addDefaultPipeline(pm, recipeDefaults(r));
    EXPECT_EQ(pm.str(), canonical("shape-infer,canonicalize,quantize{recipe=" +
                                  std::string(recipeName(r)) + "},canonicalize,cse,fuse,dce"));
    EXPECT_EQ(canonical(pm.str()), pm.str());
  }
  PassManager none;
  addDefaultPipeline(none, std::nullopt);
  EXPECT_EQ(none.str(), "shape-infer,canonicalize,cse,fuse,dce");
}

// The fuse pass's typed options print as its text options; the GEMM backend a caller forces
// (fp8c --backend) reaches every fuse of a textual pipeline beside options of its own; a bad
// value is the fuse pass's error.
TEST(PassPipeline, FuseOptionsAreTyped) {
  PassManager pm;
  pm.addPass(createFusePass(FuseOptions{GemmBackend::CublasLt, false}));
  EXPECT_EQ(pm.str(), "fuse{gemm-backend=cublaslt grad-epilogue=off}");
  EXPECT_EQ(canonical(pm.str()), pm.str());
  // Auto is the default: not printed.
  EXPECT_EQ(canonical("fuse{gemm-backend=auto}"), "fuse");
  PassManager forced;
  ASSERT_TRUE(forced.parsePipeline("cse,fuse{grad-epilogue=off},dce",
                                   PipelineDefaults{GemmBackend::Generated}));
  EXPECT_EQ(forced.str(), "cse,fuse{gemm-backend=generated grad-epilogue=off},dce");
  EXPECT_EQ(parseError("fuse{grad-epilogue=maybe}"),
            "fuse: grad-epilogue=maybe: expected on or off");
  EXPECT_EQ(parseError("fuse{gemm-backend=bogus}"),
            "fuse: gemm-backend=bogus: unknown; backends: auto, cublaslt, generated");
}

TEST(PassPipeline, ParsingAppends) {
  PassManager pm;
  EXPECT_TRUE(pm.empty());
  ASSERT_TRUE(pm.parsePipeline("cse"));
  ASSERT_TRUE(pm.parsePipeline("dce,cse"));
  pm.addPass(createCanonicalizePass());
  EXPECT_EQ(pm.str(), "cse,dce,cse,canonicalize");
}

TEST(PassPipeline, Errors) {
  EXPECT_EQ(parseError(""), "empty pass pipeline");
  EXPECT_EQ(parseError("  "), "empty pass pipeline");
  EXPECT_EQ(parseError("cse,fusion"),
            "unknown pass 'fusion'; known passes: verify, shape-infer, canonicalize, cse, dce, "
            "autodiff, "
            "quantize, fuse");
  EXPECT_EQ(parseError("dce{x=1}"), "pass 'dce' has no option 'x'; it takes none");
  EXPECT_EQ(parseError("shape-infer{n=1}"),
            "pass 'shape-infer' has no option 'n'; its options: tokens=N");
  EXPECT_EQ(parseError("cse,,dce"), "empty pass name in the pipeline 'cse,,dce'");
  EXPECT_EQ(parseError(",cse"), "empty pass name in the pipeline ',cse'");
  EXPECT_EQ(parseError("cse,"), "trailing ',' in the pass pipeline");
  EXPECT_EQ(parseError("quantize{recipe=rowwise"),
            "pass 'quantize': missing '}' in the pass pipeline");
  EXPECT_EQ(parseError("quantize{recipe=rowwise}cse"),
            "expected ',' after 'quantize{recipe=rowwise}' in the pass pipeline");
  EXPECT_EQ(parseError("quantize{recipe}"),
            "pass 'quantize': option 'recipe' is not of the form name=value");
  EXPECT_EQ(parseError("quantize{=rowwise}"),
            "pass 'quantize': option '=rowwise' is not of the form name=value");
  EXPECT_EQ(parseError("quantize{recipe=}"),
            "pass 'quantize': option 'recipe=' is not of the form name=value");
  EXPECT_EQ(parseError("quantize{recipe=rowwise recipe=delayed}"),
            "pass 'quantize': option 'recipe' given twice");
  EXPECT_EQ(parseError("shape-infer{tokens=-3}"),
            "pass 'shape-infer': option tokens must be a positive integer, got '-3'");
  EXPECT_EQ(parseError("quantize{recipe=rowwise algo=max}"),
            "quantize: option algo applies to recipe=delayed only");
}

TEST(PassRegistry, EveryPassIsListedWithItsOptions) {
  std::vector<std::string> names;
  for (const PassInfo &p : allPasses()) {
    names.push_back(p.name);
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_EQ(lookupPass(p.name), &p);
    // Each pass is created under its registered name.
    PassOptions opts;
    if (p.name == "quantize")
      opts["recipe"] = "tensorwise";
    Expected<std::unique_ptr<Pass>> pass = p.create(opts, PipelineDefaults{});
    ASSERT_TRUE(pass) << pass.error();
    EXPECT_EQ((*pass)->name(), p.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"verify", "shape-infer", "canonicalize", "cse", "dce",
                                             "autodiff", "quantize", "fuse"}));
  EXPECT_EQ(lookupPass("Canonicalize"), nullptr);
  PassOptions bad{{"recipe", "tensorwise"}, {"scale", "1"}};
  EXPECT_NE(checkPassOptionNames(*lookupPass("quantize"), bad).find("has no option 'scale'"),
            std::string::npos);
  EXPECT_EQ(checkPassOptionNames(*lookupPass("quantize"), {{"recipe", "x"}}), "");
}

// --- the run loop ----------------------------------------------------------------------------

std::unique_ptr<Graph> smallGraph() {
  GraphBuilder b("g");
  Value *x = b.input("x", {{kDynamic, 64}, DType::BF16});
  Value *w = b.input("w", {{32, 64}, DType::BF16});
  b.output(b.relu(b.linear(x, w, nullptr, "h"), "r"));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  return g ? g.take() : nullptr;
}

// A test pass: records that it ran, and optionally fails (with or without a diagnostic) or
// breaks the graph.
class ProbePass : public Pass {
public:
  enum Mode { Succeed, FailQuietly, FailWithError, ErrorButSucceed, BreakGraph };
  ProbePass(std::string name, Mode mode, std::vector<std::string> *log)
      : name_(std::move(name)), mode_(mode), log_(log) {}
  std::string_view name() const override { return name_; }
  bool run(Graph &g, PassContext &ctx) override {
    log_->push_back(name_);
    switch (mode_) {
    case Succeed:
      return true;
    case FailQuietly:
      return false;
    case FailWithError:
      ctx.diag.error(g.body().opList()[0]->loc(), "probe: no");
      return false;
    case ErrorButSucceed:
      ctx.diag.error(g.loc(), "probe: reported an error");
      return true;
    case BreakGraph: // a wrong result type the verifier catches
      g.body().opList()[0]->result()->setType(TensorType({7}, DType::F32));
      return true;
    }
    return true;
  }

private:
  std::string name_;
  Mode mode_;
  std::vector<std::string> *log_;
};

TEST(PassManagerRun, StopsAtTheFirstFailure) {
  for (auto mode : {ProbePass::FailQuietly, ProbePass::FailWithError, ProbePass::ErrorButSucceed}) {
    SCOPED_TRACE(mode);
    std::vector<std::string> log;
    PassManager pm;
    pm.addPass(std::make_unique<ProbePass>("a", ProbePass::Succeed, &log));
    pm.addPass(std::make_unique<ProbePass>("b", mode, &log));
    pm.addPass(std::make_unique<ProbePass>("c", ProbePass::Succeed, &log));
    std::ostringstream dump;
    pm.setDumpStream(&dump);
    pm.setPrintIrAfterAll(true);
    auto g = smallGraph();
    DiagnosticEngine diag;
    EXPECT_FALSE(pm.run(*g, diag));
    EXPECT_EQ(log, (std::vector<std::string>{"a", "b"}));
    ASSERT_EQ(diag.numErrors(), 1u) << diag.str();
    if (mode == ProbePass::FailQuietly)
      EXPECT_NE(diag.firstError().find("error: pass 'b' failed on @g"), std::string::npos)
          << diag.firstError();
    // The IR after `a` was dumped; nothing after the failing pass.
    EXPECT_NE(dump.str().find("IR Dump After a (@g)"), std::string::npos);
    EXPECT_EQ(dump.str().find("IR Dump After b"), std::string::npos);
  }
}

TEST(PassManagerRun, VerifyEachNamesThePassThatBrokeTheGraph) {
  std::vector<std::string> log;
  PassManager pm;
  pm.addPass(std::make_unique<ProbePass>("breaker", ProbePass::BreakGraph, &log));
  pm.addPass(std::make_unique<ProbePass>("after", ProbePass::Succeed, &log));
  pm.setVerifyEach(true);
  auto g = smallGraph();
  DiagnosticEngine diag;
  EXPECT_FALSE(pm.run(*g, diag));
  EXPECT_EQ(log, (std::vector<std::string>{"breaker"}));
  EXPECT_TRUE(diag.hasErrors());
  EXPECT_NE(diag.str().find("note: the graph was invalid after pass 'breaker' (--verify-each)"),
            std::string::npos)
      << diag.str();
  // Without --verify-each the broken graph passes through.
  PassManager lax;
  lax.addPass(std::make_unique<ProbePass>("breaker", ProbePass::BreakGraph, &log));
  auto g2 = smallGraph();
  DiagnosticEngine diag2;
  EXPECT_TRUE(lax.run(*g2, diag2));
  EXPECT_FALSE(verifyGraph(*g2, diag2));
}

TEST(PassManagerRun, PrintIrAfterAndAnalysisStreams) {
  PassManager pm;
  ASSERT_TRUE(pm.parsePipeline("canonicalize,quantize{recipe=rowwise},cse,fuse,dce"));
  pm.addPrintIrAfter("quantize");
  pm.addPrintIrAfter("dce");
  std::ostringstream dump, analysis;
  pm.setDumpStream(&dump);
  pm.setAnalysisStream(&analysis);
  Module m;
  m.add(smallGraph());
  DiagnosticEngine diag;
  ASSERT_TRUE(pm.run(m, diag)) << diag.str();
  const std::string d = dump.str();
  size_t q = d.find("// -----// IR Dump After quantize (@g) //----- //\nfunc.func @g(");
  size_t e = d.find("// -----// IR Dump After dce (@g) //----- //\nfunc.func @g(");
  ASSERT_NE(q, std::string::npos) << d;
  ASSERT_NE(e, std::string::npos) << d;
  EXPECT_LT(q, e);
  EXPECT_EQ(d.find("After canonicalize"), std::string::npos);
  EXPECT_EQ(d.find("After cse"), std::string::npos);
  EXPECT_NE(d.find("fp8.amax %x {granularity = \"row\"}"), std::string::npos);
  // The plan goes to the analysis stream, the IR dumps do not.
  EXPECT_EQ(analysis.str().rfind("// fusion plan for @g: ", 0), 0u) << analysis.str();
  EXPECT_EQ(analysis.str().find("IR Dump"), std::string::npos);
}

TEST(PassManagerRun, EveryGraphOfAModule) {
  PassManager pm;
  ASSERT_TRUE(pm.parsePipeline("quantize{recipe=tensorwise}"));
  Module m;
  m.add(smallGraph());
  m.add(smallGraph()).setName("g2");
  DiagnosticEngine diag;
  ASSERT_TRUE(pm.run(m, diag)) << diag.str();
  for (const auto &g : m.graphs()) {
    bool quantized = false;
    g->walk([&](Op *op) { quantized |= op->kind() == OpKind::ScaledMatmul; });
    EXPECT_TRUE(quantized) << g->name();
  }
}

} // namespace
} // namespace fp8c
