// The fusion plan lives in the IR (ir/KernelPlan.h): a fused graph printed and parsed back
// carries the same kernels, backends and op roles, so it lowers to the same launches and GEMM
// steps as the graph `fuse` produced, for every example, recipe and FP8 GEMM backend, for
// inference and for the training pipeline's forward and backward graphs.
#include "codegen/Lowering.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "passes/TrainingPipeline.h"

#include "unit/support/RecipeTestSupport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace fp8c {
namespace {

std::string readExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name + ".mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The plan's CUDA text with value and buffer names as the printer and the lowering disambiguate
// them (`%x_scale_1` for a region value whose name hint `%x_scale` is taken, `%x_scale.1` for a
// second buffer of that name) put back to their hints, and comment lines that the names'
// lengths wrap joined.
std::string withNameHints(const std::string &planText) {
  static const std::regex suffix(R"((%[A-Za-z0-9_]*?)(?:[_.][0-9]+)+(?![A-Za-z0-9_]))");
  static const std::regex wrapped(R"(\n//    )");
  return std::regex_replace(std::regex_replace(planText, suffix, "$1"), wrapped, " ");
}

// Lowers `g`, and `g` printed and parsed back, for sm_90a; the two plans' CUDA text must match.
void expectSameLaunchesAfterRoundTrip(const Graph &g) {
  const std::string text = toString(g);
  DiagnosticEngine diag;
  std::unique_ptr<Module> back = parseModule(text, "fused.mlir", diag);
  ASSERT_TRUE(back && verifyModule(*back, diag)) << diag.str() << text;
  ASSERT_EQ(back->graphs().size(), 1u);
  EXPECT_EQ(toString(*back->graphs()[0]), text);
  CodegenOptions o;
  Expected<LaunchPlan> before = lowerGraph(g, o);
  Expected<LaunchPlan> after = lowerGraph(*back->graphs()[0], o);
  ASSERT_TRUE(before.hasValue()) << before.error();
  ASSERT_TRUE(after.hasValue()) << after.error();
  EXPECT_EQ(withNameHints(planToCudaText(*after)), withNameHints(planToCudaText(*before)));
  EXPECT_EQ(after->steps.size(), before->steps.size());
  EXPECT_EQ(after->loadSteps.size(), before->loadSteps.size());
}

constexpr GemmBackend kBackends[] = {GemmBackend::Auto, GemmBackend::CublasLt,
                                     GemmBackend::Generated};

TEST(FusedTextRoundTrip, InferenceGraphsLowerToTheSameLaunches) {
  for (std::string ex : {"linear", "mlp", "swiglu_mlp", "linear_residual", "vit_mlp"})
    for (std::string recipe : {"tensorwise", "rowwise", "blockwise", "delayed", "none"})
      for (GemmBackend b : kBackends) {
        SCOPED_TRACE(ex + " " + recipe + " " + gemmBackendName(b));
        DiagnosticEngine diag;
        std::unique_ptr<Module> m = parseModule(readExample(ex), ex, diag);
        ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
        PassManager pm;
        std::optional<Recipe> r = testRecipe(recipe);
        addDefaultPipeline(pm, r, FuseOptions{b});
        ASSERT_TRUE(pm.run(*m, diag)) << diag.str();
        expectSameLaunchesAfterRoundTrip(*m->graphs()[0]);
      }
}

TEST(FusedTextRoundTrip, TrainingGraphsLowerToTheSameLaunches) {
  for (std::string ex : {"mlp", "swiglu_mlp"})
    for (std::string recipe : {"tensorwise", "delayed", "rowwise", "blockwise"})
      for (GemmBackend b : kBackends) {
        SCOPED_TRACE(ex + " --train " + recipe + " " + gemmBackendName(b));
        DiagnosticEngine diag;
        std::unique_ptr<Module> m = parseModule(readExample(ex), ex, diag);
        ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
        TrainingPipelineOptions o;
        o.recipe = testRecipe(recipe);
        o.fuseOptions.gemmBackend = b;
        o.tokens = 256;
        Expected<TrainingGraphs> t = buildTrainingGraphs(*m->graphs()[0], o, diag);
        ASSERT_TRUE(t.hasValue()) << (t ? "" : t.error()) << diag.str();
        expectSameLaunchesAfterRoundTrip(*t->forward);
        expectSameLaunchesAfterRoundTrip(*t->backward);
      }
}

} // namespace
} // namespace fp8c
