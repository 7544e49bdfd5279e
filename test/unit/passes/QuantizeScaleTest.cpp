// The scale math of fp8.scale (ir/IR.h) as the `quantize` pass uses it: amax == 0 -> s = 1,
// NaN / inf amax -> NaN (and NaN outputs), tiny amax -> FLT_MAX, margin and pow2 reaching the
// scale ops, and delayed scaling's history (max / most_recent) while it is shorter than its
// length. The ops' own arithmetic is pinned in InterpreterQuantTest.cpp; here the graph comes
// from the pass, runs on the interpreter, and the scales it computed are read back as extra
// outputs. Expected values are literals worked out by hand.
#include "ir/Builder.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <map>
#include <set>

namespace fp8c {
namespace {

constexpr int64_t kM = 3, kK = 256, kN = 128;

// linear(x [3, 256] f32, w [128, 256] f32, b [128] f32) quantized with `options`, returning
// y and then the values named in `extra` (e.g. "x_scale"), in that order.
std::unique_ptr<Graph> quantizedLinear(const std::string &options,
                                       const std::vector<std::string> &extra) {
  GraphBuilder b("lin");
  Value *x = b.input("x", {{kM, kK}, DType::F32});
  Value *w = b.input("w", {{kN, kK}, DType::F32});
  Value *bias = b.input("b", {{kN}, DType::F32});
  b.output(b.linear(x, w, bias, "y"));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  if (!g)
    return nullptr;
  PassManager pm;
  EXPECT_TRUE(pm.parsePipeline("quantize{" + options + "}"));
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  EXPECT_TRUE(pm.run(**g, diag)) << diag.str();
  std::map<std::string, Value *> byName;
  (*g)->walk([&](Op *op) {
    for (Value *r : op->results())
      byName[r->name()] = r;
  });
  for (const std::string &n : extra) {
    EXPECT_TRUE(byName.count(n)) << "no value named " << n;
    if (!byName.count(n))
      return nullptr;
    (*g)->returnOp()->addOperand(byName[n]);
    (*g)->addResultType(byName[n]->type());
  }
  return g.take();
}

// x: row r holds `rowMax[r]` at column r and 1/64 elsewhere; w: 1/16 everywhere except
// w[0][0] = wMax; b: 0.5. All exact in e4m3 after scaling by a power of two.
struct Inputs {
  std::vector<HostTensor> t;
};
Inputs makeInputs(std::vector<float> rowMax, float wMax = 0.5f) {
  HostTensor x = HostTensor::make({kM, kK}, DType::F32);
  for (int64_t r = 0; r < kM; ++r)
    for (int64_t c = 0; c < kK; ++c)
      x.at(r, c) = c == r ? rowMax[static_cast<size_t>(r)] : 1.0f / 64;
  HostTensor w = HostTensor::make({kN, kK}, DType::F32);
  for (float &v : w.data)
    v = 1.0f / 16;
  w.at(0, 0) = wMax;
  HostTensor b = HostTensor::make({kN}, DType::F32);
  for (float &v : b.data)
    v = 0.5f;
  return {{x, w, b}};
}

std::vector<HostTensor> run(const Graph *g, const std::vector<HostTensor> &in) {
  if (!g)
    return {};
  Expected<std::vector<HostTensor>> r = interpret(*g, in);
  EXPECT_TRUE(r) << r.error();
  return r ? r.take() : std::vector<HostTensor>{};
}

TEST(QuantizeScale, ZeroAmaxGivesScaleOneAndOnlyTheBias) {
  auto g = quantizedLinear("recipe=tensorwise", {"x_scale", "w_scale"});
  Inputs in = makeInputs({0, 0, 0});
  for (float &v : in.t[0].data)
    v = 0.0f;
  std::vector<HostTensor> r = run(g.get(), in.t);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].data[0], 1.0f);   // amax(x) = 0 -> s = 1
  EXPECT_EQ(r[2].data[0], 896.0f); // amax(w) = 0.5 -> 448 / 0.5
  for (float v : r[0].data)
    EXPECT_EQ(v, 0.5f); // 0 / (1 * 896) + 0.5
}

TEST(QuantizeScale, NonFiniteAmaxGivesNaNScaleAndNaNOutput) {
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    SCOPED_TRACE(bad);
    auto g = quantizedLinear("recipe=tensorwise", {"x_scale"});
    Inputs in = makeInputs({2, 2, 2});
    in.t[0].at(1, 5) = bad;
    std::vector<HostTensor> r = run(g.get(), in.t);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(std::isnan(r[1].data[0]));
    for (float v : r[0].data)
      ASSERT_TRUE(std::isnan(v));
  }
}

