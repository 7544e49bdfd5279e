// Graphs compiled without a recipe (CompileOptions::recipe = std::nullopt: the default pipeline
// minus `quantize`): the plan keeps every GEMM in the graph's own precision on cuBLASLt, and on
// the GPU the outputs match the interpreter's run of the graph as written.
#include "unit/runtime/GpuTestSupport.h"

#include "driver/Compile.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace fp8c {
namespace {

using gputest::runOnCpu;
using gputest::runOnDevice;

// A bf16 MLP block: linear + bias -> gelu (tanh) -> linear + bias.
constexpr const char *kBf16Mlp = R"(
func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x512xbf16>, tensor<256x512xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
)";

// An f32 block: linear + bias -> silu -> linear -> residual add.
constexpr const char *kF32Block = R"(
func.func @f32_block(%x: tensor<?x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %g = fp8.silu %h : (tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = fp8.linear %g, %w2 : (tensor<?x128xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  %r = fp8.add %y, %x : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
)";

// An f16 linear with a relu.
constexpr const char *kF16Linear = R"(
func.func @f16_linear(%x: tensor<?x64xf16>, %w: tensor<32x64xf16>) -> tensor<?x32xf16> {
  %y = fp8.linear %x, %w : (tensor<?x64xf16>, tensor<32x64xf16>) -> tensor<?x32xf16>
  %r = fp8.relu %y : (tensor<?x32xf16>) -> tensor<?x32xf16>
  return %r : tensor<?x32xf16>
}
)";

std::unique_ptr<Module> parseText(const std::string &text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "<test>", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  return m;
}

CompileOptions noRecipe(int64_t maxTokens) {
  CompileOptions o;
  o.recipe = std::nullopt;
  o.load.maxTokens = maxTokens;
  return o;
}

struct NoRecipeCase {
  const char *name;
  const char *text;
  DType dtype;
  size_t gemms;
  testcmp::Bounds bounds;
};

void PrintTo(const NoRecipeCase &c, std::ostream *os) { *os << c.name; }

// f16: the GPU's other summation order may move the one f16 rounding of an output a step (2^-10
// of the element); two steps. f32: the accumulation order alone (K <= 128: ~1e-6), and the
// device's silu against the host's; far under 1e-4.
const NoRecipeCase kCases[] = {
    {"bf16_mlp", kBf16Mlp, DType::BF16, 2, testcmp::kBf16VsInterpreter},
    {"f32_block", kF32Block, DType::F32, 2, {1e-4, 1e-4}},
    {"f16_linear", kF16Linear, DType::F16, 1, {2e-3, 0x1p-9}},
};

class NoRecipeTest : public ::testing::TestWithParam<NoRecipeCase> {};

TEST_P(NoRecipeTest, PlanRunsEveryGemmOnCublasLtUnquantized) {
  const NoRecipeCase &c = GetParam();
  std::unique_ptr<Module> m = parseText(c.text);
  ASSERT_TRUE(m);
  CompileOptions o = noRecipe(64);
  Expected<CompiledGraph> cg = compileToPlan(*m->graphs()[0], o);
  ASSERT_TRUE(cg) << cg.error();
  EXPECT_EQ(cg->pipeline, "shape-infer,canonicalize,cse,fuse,dce");
  size_t gemms = 0;
  for (const Step &s : cg->plan.steps)
    if (const auto *g = std::get_if<GemmStep>(&s)) {
      ++gemms;
      EXPECT_EQ(cg->plan.buffers[size_t(g->a)].type.dtype(), c.dtype) << g->name;
      EXPECT_EQ(cg->plan.buffers[size_t(g->b)].type.dtype(), c.dtype) << g->name;
    }
  EXPECT_EQ(gemms, c.gemms);
  cg->graph->walk([](const Op *op) {
    EXPECT_FALSE(opInfo(op->kind()).has(kQuantOp)) << op->name() << ": nothing is quantized";
  });
}

TEST_P(NoRecipeTest, GpuMatchesInterpreter) {
  FP8C_REQUIRE_GPU();
  const NoRecipeCase &c = GetParam();
  std::unique_ptr<Module> m = parseText(c.text);
  ASSERT_TRUE(m);
  const Graph &g = *m->graphs()[0];
  const int64_t tokens = 37; // not a multiple of anything the kernels tile by
  Expected<std::unique_ptr<Executable>> exe = compile(g, noRecipe(tokens));
  ASSERT_TRUE(exe) << exe.error();
  std::vector<HostTensor> rnd = randomInputs(g, 5, tokens);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    in[g.input(i)->name()] = rnd[i];
  std::map<std::string, HostTensor> gpu = runOnDevice(**exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(g, in); // the graph as written
  for (const std::string &name : (*exe)->outputNames()) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    const testcmp::Comparison cmp = testcmp::compare(gpu[name], cpu[name]);
    EXPECT_TRUE(cmp.within(c.bounds)) << c.name << " output " << name;
    std::cout << "[ norecipe ] " << c.name << " '" << name << "': relative error vs interpreter "
              << cmp.relFrobenius() << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, NoRecipeTest, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace fp8c
