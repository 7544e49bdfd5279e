// The interpreter's derivatives: the derivative ops (interp/GradOps.cpp: relu_grad,
// gelu_grad exact and tanh, silu_grad, swiglu_grad with respect to the gate and to up) and the
// three gradients autodiff writes for fp8.linear (dx, dw, db, run by InterpretedTraining), each
// against values worked out by hand from the closed-form derivative, and against central
// finite differences of the forward function, written here in f64, at points near 0, at
// moderate |x| and at large |x|.
#include "unit/interp/InterpreterTestSupport.h"

#include "interp/Interpreter.h"
#include "training/Training.h"
#include "unit/support/RecipeTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>

namespace fp8c {
namespace {

using interptest::finish;
using interptest::kNaN;

// One derivative op of `kind` on f32 operands (dy first), each of n elements: its result.
std::vector<float> runOp(OpKind kind, const AttrDict &attrs,
                         const std::vector<std::vector<float>> &operands) {
  const int64_t n = static_cast<int64_t>(operands[0].size());
  GraphBuilder b("grad");
  std::vector<Value *> ins;
  std::vector<HostTensor> args;
  const char *names[] = {"dy", "x", "y"};
  for (size_t i = 0; i < operands.size(); ++i) {
    ins.push_back(b.input(names[i], TensorType({n}, DType::F32)));
    args.push_back(HostTensor::fromValues({n}, DType::F32, operands[i]));
  }
  b.output(b.op(kind, ins, attrs));
  std::unique_ptr<Graph> g = finish(b);
  if (!g)
    return {};
  Expected<std::vector<HostTensor>> r = interpret(*g, args);
  EXPECT_TRUE(r) << r.error();
  return r ? (*r)[0].data : std::vector<float>{};
}

AttrDict attrs(const char *name, const char *value) {
  AttrDict d;
  d.set(name, Attribute(value));
  return d;
}

// --- The forward functions in f64, from their definitions (IR.h) ----------------------------

double geluErf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }
double geluTanh(double x) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}
double silu(double x) { return x / (1.0 + std::exp(-x)); }
double relu(double x) { return x > 0.0 ? x : 0.0; }

// Central difference of f at x in f64: h = 1e-5 max(1, |x|), so the truncation error
// (h^2 / 6) f''' and the rounding error (2^-53 |f| / h) both stay under 1e-9 of f's scale.
double centralDifference(const std::function<double(double)> &f, double x) {
  const double h = 1e-5 * std::max(1.0, std::fabs(x));
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

// The points every derivative is checked at: 0 and near it, moderate, and large |x| (where
// the derivatives saturate to 0 or 1 and f32's exp / erf / tanh underflow or round to +-1).
const std::vector<double> kPoints = {-30,  -10,  -5,  -2, -1, -0.5, -1e-2, -1e-4, 0,
                                     1e-4, 1e-2, 0.5, 1,  2,  5,    10,    30};

// dy at point i: a few magnitudes and both signs.
float dyAt(size_t i) {
  const float dys[] = {1.0f, -0.75f, 2.5f, -1.5f};
  return dys[i % 4];
}

// The op's f32 result against dy * f'(x) by central differences. f32 evaluates erf, exp and
// tanh within a few ulps of their O(1) terms, so the result is within a few times 2^-24 of
// max(1, |result|) absolutely: bound 2e-6 of that. (Where 1 + erf(x / sqrt 2) cancels, x < -4,
// the f32 value is right absolutely, not relatively.)
void expectMatchesDifferences(const std::vector<float> &got, const std::vector<double> &points,
                              const std::function<double(size_t, double)> &want,
                              const std::string &what) {
  ASSERT_EQ(got.size(), points.size()) << what;
  for (size_t i = 0; i < points.size(); ++i) {
    const double w = want(i, points[i]);
    EXPECT_NEAR(got[i], w, 2e-6 * std::max(1.0, std::fabs(w)))
        << what << " at x = " << points[i] << ", dy = " << dyAt(i);
  }
}

// The op's f32 results against values worked out by hand (to 16 digits): within 2e-6 of
// max(1, |want|), the f32 evaluation's few roundings of O(1) terms.
void expectByHand(const std::vector<float> &got, const std::vector<double> &want,
                  const std::vector<float> &x, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 2e-6 * std::max(1.0, std::fabs(want[i])))
        << what << " at x = " << x[i];
}

