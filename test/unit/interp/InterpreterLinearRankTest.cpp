// fp8.linear on an input of rank > 2 is the linear of its [prod(leading dims), K] flattening:
// in the interpreter, the graph as written and after each pipeline that takes it (no recipe,
// tensorwise, delayed, tensorwise with static weights) give exactly the values of the same graph
// on the flattened input. On the GPU, the rank-3 graph matches the interpreter.
#include "unit/runtime/GpuTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace fp8c {
namespace {

// x [leading..., 96] -> linear + bias [160] -> gelu -> linear [96] -> add x.
std::string mlpText(const std::string &lead) {
  const std::string x = "tensor<" + lead + "x96xbf16>", h = "tensor<" + lead + "x160xbf16>";
  return fmt::format(R"(
func.func @mlp(%x: {x}, %w1: tensor<160x96xbf16>, %b1: tensor<160xbf16>, %w2: tensor<96x160xbf16>) -> {x} {{
  %h = fp8.linear %x, %w1, %b1 : ({x}, tensor<160x96xbf16>, tensor<160xbf16>) -> {h}
  %g = fp8.gelu %h {{approximate = "tanh"}} : ({h}) -> {h}
  %y = fp8.linear %g, %w2 : ({h}, tensor<96x160xbf16>) -> {x}
  %r = fp8.add %y, %x : ({x}, {x}) -> {x}
  return %r : {x}
}}
)",
                     fmt::arg("x", x), fmt::arg("h", h));
}

std::unique_ptr<Module> compiled(const std::string &text, const std::string &pipeline) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "<test>", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  if (!m || pipeline.empty())
    return m;
  PassManager pm;
  EXPECT_TRUE(pm.parsePipeline(pipeline).isOk()) << pipeline;
  pm.setVerifyEach(true);
  EXPECT_TRUE(pm.run(*m, diag)) << diag.str();
  return m;
}

// Inputs of `g` (the rank-3 graph after the passes): random values, seeded; a history is zero.
std::vector<HostTensor> inputsOf(const Graph &g) {
  std::vector<HostTensor> in = randomInputs(g, 7, 2);
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (g.inputAttrs(i).has("fp8.state"))
      std::fill(in[i].data.begin(), in[i].data.end(), 0.0f);
  return in;
}

struct RankCase {
  const char *name;
  const char *pipeline; ///< "" = the graph as written
};

class LinearRankTest : public ::testing::TestWithParam<RankCase> {};

TEST_P(LinearRankTest, Rank3IsTheFlattenedLinearExactly) {
  const RankCase &c = GetParam();
  // x [2, 3, 96] (leading dim dynamic, run at 2) against x [6, 96].
  std::unique_ptr<Module> m3 = compiled(mlpText("?x3"), c.pipeline);
  std::unique_ptr<Module> m2 = compiled(mlpText("?"), c.pipeline);
  ASSERT_TRUE(m3 && m2);
  const Graph &g3 = *m3->graphs()[0], &g2 = *m2->graphs()[0];
  ASSERT_EQ(g3.numInputs(), g2.numInputs());
  std::vector<HostTensor> in3 = inputsOf(g3);
  std::vector<HostTensor> in2 = in3;
  ASSERT_EQ(in3[0].shape, (std::vector<int64_t>{2, 3, 96}));
  in2[0].shape = {6, 96};
  // Two runs, so that a delayed history holds the first run's amax in the second.
  for (int run = 0; run < 2; ++run) {
    Expected<std::vector<HostTensor>> y3 = interpret(g3, in3);
    Expected<std::vector<HostTensor>> y2 = interpret(g2, in2);
    ASSERT_TRUE(y3) << y3.error();
    ASSERT_TRUE(y2) << y2.error();
    ASSERT_EQ(y3->size(), y2->size());
    EXPECT_EQ((*y3)[0].shape, (std::vector<int64_t>{2, 3, 96}));
    EXPECT_EQ((*y2)[0].shape, (std::vector<int64_t>{6, 96}));
    for (size_t o = 0; o < y3->size(); ++o) {
      const std::vector<float> &a = (*y3)[o].data, &b = (*y2)[o].data;
      ASSERT_EQ(a.size(), b.size()) << "output " << o;
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << c.name << " run " << run << ": output " << o << " differs";
    }
    // The state outputs feed the next run.
    for (unsigned i = 0, o = 1; i < g3.numInputs(); ++i)
      if (g3.inputAttrs(i).has("fp8.state")) {
        in3[i] = (*y3)[o];
        in2[i] = (*y2)[o++];
      }
  }
}

TEST_P(LinearRankTest, GpuMatchesInterpreter) {
  FP8C_REQUIRE_GPU();
  const RankCase &c = GetParam();
  std::unique_ptr<Module> m = compiled(mlpText("?x3"), "");
  ASSERT_TRUE(m);
  const Graph &g = *m->graphs()[0];
  CompileOptions o;
  o.passes = c.pipeline; // "": the default pipeline without a recipe
  o.recipe = std::nullopt;
  o.load.maxTokens = 64;
  Expected<std::unique_ptr<Executable>> exe = compile(g, o);
  ASSERT_TRUE(exe) << exe.error();
  const int64_t tokens = 37; // 111 GEMM rows
  std::vector<HostTensor> rnd = randomInputs((*exe)->graph(), 3, tokens);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < (*exe)->graph().numInputs(); ++i)
    in[(*exe)->graph().input(i)->name()] = rnd[i];
  std::map<std::string, HostTensor> gpu = gputest::runOnDevice(**exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = gputest::runOnCpu((*exe)->graph(), in);
  ASSERT_TRUE(gpu.count("r") && cpu.count("r"));
  const testcmp::Comparison cmp = testcmp::compare(gpu["r"], cpu["r"]);
  const bool fp8 = std::string(c.pipeline).find("quantize") != std::string::npos;
  EXPECT_TRUE(cmp.within(fp8 ? testcmp::kFp8VsInterpreter : testcmp::kBf16VsInterpreter)) << c.name;
  std::cout << "[ rank3    ] " << c.name << ": relative error vs interpreter " << cmp.relFrobenius()
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Pipelines, LinearRankTest,
    ::testing::Values(
        RankCase{"as_written", ""}, RankCase{"none", "shape-infer,canonicalize,cse,fuse,dce"},
        RankCase{"tensorwise",
                 "shape-infer,canonicalize,quantize{recipe=tensorwise},canonicalize,cse,fuse,dce"},
        RankCase{"delayed", "shape-infer,canonicalize,quantize{recipe=delayed "
                            "history_len=4},canonicalize,cse,fuse,dce"},
        RankCase{"tensorwise_static", "shape-infer,canonicalize,quantize{recipe=tensorwise "
                                      "weights=static},canonicalize,cse,fuse,dce"}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace fp8c