TEST(QuantizeScale, RowwiseKeepsANonFiniteAmaxInItsRow) {
  auto g = quantizedLinear("recipe=rowwise", {"x_scale"});
  Inputs in = makeInputs({2, 4, 8});
  in.t[0].at(1, 7) = NAN;
  std::vector<HostTensor> r = run(g.get(), in.t);
  ASSERT_EQ(r.size(), 2u);
  // 448 / 2, NaN, 448 / 8.
  EXPECT_EQ(r[1].data[0], 224.0f);
  EXPECT_TRUE(std::isnan(r[1].data[1]));
  EXPECT_EQ(r[1].data[2], 56.0f);
  for (int64_t n = 0; n < kN; ++n) {
    EXPECT_TRUE(std::isfinite(r[0].at(0, n)));
    EXPECT_TRUE(std::isnan(r[0].at(1, n)));
    EXPECT_TRUE(std::isfinite(r[0].at(2, n)));
  }
}

TEST(QuantizeScale, TinyAmaxGivesFltMax) {
  // amax(x) = 2^-130: 448 / 2^-130 overflows f32 -> FLT_MAX. x * FLT_MAX is 2^-130 * 2^128 *
  // (2 - 2^-23) ~ 0.5 -> a normal e4m3 value, so y stays finite.
  auto g = quantizedLinear("recipe=tensorwise", {"x_scale"});
  Inputs in = makeInputs({0, 0, 0});
  for (float &v : in.t[0].data)
    v = 0x1p-130f;
  std::vector<HostTensor> r = run(g.get(), in.t);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].data[0], FLT_MAX);
  for (float v : r[0].data)
    ASSERT_TRUE(std::isfinite(v));
}

TEST(QuantizeScale, MarginAndPow2ReachEveryScale) {
  // amax(x) = 3, amax(w) = 0.5.
  struct Case {
    const char *options;
    float xScale, wScale;
  };
  const Case cases[] = {
      // f32(448 / 3) = 149.333328, 448 / 0.5 = 896.
      {"recipe=tensorwise", 149.33332824707031f, 896},
      // margin 2: divided by 4 exactly.
      {"recipe=tensorwise margin=2", 37.33333206176758f, 224},
      // pow2 rounds down: 149.3 -> 128, 896 -> 512.
      {"recipe=tensorwise pow2=true", 128, 512},
      {"recipe=tensorwise pow2=true margin=2", 32, 128},
      // e5m2 activations: 57344 / 3 = 19114.666 -> f32 19114.666015625.
      {"recipe=tensorwise act_dtype=e5m2", 19114.666015625f, 896},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.options);
    auto g = quantizedLinear(c.options, {"x_scale", "w_scale"});
    std::vector<HostTensor> r = run(g.get(), makeInputs({3, 1, 2}).t);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[1].data[0], c.xScale);
    EXPECT_EQ(r[2].data[0], c.wScale);
  }
}

TEST(QuantizeScale, BlockwiseScalesArePowersOfTwoByDefault) {
  // Row maxima 3, 5, 0.75 (x's 1x128 blocks: column r is in block 0; block 1 holds 1/64):
  // 448/3 -> 128, 448/5 = 89.6 -> 64, 448/0.75 = 597.3 -> 512; block 1: 448*64 = 28672 -> 16384.
  auto g = quantizedLinear("recipe=blockwise", {"x_scale"});
  auto g2 = quantizedLinear("recipe=blockwise pow2=false", {"x_scale"});
  Inputs in = makeInputs({3, 5, 0.75f});
  std::vector<HostTensor> r = run(g.get(), in.t), r2 = run(g2.get(), in.t);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r[1].shape, (std::vector<int64_t>{kM, 2}));
  EXPECT_EQ(r[1].data, (std::vector<float>{128, 16384, 64, 16384, 512, 16384}));
  EXPECT_EQ(r2[1].data, (std::vector<float>{149.33332824707031f, 28672, 89.59999847412109f, 28672,
                                            597.3333129882812f, 28672}));
}

