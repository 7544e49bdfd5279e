// The interpreter's semantics for non-finite and extreme inputs (IR.h, docs/numerics.md), on a
// quantized Linear y = x w^T (f32, x [4, 256], w [128, 256]: two 1x128 blocks per row of x,
// one row of 128x128 blocks of w) under each recipe:
//   - a NaN in x: tensorwise makes every output NaN (the tensor's scale is NaN), rowwise and
//     blockwise the NaN's row (its row's / block's scale), delayed the NaN's row (the scale
//     comes from the history; the cast keeps the NaN); +inf: the same, except that delayed
//     saturates it (finite outputs); the other rows are bit for bit those of a clean x;
//   - delayed: a non-finite amax is not pushed (the history unchanged), so a run with one bad
//     step continues bit for bit as the run without that step;
//   - tiny (1e-18, 1e-30) and huge (1e30) inputs quantize within the recipes' error, since the
//     scaled GEMM divides by one scale at a time (two scales of ~1e-18 operands multiply past
//     FLT_MAX: every output was 0);
//   - the NonFiniteReport: each output's NaN / inf count, each history's skipped amaxes.
#include "ir/Builder.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <string>

namespace fp8c {
namespace {

constexpr int64_t kM = 4, kK = 256, kN = 128;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::unique_ptr<Graph> linear() {
  GraphBuilder b("linear");
  Value *x = b.input("x", {{kDynamic, kK}, DType::F32});
  Value *w = b.input("w", {{kN, kK}, DType::F32});
  b.output(b.linear(x, w, nullptr, "y"));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  return g ? g.take() : nullptr;
}

std::unique_ptr<Graph> quantized(const std::string &recipe) {
  std::unique_ptr<Graph> g = linear();
  PassManager pm;
  const std::string opts = recipe == "delayed" ? " history_len=4" : "";
  EXPECT_TRUE(pm.parsePipeline("quantize{recipe=" + recipe + opts + "},canonicalize,cse,dce"));
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  EXPECT_TRUE(pm.run(*g, diag)) << diag.str();
  return g;
}

std::string stateKey(const AttrDict &a) {
  const Attribute *v = a.get("fp8.state");
  return v && v->kind() == AttrKind::String ? v->asString() : "";
}

// Steps a graph on the interpreter, carrying its state (amax histories) from run to run.
class Stepper {
public:
  explicit Stepper(const Graph &g) : g_(g) {
    for (unsigned i = 0; i < g.numInputs(); ++i)
      if (std::string k = stateKey(g.inputAttrs(i)); !k.empty())
        state[k] = HostTensor::make(g.input(i)->type().shape(), DType::F32);
  }

  // The outputs other than state, by name; `report` is this run's.
  std::map<std::string, HostTensor> run(const std::map<std::string, HostTensor> &in) {
    std::vector<HostTensor> args;
    for (unsigned i = 0; i < g_.numInputs(); ++i) {
      std::string k = stateKey(g_.inputAttrs(i));
      args.push_back(k.empty() ? in.at(g_.input(i)->name()) : state.at(k));
    }
    InterpretOptions o;
    o.report = &report;
    Expected<std::vector<HostTensor>> r = interpret(g_, args, o);
    EXPECT_TRUE(r) << (r ? "" : r.error());
    std::map<std::string, HostTensor> out;
    if (!r)
      return out;
    std::vector<Value *> outs = g_.outputs();
    for (unsigned i = 0; i < outs.size(); ++i) {
      std::string k = i < g_.resultAttrs().size() ? stateKey(g_.resultAttrs()[i]) : "";
      if (k.empty())
        out[outs[i]->name()] = (*r)[i];
      else
        state[k] = (*r)[i];
    }
    return out;
  }