std::vector<float> asFloats(const std::vector<double> &v) {
  return std::vector<float>(v.begin(), v.end());
}

std::vector<float> dys(size_t n) {
  std::vector<float> d;
  for (size_t i = 0; i < n; ++i)
    d.push_back(dyAt(i));
  return d;
}

// --- relu_grad ------------------------------------------------------------------------------

// dy where x > 0, else 0 (x = 0 and -0 included); NaN in x or dy gives NaN.
TEST(InterpreterGrad, ReluGradByHand) {
  const std::vector<float> got =
      runOp(OpKind::ReluGrad, {},
            {{2, -3, 5, 7, 4, -6, kNaN, 1}, {1.5f, 0.25f, 0, -0.0f, -2, 1e-30f, 3, kNaN}});
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got[0], 2.0f);
  EXPECT_EQ(got[1], -3.0f);
  EXPECT_EQ(got[2], 0.0f);
  EXPECT_EQ(got[3], 0.0f);
  EXPECT_EQ(got[4], 0.0f);
  EXPECT_EQ(got[5], -6.0f) << "the smallest positive x passes dy";
  EXPECT_TRUE(std::isnan(got[6])) << "NaN dy";
  EXPECT_TRUE(std::isnan(got[7])) << "NaN x";
}

TEST(InterpreterGrad, ReluGradMatchesFiniteDifferences) {
  std::vector<double> pts;
  for (double x : kPoints)
    if (std::fabs(x) >= 1e-2) // the difference is defined away from the kink only
      pts.push_back(x);
  const std::vector<float> got = runOp(OpKind::ReluGrad, {}, {dys(pts.size()), asFloats(pts)});
  expectMatchesDifferences(
      got, pts, [](size_t i, double x) { return dyAt(i) * centralDifference(relu, x); },
      "relu_grad");
}

// --- gelu_grad ------------------------------------------------------------------------------

// Exact GELU: gelu'(x) = Phi(x) + x phi(x), with the normal distribution's table values
// Phi(1) = 0.8413447460685429, phi(1) = 0.24197072451914337, Phi(2) = 0.9772498680518208,
// phi(2) = 0.05399096651318806, Phi(-3) = 0.0013498980316301035, phi(3) = 0.0044318484119380075:
//   gelu'(0) = 1/2, gelu'(1) = 1.0833154705876864, gelu'(-1) = Phi(-1) - phi(1)
//   = 0.15865525393145707 - 0.24197072451914337 = -0.0833154705876863,
//   gelu'(2) = 0.9772498680518208 + 0.10798193302637612 = 1.085231801078197,
//   gelu'(-3) = 0.0013498980316301 - 0.0132955452358140 = -0.0119456472041839.
// And gelu'(x) + gelu'(-x) = Phi(x) + Phi(-x) = 1.
TEST(InterpreterGrad, GeluGradExactByHand) {
  const std::vector<float> x = {0, 1, -1, 2, -3, 10, -10};
  const std::vector<float> dy = {2, 1, 1, -0.5f, 4, 1, 1};
  const std::vector<float> got = runOp(OpKind::GeluGrad, attrs("approximate", "none"), {dy, x});
  const std::vector<double> want = {2 * 0.5,
                                    1.0833154705876864,
                                    -0.0833154705876863,
                                    -0.5 * 1.085231801078197,
                                    4 * -0.0119456472041839,
                                    1.0, // Phi(10) = 1 - 7.6e-24, 10 phi(10) = 7.7e-22
                                    0.0};
  expectByHand(got, want, x, "gelu_grad none");
  // The default of `approximate` is "none".
  EXPECT_EQ(runOp(OpKind::GeluGrad, {}, {dy, x}), got);
}

