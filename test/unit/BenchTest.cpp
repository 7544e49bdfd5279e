// fp8c-bench's CPU-side pieces: the shape file parser (every shape in bench/shapes.txt, and
// located errors), the per-shape graph text, and the unfused peer's rewrite (one kernel per op:
// same outputs as the quantized graph in the interpreter, bit for bit, and more launches than
// fp8c's fused plan when lowered).
#include "bench/Shapes.h"
#include "bench/Unfused.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "runtime/Executable.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"
#include "runtime/TensorStats.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fp8c::bench {
namespace {

std::unique_ptr<Graph> parseGraph(const std::string &text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(text, "<test>", diag);
  EXPECT_TRUE(mod) << diag.str() << text;
  if (!mod)
    return nullptr;
  EXPECT_TRUE(verifyModule(*mod, diag)) << diag.str() << text;
  return std::move(mod->graphs()[0]);
}

TEST(BenchShapesTest, ShapeFileParsesAndEveryGraphVerifies) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/bench/shapes.txt");
  ASSERT_TRUE(f) << "bench/shapes.txt";
  std::stringstream ss;
  ss << f.rdbuf();
  Expected<std::vector<Shape>> shapes = parseShapes(ss.str(), "shapes.txt");
  ASSERT_TRUE(shapes) << shapes.error();
  EXPECT_GE(shapes->size(), 18u);
  for (const Shape &s : *shapes) {
    std::unique_ptr<Graph> g = parseGraph(graphText(s));
    ASSERT_TRUE(g) << s.name;
    EXPECT_GT(flopsOf(s), 0) << s.name;
    EXPECT_GT(ioBytesOf(s, 2), ioBytesOf(s, 1)) << s.name;
  }
  const Shape &mlp = *std::find_if(shapes->begin(), shapes->end(),
                                   [](const Shape &s) { return s.name == "mlp.gelu"; });
  EXPECT_EQ(mlp.kind, ShapeKind::Mlp);
  EXPECT_DOUBLE_EQ(flopsOf(mlp), 2.0 * 2 * 8192.0 * 4096 * 14336);
  ASSERT_EQ(gemmsOf(mlp).size(), 2u);
  EXPECT_EQ(gemmsOf(mlp)[1].k, 14336);
  // A residual linear adds the bf16 [M, N] input %r to the output: one GEMM, r read and the
  // output written count in the floor's bytes.
  const Shape &res = *std::find_if(shapes->begin(), shapes->end(),
                                   [](const Shape &s) { return s.name == "residual.down"; });
  EXPECT_TRUE(res.residual);
  ASSERT_EQ(gemmsOf(res).size(), 1u);
  Shape plain = res;
  plain.residual = false;
  EXPECT_DOUBLE_EQ(ioBytesOf(res, 1) - ioBytesOf(plain, 1), 2.0 * 8192 * 4096);
  std::unique_ptr<Graph> rg = parseGraph(graphText(res));
  ASSERT_TRUE(rg);
  ASSERT_EQ(rg->numInputs(), 3u);
  EXPECT_EQ(rg->input(2)->name(), "r");
  EXPECT_NE(graphText(res).find("%z = fp8.add %y, %r"), std::string::npos) << graphText(res);
}

TEST(BenchShapesTest, ErrorsNameFileAndLine) {
  auto err = [](const std::string &text) {
    Expected<std::vector<Shape>> s = parseShapes(text, "s.txt");
    return s ? std::string("<parsed>") : s.error();
  };
  EXPECT_EQ(err("# c\na linear M=1 K=2 N=3\nb conv M=1\n"),
            "s.txt:3: unknown kind 'conv' (linear, mlp, swiglu)");
  EXPECT_EQ(err("a linear M=1 K=2\n"), "s.txt:1: shape 'a' needs N=");
  EXPECT_EQ(err("a linear M=1 K=0 N=3\n"), "s.txt:1: 'K' needs a positive integer, got '0'");
  EXPECT_EQ(err("a mlp M=1 D=2 H=3 bias\n"),
            "s.txt:1: the bias and residual flags apply to linear shapes only");
  EXPECT_EQ(err("a swiglu M=1 D=2 H=3 residual\n"),
            "s.txt:1: the bias and residual flags apply to linear shapes only");
  EXPECT_EQ(err("a linear M=1 K=2 N=3\na linear M=1 K=2 N=3\n"),
            "s.txt:2: duplicate shape name 'a'");
  EXPECT_EQ(err("\n# nothing\n"), "s.txt: no shapes");
}