  std::map<std::string, HostTensor> state;
  NonFiniteReport report;

private:
  const Graph &g_;
};

HostTensor scaled(HostTensor t, float factor) {
  for (float &v : t.data)
    v *= factor;
  return t;
}

std::map<std::string, HostTensor> inputs(uint64_t seed, float xScale = 1, float wScale = 1) {
  return {{"x", scaled(randomTensor({kM, kK}, DType::F32, seed, 1.0), xScale)},
          {"w", scaled(randomTensor({kN, kK}, DType::F32, seed + 100, 1.0 / 16), wScale)}};
}

int64_t outputCount(const NonFiniteReport &r, const std::string &name) {
  for (const NonFiniteReport::Output &o : r.outputs)
    if (o.name == name)
      return o.count;
  ADD_FAILURE() << "no output '" << name << "' in the report";
  return -2;
}

// Rows of y that hold a NaN or inf.
std::vector<int64_t> nonFiniteRows(const HostTensor &y) {
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < y.shape[0]; ++r)
    for (int64_t c = 0; c < y.shape[1]; ++c)
      if (!std::isfinite(y.data[static_cast<size_t>(r * y.shape[1] + c)])) {
        rows.push_back(r);
        break;
      }
  return rows;
}

bool rowBitsEqual(const HostTensor &a, const HostTensor &b, int64_t r) {
  for (int64_t c = 0; c < a.shape[1]; ++c) {
    const size_t i = static_cast<size_t>(r * a.shape[1] + c);
    if (std::memcmp(&a.data[i], &b.data[i], sizeof(float)) != 0)
      return false;
  }
  return true;
}

struct BadValueCase {
  const char *recipe;
  float value;             ///< what x[1, 5] becomes
  bool everyOutputNaN;     ///< the whole of y is NaN
  bool rowNaN;             ///< row 1 of y is NaN (else every output finite)
  int64_t xHistorySkipped; ///< delayed: x's history skipped this amax
};

void PrintTo(const BadValueCase &c, std::ostream *os) {
  *os << c.recipe << " x[1, 5] = " << c.value;
}

class InterpreterNonFiniteInput : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(InterpreterNonFiniteInput, SpreadsAsDocumentedAndIsReported) {
  const BadValueCase c = GetParam();
  std::unique_ptr<Graph> g = quantized(c.recipe);
  ASSERT_TRUE(g);
  // Two steppers from the same clean first step (delayed: a history to take the scale from).
  Stepper bad(*g), clean(*g);
  bad.run(inputs(1));
  clean.run(inputs(1));
  std::map<std::string, HostTensor> in = inputs(2);
  std::map<std::string, HostTensor> inClean = in;
  in["x"].data[1 * kK + 5] = c.value;
  inClean["x"].data[1 * kK + 5] = 0.0f;
  HostTensor y = bad.run(in).at("y");
  HostTensor yClean = clean.run(inClean).at("y");

