// Accuracy of each recipe (docs/numerics.md): the quantized graph
// (`quantize{recipe=R}`) against the unquantized f32 graph, on the CPU interpreter, as the
// relative Frobenius error of the output. Two f32 graphs: a Linear (M 64, K 512, N 256, bias)
// and an MLP (64 x 512 -> 1024 -> 512, bias + tanh gelu). Two input distributions: Gaussian,
// and heavy-tailed (Student-t with 3 degrees of freedom, same variance: rare values many
// sigmas out, as real activations have) for activations and weights alike.
//
// Why the errors are what they are. e4m3 keeps 3 mantissa bits: round to nearest leaves an
// absolute error uniform within half a spacing, and the spacing is 2^-3 of the binade's bottom,
// so the relative error has a standard deviation of 2^-3 / sqrt(12) = 3.6% at a binade's
// bottom, 2.65% averaged over a binade (log-uniform values). A product of two quantized
// operands carries both: sqrt(2) * 2.65% = 3.75%, and a dot product of K independent terms
// with random signs keeps that relative size. Measured: the Linear 3.7% for every recipe, the
// MLP (two quantized GEMMs in a row) sqrt(2) times that, 5.3%; e5m2 activations (2 mantissa
// bits, 5.3% per operand) 5.8%.
// Heavy tails cost tensorwise almost nothing at these sizes: the largest of 32768 t3 samples is
// 15 to 65 sigma, and e4m3's normal range spans 2^-6..448 (15 binades), so the bulk of the
// values stays normal, where the relative error does not depend on the magnitude, and what
// reaches the subnormals is too small to matter in a Frobenius norm. What helps is that the
// element that sets a scale is represented exactly (it lands on 448): rowwise does that for
// every row, and the rows' largest elements dominate the output, so it gains ~10% (3.4% vs
// 3.7%); blockwise rounds its scales down to powers of two (pow2 is its default), which loses
// that, and without pow2 it gains the same as rowwise. Delayed scaling takes the largest amax
// of its history (4 warm-up steps on other batches here): on Gaussian data the same as the
// current amax to a few percent; on heavy-tailed data a batch whose outlier exceeds every
// amax in the history saturates it at 448, and the error depends on the batch (seeds 1 to 7:
// Linear 3.7% to 9.8%, MLP 5.4% to 8.5%; seed 7: 3.7% and 7.9%).
// The bounds are the measured values (seed 7, listed at each case) times 1.5, rounded up; all
// other recipes vary by less than 5% between seeds 1 to 7.
#include "ir/Builder.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fp8c {
namespace {

constexpr int64_t kM = 64;

enum class Model { Linear, Mlp };

// The unquantized f32 graph.
std::unique_ptr<Graph> buildModel(Model model) {
  GraphBuilder b(model == Model::Linear ? "linear" : "mlp");
  Value *x = b.input("x", {{kDynamic, 512}, DType::F32});
  if (model == Model::Linear) {
    Value *w = b.input("w", {{256, 512}, DType::F32});
    Value *bias = b.input("b", {{256}, DType::F32});
    b.output(b.linear(x, w, bias, "y"));
  } else {
    Value *w1 = b.input("w1", {{1024, 512}, DType::F32});
    Value *b1 = b.input("b1", {{1024}, DType::F32});
    Value *w2 = b.input("w2", {{512, 1024}, DType::F32});
    Value *b2 = b.input("b2", {{512}, DType::F32});
    Value *h = b.gelu(b.linear(x, w1, b1, "h"), "tanh", "g");
    b.output(b.linear(h, w2, b2, "y"));
  }
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  return g ? g.take() : nullptr;
}

std::unique_ptr<Graph> quantized(Model model, const std::string &recipe) {
  std::unique_ptr<Graph> g = buildModel(model);
  PassManager pm;
  EXPECT_TRUE(pm.parsePipeline("quantize{recipe=" + recipe + "},canonicalize,cse,dce"));
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  EXPECT_TRUE(pm.run(*g, diag)) << diag.str();
  return g;
}

// Inputs of the unquantized graph: x [M, 512], weights [N, K] with variance 1/K, biases with
// standard deviation 0.1; heavy-tailed or Gaussian.
std::vector<HostTensor> modelInputs(const Graph &g, uint64_t seed, bool heavy) {
  std::vector<HostTensor> in;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    std::vector<int64_t> shape = g.input(i)->type().shape();
    double stddev = 0.1;
    if (shape.size() == 2 && shape[0] == kDynamic) {
      shape[0] = kM;
      stddev = 1.0;
    } else if (shape.size() == 2) {
      stddev = 1.0 / std::sqrt(static_cast<double>(shape[1]));
    }
    in.push_back(randomTensor(shape, DType::F32, seed * 16 + i, stddev, heavy));
  }
  return in;
}

std::vector<HostTensor> run(const Graph &g, const std::vector<HostTensor> &in) {
  Expected<std::vector<HostTensor>> r = interpret(g, in);
  EXPECT_TRUE(r) << r.error();
  return r ? r.take() : std::vector<HostTensor>{};
}