// Tanh GELU: d/dx 0.5 x (1 + tanh u), u = c (x + 0.044715 x^3), c = sqrt(2 / pi)
//   = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) c (1 + 3 * 0.044715 x^2).
//   x = 1: u = 0.7978845608 * 1.044715 = 0.8335619689, tanh u = 0.6823839812,
//     0.5 * 1.6823839812 + 0.5 * (1 - 0.4656479) * 0.7978845608 * 1.134145 = 1.0829640838.
//   x = 2: u = 0.7978845608 * 2.35772 = 1.8811883867, tanh u = 0.9545976941,
//     0.9772988470 + (1 - 0.9112567) * 0.7978845608 * 1.53658 = 1.0860992566.
//   x = 0.5: u = 0.4034019564, tanh u = 0.3828560393: 0.8673699035.
// And, tanh being odd, gelu'(x) + gelu'(-x) = 1: gelu'(-1) = -0.0829640838.
TEST(InterpreterGrad, GeluGradTanhByHand) {
  const std::vector<float> x = {0, 1, -1, 2, 0.5f, 10, -10};
  const std::vector<float> dy = {2, 1, 1, -0.5f, 4, 1, 1};
  const std::vector<float> got = runOp(OpKind::GeluGrad, attrs("approximate", "tanh"), {dy, x});
  const std::vector<double> want = {2 * 0.5,
                                    1.0829640838457826,
                                    -0.0829640838457826,
                                    -0.5 * 1.0860992566236183,
                                    4 * 0.8673699035346424,
                                    1.0,
                                    0.0};
  expectByHand(got, want, x, "gelu_grad tanh");
}

TEST(InterpreterGrad, GeluGradMatchesFiniteDifferences) {
  const std::vector<float> dy = dys(kPoints.size());
  const std::vector<float> exact =
      runOp(OpKind::GeluGrad, attrs("approximate", "none"), {dy, asFloats(kPoints)});
  expectMatchesDifferences(
      exact, kPoints, [](size_t i, double x) { return dyAt(i) * centralDifference(geluErf, x); },
      "gelu_grad none");
  const std::vector<float> tanh =
      runOp(OpKind::GeluGrad, attrs("approximate", "tanh"), {dy, asFloats(kPoints)});
  expectMatchesDifferences(
      tanh, kPoints, [](size_t i, double x) { return dyAt(i) * centralDifference(geluTanh, x); },
      "gelu_grad tanh");
}

// --- silu_grad ------------------------------------------------------------------------------

// silu'(x) = sg (1 + x (1 - sg)), sg = 1 / (1 + e^-x):
//   x = 0: sg = 1/2, silu' = 1/2.
//   x = 1: sg = 0.7310585786300049, silu' = 0.7310585786 * 1.2689414214 = 0.9276705118714869.
//   x = -1: sg = 0.2689414213699951, silu' = 0.2689414214 * 0.2689414214 = 0.0723294881285133
//     (= 1 - silu'(1): silu'(x) + silu'(-x) = 1).
//   x = 2: sg = 0.8807970779778823, silu' = 0.8807970780 * 1.2384058440 = 1.0907842487848955.
//   x = +-30: 1 and 0 (to 3e-12).
TEST(InterpreterGrad, SiluGradByHand) {
  const std::vector<float> x = {0, 1, -1, 2, 30, -30};
  const std::vector<float> dy = {3, 1, -2, 0.5f, 1, 1};
  const std::vector<float> got = runOp(OpKind::SiluGrad, {}, {dy, x});
  const std::vector<double> want = {
      3 * 0.5, 0.9276705118714869, -2 * 0.0723294881285133, 0.5 * 1.0907842487848955, 1.0, 0.0};
  expectByHand(got, want, x, "silu_grad");
}

TEST(InterpreterGrad, SiluGradMatchesFiniteDifferences) {
  const std::vector<float> got =
      runOp(OpKind::SiluGrad, {}, {dys(kPoints.size()), asFloats(kPoints)});
  expectMatchesDifferences(
      got, kPoints, [](size_t i, double x) { return dyAt(i) * centralDifference(silu, x); },
      "silu_grad");
}

// --- swiglu_grad ----------------------------------------------------------------------------