  if (c.everyOutputNaN) {
    for (float v : y.data)
      ASSERT_TRUE(std::isnan(v));
    EXPECT_EQ(outputCount(bad.report, "y"), kM * kN);
  } else {
    EXPECT_EQ(nonFiniteRows(y), c.rowNaN ? std::vector<int64_t>{1} : std::vector<int64_t>{});
    if (c.rowNaN)
      for (int64_t col = 0; col < kN; ++col)
        EXPECT_TRUE(std::isnan(y.data[static_cast<size_t>(kN + col)])) << col;
    EXPECT_EQ(outputCount(bad.report, "y"), c.rowNaN ? kN : 0);
    for (int64_t r : {0, 2, 3})
      EXPECT_TRUE(rowBitsEqual(y, yClean, r)) << "row " << r << " differs from a clean x's";
  }
  // The histories (delayed): x's amax was NaN / inf, w's was not.
  if (std::string(c.recipe) == "delayed") {
    ASSERT_EQ(bad.report.histories.size(), 2u);
    EXPECT_EQ(bad.report.skippedOf("x_amax_history"), c.xHistorySkipped);
    EXPECT_EQ(bad.report.skippedOf("w_amax_history"), 0);
    EXPECT_EQ(countBitMismatches(bad.state.at("w_amax_history"), clean.state.at("w_amax_history")),
              0);
  } else {
    EXPECT_TRUE(bad.report.histories.empty());
  }
  EXPECT_EQ(bad.report.clean(), false);
  EXPECT_TRUE(clean.report.clean());
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, InterpreterNonFiniteInput,
    ::testing::Values(BadValueCase{"tensorwise", kNaN, true, false, 0},
                      BadValueCase{"tensorwise", kInf, true, false, 0},
                      BadValueCase{"rowwise", kNaN, false, true, 0},
                      BadValueCase{"rowwise", -kInf, false, true, 0},
                      BadValueCase{"blockwise", kNaN, false, true, 0},
                      BadValueCase{"blockwise", kInf, false, true, 0},
                      BadValueCase{"delayed", kNaN, false, true, 1},
                      // +inf saturates to 448 in the cast: finite outputs, the amax skipped.
                      BadValueCase{"delayed", kInf, false, false, 1}),
    [](const auto &info) {
      const float v = info.param.value;
      return std::string(info.param.recipe) + (std::isnan(v) ? "_nan"
                                               : v > 0       ? "_inf"
                                                             : "_neg_inf");
    });

// One NaN step in the middle of a delayed run: its amax is not pushed, so the histories after
// it, and every later output, are bit for bit those of the run without that step; the later
// outputs are finite, and only that step counts a skip.
TEST(InterpreterNonFiniteDelayed, ABadStepLeavesNoTrace) {
  std::unique_ptr<Graph> g = quantized("delayed");
  ASSERT_TRUE(g);
  Stepper withBad(*g), without(*g);
  std::map<std::string, HostTensor> badIn = inputs(20);
  badIn["x"].data[3] = kNaN;
  for (uint64_t s : {10, 11})
    for (Stepper *st : {&withBad, &without})
      st->run(inputs(s, 1.0f + static_cast<float>(s - 10)));
  const std::map<std::string, HostTensor> before = withBad.state;
  withBad.run(badIn);
  EXPECT_EQ(withBad.report.skippedOf("x_amax_history"), 1);
  EXPECT_EQ(withBad.report.skippedOf("w_amax_history"), 0);
  EXPECT_EQ(countBitMismatches(withBad.state.at("x_amax_history"), before.at("x_amax_history")), 0)
      << "the NaN step changed x's history";
  // w's amax was finite: w's history moved on in the bad step; for the histories to match the
  // run without it, that run takes the same w (and a clean x) in its place.
  without.state["w_amax_history"] = withBad.state.at("w_amax_history");
  for (uint64_t s : {12, 13, 14}) {
    const std::map<std::string, HostTensor> in = inputs(s, 0.5f);
    HostTensor a = withBad.run(in).at("y"), b = without.run(in).at("y");
    EXPECT_TRUE(withBad.report.clean()) << "step " << s;
    EXPECT_EQ(countNonFinite(a), 0) << "step " << s;
    EXPECT_EQ(countBitMismatches(a, b), 0) << "step " << s;
    for (const auto &[key, h] : without.state)
      EXPECT_EQ(countBitMismatches(withBad.state.at(key), h), 0) << key << " after step " << s;
  }
}

// fp8.history_push itself: NaN, +inf and -inf amaxes leave the history as it was and count
// against the history's fp8.state key; a finite amax (0 included) is pushed.
TEST(InterpreterNonFiniteDelayed, HistoryPushSkipsNonFiniteAmaxes) {
  GraphBuilder b("push");
  Value *h = b.stateInput("hist", {{4}, DType::F32});
  Value *a = b.input("a", {{}, DType::F32});
  b.stateOutput("hist", b.historyPush(h, a, "next"));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  ASSERT_TRUE(g) << g.error();
  HostTensor hist = HostTensor::make({4}, DType::F32);
  hist.data = {3, 2, 1, 0.5f};
  for (float amax : {kNaN, kInf, -kInf, 7.0f, 0.0f}) {
    HostTensor av = HostTensor::make({}, DType::F32);
    av.data = {amax};
    NonFiniteReport r;
    InterpretOptions o;
    o.report = &r;
    std::vector<HostTensor> args = {hist, av};
    Expected<std::vector<HostTensor>> out = interpret(**g, args, o);
    ASSERT_TRUE(out) << out.error();
    const bool finite = std::isfinite(amax);
    const std::vector<float> want =
        finite ? std::vector<float>{amax, 3, 2, 1} : std::vector<float>{3, 2, 1, 0.5f};
    EXPECT_EQ((*out)[0].data, want) << "amax " << amax;
    ASSERT_EQ(r.histories.size(), 1u);
    EXPECT_EQ(r.histories[0].key, "hist");
    EXPECT_EQ(r.histories[0].skipped, finite ? 0 : 1) << "amax " << amax;
  }
}

struct MagnitudeCase {
  const char *recipe;
  float xScale, wScale;
  const char *id;
};

void PrintTo(const MagnitudeCase &c, std::ostream *os) {
  *os << c.recipe << ", x scaled by " << c.xScale << ", w by " << c.wScale;
}

class InterpreterExtremeMagnitudes : public ::testing::TestWithParam<MagnitudeCase> {};

// Inputs scaled by extreme factors quantize as well as unscaled ones: the relative error
// against the f32 graph stays within the recipes' bound for this Linear (3.6-4.2 % measured
// for every case below; QuantizeErrorBoundTest.cpp explains the 3.7 % of e4m3), and no output
// is zero. Delayed scaling first takes one step on inputs of the same magnitude (a history of
// zeros gives scale 1, under which 1e-18 rounds to FP8 zero).
TEST_P(InterpreterExtremeMagnitudes, WithinTheRecipesErrorBound) {
  const MagnitudeCase c = GetParam();
  std::unique_ptr<Graph> ref = linear(), q = quantized(c.recipe);
  ASSERT_TRUE(ref && q);
  Stepper quant(*q), exact(*ref);
  quant.run(inputs(30, c.xScale, c.wScale));
  const std::map<std::string, HostTensor> in = inputs(31, c.xScale, c.wScale);
  HostTensor y = quant.run(in).at("y"), want = exact.run(in).at("y");
  const double err = relativeFrobeniusError(y, want);
  EXPECT_LT(err, 0.06) << "x scaled by " << c.xScale << ", w by " << c.wScale;
  EXPECT_EQ(countNonFinite(y), 0);
  int64_t zeros = 0;
  for (float v : y.data)
    zeros += v == 0.0f;
  EXPECT_EQ(zeros, 0);
  EXPECT_TRUE(quant.report.clean());
}

std::vector<MagnitudeCase> magnitudeCases() {
  std::vector<MagnitudeCase> out;
  for (const char *r : {"tensorwise", "rowwise", "blockwise", "delayed"}) {
    out.push_back({r, 1e-18f, 1.0f, "x1em18"});
    out.push_back({r, 1e-30f, 1.0f, "x1em30"});
    out.push_back({r, 1e-18f, 1e-18f, "x1em18_w1em18"});
    out.push_back({r, 1e30f, 1.0f, "x1e30"});
    out.push_back({r, 1e-30f, 1e30f, "x1em30_w1e30"});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Recipes, InterpreterExtremeMagnitudes,
                         ::testing::ValuesIn(magnitudeCases()), [](const auto &info) {
                           return std::string(info.param.recipe) + "_" + info.param.id;
                         });

// The report's output names and counts: the returned value's name, else output<i>.
TEST(InterpreterNonFiniteReport, CountsEveryOutput) {
  GraphBuilder b("two");
  Value *x = b.input("x", {{3}, DType::F32});
  b.output(b.relu(x, "r"));
  b.output(b.add(x, x));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  ASSERT_TRUE(g) << g.error();
  HostTensor in = HostTensor::make({3}, DType::F32);
  in.data = {kNaN, 2e38f, 1.0f}; // relu keeps the NaN; 2e38 + 2e38 overflows to inf
  NonFiniteReport r;
  InterpretOptions o;
  o.report = &r;
  std::vector<HostTensor> args = {in};
  ASSERT_TRUE(interpret(**g, args, o));
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].name, "r");
  EXPECT_EQ(r.outputs[0].count, 1);
  EXPECT_EQ(r.outputs[1].name.rfind("output", 0), 0u) << r.outputs[1].name;
  EXPECT_EQ(r.outputs[1].count, 2);
  EXPECT_FALSE(r.clean());
  const std::vector<std::string> w = r.warnings();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "warning: output 'r' has 1 non-finite value");
}

} // namespace
} // namespace fp8c
