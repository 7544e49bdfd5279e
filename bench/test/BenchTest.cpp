// The benches' CPU-side pieces: the shape file parser (every shape in bench/shapes.txt, and
// located errors), the per-shape graph text, the unfused peer's rewrite (one kernel per op:
// same outputs as the quantized graph in the interpreter, bit for bit, and more launches than
// fp8c's fused plan when lowered), and the reports: the JSON documents of fp8c-train-bench and
// fp8c-gemm-bench, and where a bench writes a file it names itself ($OUT, else build-gpu/).
#include "unit/support/TempFiles.h"
#include "bench/Report.h"
#include "bench/Shapes.h"
#include "bench/Unfused.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "driver/Compile.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
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
    n += std::holds_alternative<GemmStep>(s) == cublas;
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
  fo.recipe = recipeKindNamed(c.recipe);
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

RunRecord sampleRecord() {
  RunRecord r;
  r.device = "NVIDIA \"H200\"";
  r.deviceInfo = "NVIDIA H200 (sm_90a, 132 SMs, 140 GiB, driver 13.0)";
  r.driver = "580.159.04";
  r.powerLimitW = 700;
  r.date = "2030-01-02";
  r.command = "fp8c-train-bench --sustain=1500 a\\b.mlir";
  return r;
}

TEST(BenchReportTest, TrainJsonCarriesTheRunTheTimesAndTheFloor) {
  TrainRunInfo info;
  info.run = sampleRecord();
  info.tokens = 8192;
  info.mode = "sustain";
  info.sustainMs = 1500;
  info.reps = 5;
  info.copyGBs = 4250;
  TrainRow none;
  none.graph = "mlp";
  none.recipe = "none";
  none.stats.medianUs = 8950.24;
  none.stats.reps = 5;
  none.speedup = 1;
  none.gemmUs = 9026.2;
  TrainRow delayed = none;
  delayed.recipe = "delayed";
  delayed.stats.medianUs = 5227.5;
  delayed.speedup = 1.718;
  delayed.gemmUs = 5002.5;
  delayed.restUs = 265.5;
  delayed.restBytes = 738700000;
  delayed.boundSpeedup = 1.789;
  delayed.floorSpeedup = 1.729;
  TrainRow unprofiled = delayed;
  unprofiled.recipe = "tensorwise";
  unprofiled.gemmUs = unprofiled.boundSpeedup = unprofiled.floorSpeedup = 0;
  const std::string j = trainJson(info, {none, delayed, unprofiled});
  for (const char *want :
       {"\"tool\": \"fp8c-train-bench\"", "\"device\": \"NVIDIA \\\"H200\\\"\"",
        "\"driver\": \"580.159.04\"", "\"power_limit_w\": 700", "\"date\": \"2030-01-02\"",
        "\"command\": \"fp8c-train-bench --sustain=1500 a\\\\b.mlir\"", "\"mode\": \"sustain\"",
        "\"copy_gbs\": 4250", "\"recipe\": \"delayed\", \"median_us\": 5227.5",
        "\"gemm_us\": 5002.5, \"rest_us\": 265.5, \"rest_bytes\": 738700000, "
        "\"bound_speedup\": 1.789, \"floor_speedup\": 1.729}",
        "\"recipe\": \"none\"", "\"bound_speedup\": null, \"floor_speedup\": null}",
        "\"gemm_us\": null, \"rest_us\": null, \"rest_bytes\": null"})
    EXPECT_NE(j.find(want), std::string::npos) << want << "\n" << j;
  // Three rows, the last without a trailing comma.
  EXPECT_NE(j.find("null}\n  ]\n}\n"), std::string::npos) << j;
}

TEST(BenchReportTest, GemmJsonRowsCarryTheirRatioToCublasLt) {
  GemmRow lt;
  lt.m = 8192;
  lt.k = 4096;
  lt.n = 14336;
  lt.epilogue = "plain";
  lt.backend = "cublaslt";
  lt.config = "e4m3 bf16 fast-accum";
  lt.us = 637.3;
  lt.tflops = 1510;
  GemmRow gen = lt;
  gen.backend = "generated";
  gen.config = "pp m128 n128 s6";
  gen.heuristic = true;
  gen.us = 630.8;
  gen.vsCublasLt = 1.01;
  const std::string j = gemmJson(sampleRecord(), 4250, {lt, gen});
  EXPECT_NE(j.find("\"tool\": \"fp8c-gemm-bench\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"copy_gbs\": 4250,"), std::string::npos) << j;
  EXPECT_NE(gemmJson(sampleRecord(), 0, {}).find("\"copy_gbs\": null,"), std::string::npos);
  EXPECT_NE(j.find("\"backend\": \"cublaslt\", \"config\": \"e4m3 bf16 fast-accum\", "
                   "\"heuristic\": false, \"us\": 637.3, \"tflops\": 1510, \"vs_cublaslt\": null}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"heuristic\": true, \"us\": 630.8, \"tflops\": 1510, \"vs_cublaslt\": 1.01}\n"),
            std::string::npos)
      << j;
}

TEST(BenchReportTest, JsonNumbersAreFiniteOrNull) {
  EXPECT_EQ(jsonNumber(1.5), "1.5");
  EXPECT_EQ(jsonNumber(std::nan("")), "null");
  EXPECT_EQ(jsonNumber(INFINITY), "null");
  EXPECT_EQ(jsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
}

// The environment variable OUT and the working directory, restored when the test ends.
struct OutAndCwd {
  OutAndCwd() : cwd(std::filesystem::current_path()) {
    if (const char *o = std::getenv("OUT"))
      out = o, hadOut = true;
  }
  ~OutAndCwd() {
    std::filesystem::current_path(cwd);
    if (hadOut)
      ::setenv("OUT", out.c_str(), 1);
    else
      ::unsetenv("OUT");
  }
  std::filesystem::path cwd;
  std::string out;
  bool hadOut = false;
};

TEST(BenchReportTest, OutputPathIsUnderOutWhenSetElseUnderBuildGpu) {
  OutAndCwd restore;
  const std::string dir = testfiles::tempDir("bench-report", "out");
  ::setenv("OUT", (dir + "/nested").c_str(), 1);
  Expected<std::string> p = benchOutputPath("h200-2030-01-02.json");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(*p, dir + "/nested/h200-2030-01-02.json");
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/nested"));

  // Without OUT (or with it empty): build-gpu/results under the working directory.
  const std::string cwd = testfiles::tempDir("bench-report", "cwd");
  std::filesystem::current_path(cwd);
  for (bool empty : {false, true}) {
    if (empty)
      ::setenv("OUT", "", 1);
    else
      ::unsetenv("OUT");
    Expected<std::string> q = benchOutputPath("x.json");
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ(*q, "build-gpu/results/x.json");
    EXPECT_TRUE(std::filesystem::is_directory(cwd + "/build-gpu/results"));
  }

  // A folder that cannot be made is an error naming it.
  std::ofstream(dir + "/file") << "x";
  ::setenv("OUT", (dir + "/file/sub").c_str(), 1);
  Expected<std::string> bad = benchOutputPath("x.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find(dir + "/file/sub"), std::string::npos) << bad.error();
}

} // namespace
} // namespace fp8c::bench