// swiglu(a, b) = silu(a) b. With respect to the gate a: dy b silu'(a); to up b: dy silu(a).
//   a = 1, b = 3, dy = 2: gate 2 * 3 * 0.9276705118714869 = 5.566023071228921,
//     up 2 * silu(1) = 2 * 0.7310585786300049 = 1.4621171572600098.
//   a = -1, b = -0.5, dy = 1: gate -0.5 * 0.0723294881285133 = -0.0361647440642566,
//     up silu(-1) = -0.2689414213699951.
//   a = 0, b = 4, dy = 1: gate 4 * 0.5 = 2, up 0.
TEST(InterpreterGrad, SwigluGradByHand) {
  const std::vector<float> dy = {2, 1, 1}, a = {1, -1, 0}, b = {3, -0.5f, 4};
  const std::vector<float> gate = runOp(OpKind::SwigluGrad, attrs("wrt", "gate"), {dy, a, b});
  const std::vector<float> up = runOp(OpKind::SwigluGrad, attrs("wrt", "up"), {dy, a, b});
  const std::vector<double> wantGate = {5.566023071228921, -0.0361647440642566, 2.0};
  const std::vector<double> wantUp = {1.4621171572600098, -0.2689414213699951, 0.0};
  ASSERT_EQ(gate.size(), 3u);
  ASSERT_EQ(up.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(gate[i], wantGate[i], 1e-6) << "gate, a = " << a[i];
    EXPECT_NEAR(up[i], wantUp[i], 1e-6) << "up, a = " << a[i];
  }
}

TEST(InterpreterGrad, SwigluGradMatchesFiniteDifferences) {
  const size_t n = kPoints.size();
  std::vector<float> b;
  const float bs[] = {1.5f, -2.0f, 0.25f};
  for (size_t i = 0; i < n; ++i)
    b.push_back(bs[i % 3]);
  const std::vector<float> dy = dys(n), a = asFloats(kPoints);
  const std::vector<float> gate = runOp(OpKind::SwigluGrad, attrs("wrt", "gate"), {dy, a, b});
  const std::vector<float> up = runOp(OpKind::SwigluGrad, attrs("wrt", "up"), {dy, a, b});
  // d/da and d/db of silu(a) b at (a_i, b_i).
  expectMatchesDifferences(
      gate, kPoints,
      [&](size_t i, double x) {
        return dyAt(i) * centralDifference([&](double t) { return silu(t) * b[i]; }, x);
      },
      "swiglu_grad gate");
  expectMatchesDifferences(
      up, kPoints,
      [&](size_t i, double x) {
        return dyAt(i) * centralDifference([&](double t) { return silu(x) * t; }, b[i]);
      },
      "swiglu_grad up");
}

// --- fp8.linear's gradients (autodiff, run by the interpreter) ---------------------------------

struct LinearGrads {
  HostTensor dx, dw, db;
};

// y = linear(x, w[, b]) on f32 (x [m, k], w [n, k], b [n]); the gradients of sum(y * dy).
Expected<LinearGrads> linearGrads(const HostTensor &x, const HostTensor &w, const HostTensor *b,
                                  const HostTensor &dy) {
  GraphBuilder gb("lin");
  Value *xv = gb.input("x", x.type());
  Value *wv = gb.input("w", w.type());
  Value *bv = b ? gb.input("b", b->type()) : nullptr;
  gb.output(gb.linear(xv, wv, bv, "y"));
  std::unique_ptr<Graph> g = finish(gb);
  if (!g)
    return Error("the graph did not build");
  TrainingOptions o;
  o.recipe = std::nullopt;
  Expected<std::unique_ptr<InterpretedTraining>> t = InterpretedTraining::create(*g, o);
  if (!t)
    return Error(t.error());
  NamedTensors in = {{"x", x}, {"w", w}};
  if (b)
    in["b"] = *b;
  if (Expected<NamedTensors> y = (*t)->forward(in); !y)
    return Error(y.error());
  Expected<NamedTensors> grads = (*t)->backward({{"y", dy}});
  if (!grads)
    return Error(grads.error());
  LinearGrads r;
  r.dx = grads->at("x");
  r.dw = grads->at("w");
  if (b)
    r.db = grads->at("b");
  return r;
}