// Delayed scaling, history_len = 4: a fresh history is all zeros, so step 1 uses s = 1; each
// step pushes this step's amax in front. While fewer than 4 steps ran, the rest stay zero.
TEST(QuantizeScale, DelayedHistoryShorterThanItsLength) {
  for (const char *algo : {"max", "most_recent"}) {
    SCOPED_TRACE(algo);
    const bool max = std::string(algo) == "max";
    auto g = quantizedLinear(std::string("recipe=delayed history_len=4 margin=1 algo=") + algo,
                             {"x_scale"});
    ASSERT_TRUE(g);
    ASSERT_EQ(g->numInputs(), 5u);          // x, w, b, x and w histories
    ASSERT_EQ(g->resultTypes().size(), 4u); // y, the two new histories, x_scale
    std::vector<HostTensor> state = {HostTensor::make({4}, DType::F32),
                                     HostTensor::make({4}, DType::F32)};
    // Steps with amax(x) = 4, 1, 2.
    const float amaxes[] = {4, 1, 2};
    // margin 1: s = 448 / amax / 2. Step 1: fresh -> 1. Step 2: history [4] -> 56 either way.
    // Step 3: history [1, 4]: max -> 448 / 4 / 2 = 56, most_recent -> 448 / 1 / 2 = 224.
    const float want[] = {1, 56, max ? 56.0f : 224.0f};
    for (int step = 0; step < 3; ++step) {
      SCOPED_TRACE("step " + std::to_string(step + 1));
      Inputs in = makeInputs({amaxes[step], 0.5f, 0.25f});
      in.t.insert(in.t.end(), state.begin(), state.end());
      std::vector<HostTensor> r = run(g.get(), in.t);
      ASSERT_EQ(r.size(), 4u);
      EXPECT_EQ(r[3].data[0], want[step]);
      state = {r[1], r[2]};
    }
    // After three steps the x history is [2, 1, 4, 0]; w's amax was 0.5 every step.
    EXPECT_EQ(state[0].data, (std::vector<float>{2, 1, 4, 0}));
    EXPECT_EQ(state[1].data, (std::vector<float>{0.5f, 0.5f, 0.5f, 0}));
  }
}

// weights=static under delayed scaling: the weight's scale is its current amax's (no history),
// the activation's comes from its history.
TEST(QuantizeScale, StaticWeightsUseCurrentScalingUnderDelayed) {
  auto g = quantizedLinear("recipe=delayed weights=static", {"x_scale", "w_scale"});
  ASSERT_TRUE(g);
  ASSERT_EQ(g->numInputs(), 4u);
  const Attribute *param = g->inputAttrs(1).get("fp8.param");
  ASSERT_TRUE(param);
  EXPECT_TRUE(param->asBool());
  Inputs in = makeInputs({3, 1, 2}, 0.25f);
  std::vector<float> h(16, 0.0f);
  h[0] = 8;
  in.t.push_back(HostTensor::fromValues({16}, DType::F32, h));
  std::vector<HostTensor> r = run(g.get(), in.t);
  ASSERT_EQ(r.size(), 4u);          // y, x's new history, x_scale, w_scale
  EXPECT_EQ(r[2].data[0], 56.0f);   // 448 / max(history) = 448 / 8
  EXPECT_EQ(r[3].data[0], 1792.0f); // 448 / 0.25, this step's amax
}

// Values without names (C++ capture) still get one history each, with distinct state keys.
TEST(QuantizeScale, UnnamedValuesGetDistinctHistories) {
  GraphBuilder b("unnamed");
  Value *x = b.input("", {{kDynamic, kK}, DType::BF16});
  Value *w1 = b.input("", {{kK, kK}, DType::BF16});
  Value *w2 = b.input("", {{kN, kK}, DType::BF16});
  b.output(b.linear(b.gelu(b.linear(x, w1)), w2));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  ASSERT_TRUE(g) << g.error();
  PassManager pm;
  ASSERT_TRUE(pm.parsePipeline("quantize{recipe=delayed},fuse"));
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  ASSERT_TRUE(pm.run(**g, diag)) << diag.str();
  std::set<std::string> keys;
  for (unsigned i = 3; i < (*g)->numInputs(); ++i) {
    const Attribute *key = (*g)->inputAttrs(i).get("fp8.state");
    ASSERT_TRUE(key);
    keys.insert(key->asString());
  }
  EXPECT_EQ(keys.size(), 4u); // x, w1, the gelu's output, w2
  EXPECT_EQ((*g)->numInputs(), 7u);
}

} // namespace
} // namespace fp8c