// The quantized output's relative Frobenius error against the f32 graph on the batch of
// `seed`. Delayed scaling first runs `warmup` steps on other batches, carrying its histories.
double measure(Model model, const std::string &recipe, bool heavy, uint64_t seed = 7,
               int warmup = 4) {
  std::unique_ptr<Graph> ref = buildModel(model);
  std::unique_ptr<Graph> q = quantized(model, recipe);
  if (!ref || !q)
    return NAN;
  const unsigned numModelInputs = ref->numInputs();
  // Histories (delayed) start at zero.
  std::vector<HostTensor> state;
  for (unsigned i = numModelInputs; i < q->numInputs(); ++i)
    state.push_back(HostTensor::make(q->input(i)->type().shape(), DType::F32));
  auto step = [&](uint64_t s) {
    std::vector<HostTensor> in = modelInputs(*ref, s, heavy);
    std::vector<HostTensor> qin = in;
    qin.insert(qin.end(), state.begin(), state.end());
    std::vector<HostTensor> out = run(*q, qin);
    if (out.size() == 1 + state.size())
      std::copy(out.begin() + 1, out.end(), state.begin());
    return std::make_pair(in, out);
  };
  if (!state.empty())
    for (int i = 0; i < warmup; ++i)
      step(seed + 1000 + static_cast<uint64_t>(i));
  auto [in, out] = step(seed);
  std::vector<HostTensor> want = run(*ref, in);
  if (out.empty() || want.empty())
    return NAN;
  return relativeFrobeniusError(out[0], want[0]);
}

struct BoundCase {
  Model model;
  const char *recipe; ///< quantize options
  bool heavy;
  double bound; ///< 1.5 x the measured error, rounded up
  const char *id;
};

class QuantizeErrorBound : public ::testing::TestWithParam<BoundCase> {};

TEST_P(QuantizeErrorBound, RelativeFrobeniusErrorAgainstF32) {
  const BoundCase &c = GetParam();
  double err = measure(c.model, c.recipe, c.heavy);
  if (std::getenv("FP8C_TEST_PRINT_ERRORS"))
    std::printf("[ error    ] %-34s %.5f (bound %.3f)\n", c.id, err, c.bound);
  RecordProperty("relative_frobenius_error", std::to_string(err));
  EXPECT_TRUE(std::isfinite(err));
  EXPECT_LT(err, c.bound);
  // A bound far above the error would no longer pin anything: keep it within 2x.
  EXPECT_GT(err, c.bound / 2) << "the error dropped well below its bound: re-measure";
}

// Measured (seed 7) in the comment at each line; bound = 1.5 x measured, rounded up.
const BoundCase kBounds[] = {
    {Model::Linear, "tensorwise", false, 0.056, "linear_gaussian_tensorwise"}, // 0.03723
    {Model::Linear, "delayed", false, 0.057, "linear_gaussian_delayed"},       // 0.03752
    {Model::Linear, "rowwise", false, 0.056, "linear_gaussian_rowwise"},       // 0.03689
    {Model::Linear, "blockwise", false, 0.057, "linear_gaussian_blockwise"},   // 0.03742
    {Model::Linear, "tensorwise", true, 0.057, "linear_heavy_tensorwise"},     // 0.03744
    {Model::Linear, "delayed", true, 0.056, "linear_heavy_delayed"},           // 0.03704
    {Model::Linear, "rowwise", true, 0.052, "linear_heavy_rowwise"},           // 0.03406
    {Model::Linear, "blockwise", true, 0.056, "linear_heavy_blockwise"},       // 0.03725
    {Model::Mlp, "tensorwise", false, 0.080, "mlp_gaussian_tensorwise"},       // 0.05325
    {Model::Mlp, "delayed", false, 0.080, "mlp_gaussian_delayed"},             // 0.05275
    {Model::Mlp, "rowwise", false, 0.080, "mlp_gaussian_rowwise"},             // 0.05316
    {Model::Mlp, "blockwise", false, 0.081, "mlp_gaussian_blockwise"},         // 0.05332
    {Model::Mlp, "tensorwise", true, 0.082, "mlp_heavy_tensorwise"},           // 0.05405
    {Model::Mlp, "delayed", true, 0.119, "mlp_heavy_delayed"},                 // 0.07900
    {Model::Mlp, "rowwise", true, 0.074, "mlp_heavy_rowwise"},                 // 0.04910
    {Model::Mlp, "blockwise", true, 0.083, "mlp_heavy_blockwise"},             // 0.05473
    // Options that change the error: exact block maxima again, and 2-bit activations.
    {Model::Linear, "blockwise pow2=false", true, 0.052,
     "linear_heavy_blockwise_no_pow2"}, // 0.03447
    {Model::Linear, "tensorwise act_dtype=e5m2", false, 0.088,
     "linear_gaussian_e5m2_act"}, // 0.05821
};

INSTANTIATE_TEST_SUITE_P(Recipes, QuantizeErrorBound, ::testing::ValuesIn(kBounds),
                         [](const ::testing::TestParamInfo<BoundCase> &info) {
                           return std::string(info.param.id);
                         });

// Where a scale's group is a row (or a 1x128 block with exact scales), the row's largest
// element is exact in FP8; on heavy-tailed data those elements dominate, so these recipes beat
// tensorwise on every seed tried.
TEST(QuantizeErrorOrder, PerRowScalesBeatPerTensorOnHeavyTails) {
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    double tensorwise = measure(Model::Linear, "tensorwise", true, seed);
    EXPECT_LT(measure(Model::Linear, "rowwise", true, seed), tensorwise);
    EXPECT_LT(measure(Model::Linear, "blockwise pow2=false", true, seed), tensorwise);
  }
}

} // namespace
} // namespace fp8c