// x = [[1, 2, 3], [4, 5, 6]], w = [[1, 0, -1], [2, 1, 0]], b = [0.5, -1],
// dy = [[1, 2], [3, -1]] (y = x w^T + b = [[-1.5, 3], [-1.5, 12]]):
//   dx = dy w     = [[1*[1,0,-1] + 2*[2,1,0]], [3*[1,0,-1] - [2,1,0]]] = [[5, 2, -1], [1, -1, -3]]
//   dw = dy^T x   = [[1*[1,2,3] + 3*[4,5,6]], [2*[1,2,3] - [4,5,6]]]  = [[13, 17, 21], [-2, -1, 0]]
//   db = sum_rows dy = [1 + 3, 2 - 1] = [4, 1]
TEST(InterpreterGrad, LinearGradientsByHand) {
  const HostTensor x = HostTensor::fromValues({2, 3}, DType::F32, {1, 2, 3, 4, 5, 6});
  const HostTensor w = HostTensor::fromValues({2, 3}, DType::F32, {1, 0, -1, 2, 1, 0});
  const HostTensor b = HostTensor::fromValues({2}, DType::F32, {0.5f, -1});
  const HostTensor dy = HostTensor::fromValues({2, 2}, DType::F32, {1, 2, 3, -1});
  Expected<LinearGrads> g = linearGrads(x, w, &b, dy);
  ASSERT_TRUE(g) << g.error();
  EXPECT_EQ(g->dx.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g->dx.data, (std::vector<float>{5, 2, -1, 1, -1, -3}));
  EXPECT_EQ(g->dw.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g->dw.data, (std::vector<float>{13, 17, 21, -2, -1, 0}));
  EXPECT_EQ(g->db.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(g->db.data, (std::vector<float>{4, 1}));
  // Without a bias: the same dx and dw.
  Expected<LinearGrads> nb = linearGrads(x, w, nullptr, dy);
  ASSERT_TRUE(nb) << nb.error();
  EXPECT_EQ(nb->dx.data, g->dx.data);
  EXPECT_EQ(nb->dw.data, g->dw.data);
}

// Every element of dx, dw and db against the central difference of
// L = sum_ij dy_ij (sum_k x_ik w_jk + b_j), evaluated in f64 here, on random inputs of
// several magnitudes (m = 3, k = 5, n = 4). L is linear in each element, so the difference is
// exact but for rounding (2^-53 |L| / h); the f32 gradients sum k or m products in f32.
TEST(InterpreterGrad, LinearGradientsMatchFiniteDifferences) {
  const int64_t m = 3, k = 5, n = 4;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  auto random = [&](std::vector<int64_t> shape, float scale) {
    HostTensor t = HostTensor::make(std::move(shape), DType::F32);
    for (float &v : t.data)
      v = scale * u(rng);
    return t;
  };
  for (float scale : {1e-3f, 1.0f, 300.0f}) {
    SCOPED_TRACE("inputs of magnitude " + std::to_string(scale));
    HostTensor x = random({m, k}, scale), w = random({n, k}, 1.0f), b = random({n}, scale),
               dy = random({m, n}, 1.0f);
    Expected<LinearGrads> g = linearGrads(x, w, &b, dy);
    ASSERT_TRUE(g) << g.error();
    auto loss = [&](const HostTensor &xx, const HostTensor &ww, const HostTensor &bb) {
      double s = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double y = bb.data[size_t(j)];
          for (int64_t p = 0; p < k; ++p)
            y += double(xx.at(i, p)) * double(ww.at(j, p));
          s += double(dy.at(i, j)) * y;
        }
      return s;
    };
    // d L / d t[e] by central differences, t one of x, w, b (perturbed in a copy).
    auto check = [&](const char *name, HostTensor &t, const HostTensor &grad) {
      ASSERT_EQ(grad.data.size(), t.data.size()) << name;
      for (size_t e = 0; e < t.data.size(); ++e) {
        const float saved = t.data[e];
        const double h = std::max(1.0, std::fabs(double(saved))) * 1e-3;
        t.data[e] = float(double(saved) + h);
        const double hp = double(t.data[e]) - double(saved); // the step f32 could take
        const double lp = loss(x, w, b);
        t.data[e] = float(double(saved) - h);
        const double hm = double(saved) - double(t.data[e]);
        const double lm = loss(x, w, b);
        t.data[e] = saved;
        const double fd = (lp - lm) / (hp + hm);
        EXPECT_NEAR(grad.data[e], fd, 1e-5 * std::max(1.0, std::fabs(fd)))
            << "d/d" << name << "[" << e << "]";
      }
    };
    check("x", x, g->dx);
    check("w", w, g->dw);
    check("b", b, g->db);
  }
}

} // namespace
} // namespace fp8c
