// Unit tests of the FP8 tables (rows.cuh, "FP8 tables"; codegen ExprBuilder::tabulatedGrad): a
// gelu_grad / silu_grad whose x is a function of one FP8 input reads that input through a table
// of its derivative over the 256 codes (kTabIn, tabulate(), 32 KB of dynamic shared memory), and
// nothing else does. What the generated source says; the GPU checks the results
// (GpuCastTransposeTest's gelu_grad_e4m3 cases: bit for bit with the tables on and off); a row
// launch with a table compiles through NVRTC for sm_90a without spills.
#include "codegen/Lowering.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "runtime/jit/Nvrtc.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace fp8c {
namespace {

/// The sources of the generated launches of `text` after shape-infer, fuse and dce.
std::vector<const GeneratedLaunch *> lowered(const std::string &text, int fp8Tables,
                                             std::unique_ptr<Module> &mod, LaunchPlan &plan) {
  DiagnosticEngine diag;
  mod = parseModule(text, "tables.mlir", diag);
  EXPECT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  if (!mod)
    return {};
  PassManager pm;
  EXPECT_TRUE(pm.parsePipeline("shape-infer,fuse,dce").isOk());
  EXPECT_TRUE(pm.run(*mod, diag)) << diag.str();
  CodegenOptions o;
  o.tuning.fp8Tables = fp8Tables;
  Expected<LaunchPlan> p = lowerGraph(*mod->graphs()[0], o);
  EXPECT_TRUE(p.hasValue()) << (p ? "" : p.error());
  if (!p)
    return {};
  plan = p.take();
  std::vector<const GeneratedLaunch *> out;
  for (const Step &s : plan.steps)
    if (const auto *g = std::get_if<GeneratedLaunch>(&s))
      out.push_back(g);
  return out;
}

/// gelu_grad / silu_grad (dy, convert(x8)) with x8 of type `fp8`, and optionally a second use of
/// the widened x (so the launch also reads x8 plainly).
std::string gradGraph(const std::string &op, const std::string &attrs, const std::string &fp8,
                      bool secondUse) {
  const std::string x = "tensor<64x96xbf16>", x8 = "tensor<64x96x" + fp8 + ">";
  const std::string grad =
      fmt::format("  %g = fp8.{} %dy, %h{} : ({}, {}) -> {}\n", op, attrs, x, x, x);
  const std::string tail = secondUse ? fmt::format("  %h2 = fp8.convert %h8 : ({}) -> {}\n"
                                                   "  %r = fp8.add %g, %h2 : ({}, {}) -> {}\n"
                                                   "  return %r : {}\n",
                                                   x8, x, x, x, x, x)
                                     : fmt::format("  return %g : {}\n", x);
  return fmt::format("func.func @t(%dy: {x}, %h8: {x8}) -> {x} {{\n"
                     "  %h = fp8.convert %h8 : ({x8}) -> {x}\n",
                     fmt::arg("x", x), fmt::arg("x8", x8)) +
         grad + tail + "}\n";
}

TEST(CodegenFp8Tables, GeluGradOfAnE4m3InputReadsItsDerivativeFromATable) {
  std::unique_ptr<Module> mod;
  LaunchPlan plan;
  auto ls = lowered(gradGraph("gelu_grad", " {approximate = \"tanh\"}", "f8E4M3FN", false), -1, mod,
                    plan);
  ASSERT_EQ(ls.size(), 1u);
  const std::string &src = ls[0]->source;
  EXPECT_EQ(ls[0]->sharedBytes, 256 * 32 * 4);
  EXPECT_NE(src.find("static constexpr int kTabIn = 0;"), std::string::npos) << src;
  EXPECT_NE(src.find("tabulate(float x) { return "
                     "fp8c::op::geluTanhDeriv(fp8c::roundTo<fp8c::Dt::BF16>(x)); }"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("fp8c::op::mul(x[1], x[0])"), std::string::npos) << src;
  EXPECT_EQ(src.find("geluTanhGrad"), std::string::npos) << src;
  EXPECT_EQ(src.find("fp8c::InDesc::full", src.find("fp8c::InDesc::full(0, fp8c::Dt::E4M3") + 1),
            src.find("fp8c::InDesc::full(1, fp8c::Dt::BF16"))
      << "two inputs: the e4m3 table input, then dy\n"
      << src;
  // The folded convert is still named among the launch's ops.
  EXPECT_NE(ls[0]->description.find("fp8.convert %h"), std::string::npos) << ls[0]->description;
}

TEST(CodegenFp8Tables, EachDerivativeHasItsTable) {
  struct Case {
    const char *op, *attrs, *fp8, *deriv;
  };
  for (const Case &c : {Case{"gelu_grad", " {approximate = \"none\"}", "f8E5M2", "geluErfDeriv"},
                        Case{"silu_grad", "", "f8E4M3FN", "siluDeriv"}}) {
    std::unique_ptr<Module> mod;
    LaunchPlan plan;
    auto ls = lowered(gradGraph(c.op, c.attrs, c.fp8, false), -1, mod, plan);
    ASSERT_EQ(ls.size(), 1u) << c.op;
    EXPECT_NE(ls[0]->source.find(std::string("fp8c::op::") + c.deriv + "("), std::string::npos)
        << ls[0]->source;
    EXPECT_NE(ls[0]->source.find("kTabIn"), std::string::npos) << ls[0]->source;
  }
}

/// The gelu_grad launch of gradGraph(..., secondUse = true): fuse writes %h2 by a launch of its
/// own, which the second launch reads back beside the table's input. Null if not two launches.
const GeneratedLaunch *tableLaunchWithPlainUse(std::unique_ptr<Module> &mod, LaunchPlan &plan) {
  auto ls =
      lowered(gradGraph("gelu_grad", " {approximate = \"tanh\"}", "f8E4M3FN", true), -1, mod, plan);
  EXPECT_EQ(ls.size(), 2u);
  return ls.size() == 2 ? ls[1] : nullptr;
}

TEST(CodegenFp8Tables, AnotherUseOfTheInputReadsItPlainly) {
  std::unique_ptr<Module> mod;
  LaunchPlan plan;
  const GeneratedLaunch *l = tableLaunchWithPlainUse(mod, plan);
  ASSERT_NE(l, nullptr);
  const std::string &src = l->source;
  // x[0] the table's input %h8, x[1] dy, x[2] %h2 read plainly.
  EXPECT_NE(src.find("kNumIn = 3"), std::string::npos) << src;
  EXPECT_NE(src.find("kTabIn = 0;"), std::string::npos) << src;
  EXPECT_NE(src.find("fp8c::op::add(t0, x[2])"), std::string::npos) << src;
}

TEST(CodegenFp8Tables, TableLaunchesCompileWithoutSpills) {
  // A row launch with a table (the transposes': CodegenCompile's training graphs).
  std::unique_ptr<Module> mod;
  LaunchPlan plan;
  const GeneratedLaunch *l = tableLaunchWithPlainUse(mod, plan);
  ASSERT_NE(l, nullptr);
  NvrtcRequest req;
  req.kernelName = l->kernelName;
  req.source = l->source;
  req.arch = "sm_90a";
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_TRUE(r.hasValue()) << r.error();
  EXPECT_FALSE(r->hasSpills()) << r->log;
}

TEST(CodegenFp8Tables, NoTableWhenOffOrNotFp8) {
  std::unique_ptr<Module> mod;
  LaunchPlan plan;
  auto off =
      lowered(gradGraph("gelu_grad", " {approximate = \"tanh\"}", "f8E4M3FN", false), 0, mod, plan);
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(off[0]->source.find("kTabIn"), std::string::npos) << off[0]->source;
  EXPECT_NE(off[0]->source.find("fp8c::op::geluTanhGrad("), std::string::npos);
  EXPECT_EQ(off[0]->sharedBytes, 0);
  // x widened from f16 (not FP8): 65536 codes, no table.
  const std::string text =
      R"(func.func @t(%dy: tensor<64x96xbf16>, %h16: tensor<64x96xf16>) -> tensor<64x96xbf16> {
  %h = fp8.convert %h16 : (tensor<64x96xf16>) -> tensor<64x96xbf16>
  %g = fp8.gelu_grad %dy, %h {approximate = "tanh"} : (tensor<64x96xbf16>, tensor<64x96xbf16>) -> tensor<64x96xbf16>
  return %g : tensor<64x96xbf16>
}
)";
  auto wide = lowered(text, -1, mod, plan);
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0]->source.find("kTabIn"), std::string::npos) << wide[0]->source;
}

} // namespace
} // namespace fp8c