struct UnfusedCase {
  Shape shape;
  std::string recipe;
};

class BenchUnfusedTest : public ::testing::TestWithParam<UnfusedCase> {};

size_t countKind(const LaunchPlan &p, bool cublas) {
  size_t n = 0;
  for (const Step &s : p.steps)
    n += std::holds_alternative<CublasLtGemm>(s) == cublas;
  return n;
}

TEST_P(BenchUnfusedTest, OneKernelPerOpSameOutputsMoreLaunches) {
  const UnfusedCase &c = GetParam();
  std::unique_ptr<Graph> g = parseGraph(graphText(c.shape));
  ASSERT_TRUE(g);
  Expected<std::unique_ptr<Graph>> unfused = unfusedGraph(*g, c.recipe);
  ASSERT_TRUE(unfused) << unfused.error();
  DiagnosticEngine diag;
  ASSERT_TRUE(verifyGraph(**unfused, diag)) << diag.str();
  size_t kernels = 0;
  for (const auto &op : (*unfused)->body().ops()) {
    if (op->info().has(kTerminator))
      continue;
    ASSERT_EQ(op->kind(), OpKind::Kernel);
    const auto &inner = op->body()->ops();
    if (inner.size() == 3) // a per-row scale shares its cast's kernel (Unfused.h)
      EXPECT_TRUE(inner[0]->kind() == OpKind::Scale && inner[1]->kind() == OpKind::Cast &&
                  c.recipe == "rowwise");
    else
      EXPECT_EQ(inner.size(), 2u) << "one op and fp8.yield";
    ++kernels;
  }

  // The same graph quantized, not wrapped: the interpreter gives bit-identical outputs.
  std::unique_ptr<Graph> quantized = parseGraph(graphText(c.shape));
  PassManager pm;
  ASSERT_TRUE(pm.parsePipeline("shape-infer,canonicalize,quantize{recipe=" + c.recipe +
                               "},canonicalize,cse,dce")
                  .isOk());
  ASSERT_TRUE(pm.run(*quantized, diag)) << diag.str();
  std::vector<HostTensor> in = randomInputs(*quantized, 17, c.shape.m);
  Expected<std::vector<HostTensor>> want = interpret(*quantized, in);
  Expected<std::vector<HostTensor>> got = interpret(**unfused, in);
  ASSERT_TRUE(want) << want.error();
  ASSERT_TRUE(got) << got.error();
  ASSERT_EQ(want->size(), got->size());
  for (size_t i = 0; i < want->size(); ++i)
    EXPECT_EQ(countBitMismatches((*got)[i], (*want)[i]), 0) << "output " << i;

  // Lowered (no GPU needed): one cuBLASLt call per GEMM, a launch per quantize op, and more
  // launches than fp8c's fused plan of the same graph.
  CompileOptions uo;
  uo.passes = "fuse,dce";
  Expected<CompiledGraph> up = compileToPlan(**unfused, uo);
  ASSERT_TRUE(up) << up.error();
  CompileOptions fo;
  fo.recipe = c.recipe;
  Expected<CompiledGraph> fp = compileToPlan(*g, fo);
  ASSERT_TRUE(fp) << fp.error();
  EXPECT_EQ(countKind(up->plan, true), gemmsOf(c.shape).size());
  EXPECT_GE(up->plan.steps.size(), kernels - 1) << "at most the scale of a GEMM folds away";
  EXPECT_GT(up->plan.steps.size(), fp->plan.steps.size());
}

Shape linearShape() {
  Shape s;
  s.name = "lin";
  s.m = 37;
  s.k = 200;
  s.n = 48;
  s.bias = true;
  return s;
}
Shape mlpShape(ShapeKind k) {
  Shape s;
  s.name = k == ShapeKind::Mlp ? "mlp" : "swiglu";
  s.kind = k;
  s.m = 19;
  s.d = 128;
  s.h = 256;
  return s;
}

std::vector<UnfusedCase> cases() {
  std::vector<UnfusedCase> out;
  for (const char *r : {"tensorwise", "delayed", "rowwise", "blockwise"})
    for (const Shape &s : {linearShape(), mlpShape(ShapeKind::Mlp), mlpShape(ShapeKind::Swiglu)})
      out.push_back({s, r});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Recipes, BenchUnfusedTest, ::testing::ValuesIn(cases()),
                         [](const auto &info) {
                           return info.param.shape.name + "_" + info.param.recipe;
                         });

} // namespace
} // namespace fp8c::bench
