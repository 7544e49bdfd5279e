// Randomized differential test of `fuse` (and of the quantize patterns it sees): seeded random
// DAGs of linears, matmuls, pointwise ops, amax observers, values used twice or returned,
// operands computed from other GEMMs' results, hand-quantized GEMMs and casts whose scales are
// shared, and amax histories updated and read again, quantized with each recipe (or not at
// all), then fused. For every graph: fuse succeeds (no cycle between kernels), the result verifies,
// every op of the unfused graph lands in exactly one kernel, and the interpreter gives
// bit-identical outputs before and after. The generator is deterministic (std::mt19937_64's
// output is fixed by the standard; no std::*_distribution).
#include "ir/Builder.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "passes/FusionPlan.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/TensorStats.h"
#include "interp/RandomInputs.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

namespace fp8c {
namespace {

constexpr int64_t kD = 64; // every feature dim

class RandomGraph {
public:
  explicit RandomGraph(uint64_t seed) : rng_(seed) {}

  std::unique_ptr<Graph> build() {
    GraphBuilder b("random");
    for (int i = 0; i < 2; ++i)
      acts_.push_back(b.input("x" + std::to_string(i), {{kDynamic, kD}, DType::BF16}));
    const int numOps = 6 + static_cast<int>(pick(10));
    for (int i = 0; i < numOps; ++i) {
      std::string name = "v" + std::to_string(i);
      switch (pick(15)) {
      case 0:
      case 1:
      case 2: // a GEMM, the common case
        acts_.push_back(b.linear(anyAct(), weight(b), pick(2) ? bias(b) : nullptr, name));
        break;
      case 3:
        acts_.push_back(b.matmul(anyAct(), weight(b), name));
        break;
      case 4:
        acts_.push_back(b.relu(recentAct(), name));
        break;
      case 5:
        acts_.push_back(b.gelu(recentAct(), pick(2) ? "tanh" : "none", name));
        break;
      case 6:
        acts_.push_back(b.silu(recentAct(), name));
        break;
      case 7:
        acts_.push_back(b.add(recentAct(), anyAct(), name));
        break;
      case 8:
        acts_.push_back(b.swiglu(recentAct(), anyAct(), name));
        break;
      case 9: { // an observer: amax at some granularity, returned
        const Granularity g[] = {Granularity::Tensor, Granularity::Row, Granularity::Col,
                                 Granularity::Block1x128, Granularity::Block128x128};
        b.output(b.amax(recentAct(), g[pick(5)], name));
        break;
      }
      case 10: { // an operand computed from another tensor's amax (a GEMM's, often)
        Value *s = b.convert(b.amax(anyAct(), Granularity::Tensor), DType::BF16, name + "_s");
        acts_.push_back(b.mul(recentAct(), s, name));
        break;
      }
      case 11:
      case 12: { // a hand-quantized GEMM whose scales may be shared with other casts and GEMMs
        Value *sa = scale(b), *sw = scale(b);
        Value *aq = b.cast(recentAct(), sa, DType::F8E4M3FN, Granularity::Tensor, name + "_a8");
        Value *wq = b.cast(weight(b), sw, DType::F8E4M3FN, Granularity::Tensor, name + "_w8");
        acts_.push_back(b.scaledMatmul(aq, wq, sa, sw, nullptr, DType::BF16, pick(2), name));
        break;
      }
      case 13: // an FP8 output cast with some scale
        b.output(b.cast(recentAct(), scale(b), DType::F8E4M3FN, Granularity::Tensor, name));
        break;
      case 14: { // a history update; later scales may read the updated history
        size_t h = pick(histories_.size() + 1);
        if (h == histories_.size()) {
          std::string key = "h" + std::to_string(h);
          histories_.push_back({key, b.stateInput(key, {{8}, DType::F32})});
        }
        histories_[h].second = b.historyPush(histories_[h].second, b.amax(recentAct()), name);
        break;
      }
      }
      if (pick(5) == 0) // a second use of a value: returned too
        b.output(anyAct());
    }
    b.output(acts_.back());
    for (auto &[key, latest] : histories_)
      b.stateOutput(key, latest);
    Expected<std::unique_ptr<Graph>> g = b.finish();
    EXPECT_TRUE(g) << g.error();
    return g ? g.take() : nullptr;
  }

private:
  uint64_t pick(uint64_t n) { return rng_() % n; }
  Value *anyAct() { return acts_[pick(acts_.size())]; }
  // Mostly the latest value, so that chains form.
  Value *recentAct() { return pick(3) ? acts_.back() : anyAct(); }
  Value *weight(GraphBuilder &b) {
    if (!weights_.empty() && pick(4) == 0) // a weight shared by two GEMMs
      return weights_[pick(weights_.size())];
    weights_.push_back(b.input("w" + std::to_string(weights_.size()), {{kD, kD}, DType::BF16}));
    return weights_.back();
  }
  // A tensor scale: an existing one (shared), or from an amax, or from a history (perhaps
  // an updated one).
  Value *scale(GraphBuilder &b) {
    if (!scales_.empty() && pick(3) == 0)
      return scales_[pick(scales_.size())];
    if (!histories_.empty() && pick(2) == 0)
      scales_.push_back(b.historyScale(histories_[pick(histories_.size())].second,
                                       pick(2) ? "max" : "most_recent"));
    else
      scales_.push_back(b.scale(b.amax(anyAct())));
    return scales_.back();
  }
  Value *bias(GraphBuilder &b) {
    return b.input("b" + std::to_string(numBiases_++), {{kD}, DType::BF16});
  }

  std::mt19937_64 rng_;
  std::vector<Value *> acts_, weights_, scales_;
  std::vector<std::pair<std::string, Value *>> histories_; ///< key, latest value
  int numBiases_ = 0;
};

std::unique_ptr<Module> parse(const std::string &text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "g1", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str() << text;
  return m && !diag.hasErrors() ? std::move(m) : nullptr;
}

std::string runPipeline(Module &m, const std::string &pipeline) {
  PassManager pm;
  if (Status s = pm.parsePipeline(pipeline); !s)
    return s.message();
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  bool ok = pm.run(m, diag) && verifyModule(m, diag);
  return ok ? "" : diag.str();
}

bool sameBits(const HostTensor &a, const HostTensor &b) { return firstBitMismatch(a, b) < 0; }

class FusionRandomGraph : public ::testing::TestWithParam<const char *> {};

TEST_P(FusionRandomGraph, FusedGraphsVerifyAndComputeTheSame) {
  const std::string quantize = GetParam();
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::unique_ptr<Graph> g0 = RandomGraph(seed).build();
    ASSERT_TRUE(g0);
    Module m0;
    m0.add(std::move(g0));
    std::string pipeline = "canonicalize,cse";
    if (!quantize.empty())
      pipeline = "quantize{" + quantize + "}," + pipeline;
    ASSERT_EQ(runPipeline(m0, pipeline), "") << toString(m0);
    const std::string g1Text = toString(m0);
    std::unique_ptr<Module> m1 = parse(g1Text), m2 = parse(g1Text);
    ASSERT_TRUE(m1 && m2);
    const Graph &g1 = *m1->graphs()[0];

    // Every top-level op of G1 is in exactly one planned kernel, in a valid order.
    FusionPlan plan = planFusion(g1);
    ASSERT_EQ(plan.error, "") << g1Text;
    size_t planned = 0;
    for (const PlannedKernel &k : plan.kernels)
      planned += k.ops.size();
    EXPECT_EQ(planned, g1.body().ops().size() - 1) << g1Text;
    EXPECT_EQ(plan.kernelOf.size(), planned);

    ASSERT_EQ(runPipeline(*m2, "fuse,dce"), "") << g1Text;
    const Graph &g2 = *m2->graphs()[0];
    std::vector<HostTensor> in = randomInputs(g1, seed, 3);
    for (unsigned i = 0; i < g1.numInputs(); ++i)
      if (g1.inputAttrs(i).has("fp8.state")) // a history with two entries
        for (size_t j = 0; j < 2; ++j)
          in[i].data[j] = 1.5f + static_cast<float>(j);
    Expected<std::vector<HostTensor>> r1 = interpret(g1, in);
    Expected<std::vector<HostTensor>> r2 = interpret(g2, in);
    ASSERT_TRUE(r1) << r1.error() << "\n" << g1Text;
    ASSERT_TRUE(r2) << r2.error() << "\n" << toString(g2);
    ASSERT_EQ(r1->size(), r2->size());
    for (size_t i = 0; i < r1->size(); ++i)
      EXPECT_TRUE(sameBits((*r1)[i], (*r2)[i])) << "output #" << i << "\n" << g1Text;
  }
}

INSTANTIATE_TEST_SUITE_P(Recipes, FusionRandomGraph,
                         ::testing::Values("", "recipe=tensorwise", "recipe=delayed",
                                           "recipe=rowwise", "recipe=blockwise",
                                           "recipe=delayed weights=static"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           std::string s = *info.param ? info.param : "unquantized";
                           s = s.substr(s.find('=') + 1);
                           for (char &c : s)
                             if (c == ' ' || c == '=')
                               c = '_';
                           return s;
                         });

} // namespace
} // namespace fp8c
