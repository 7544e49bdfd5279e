// CPU interpreter: model ops (linear, matmul, pointwise, convert, transpose), kernel regions and
// (input checking is in InterpreterInputsTest.cpp). Every expected value is a literal worked out by
// hand (comments show the arithmetic), never recomputed with the interpreter's own code.
// Quantization ops are in InterpreterQuantTest.cpp.
#include "unit/interp/InterpreterTestSupport.h"
#include "interp/Interpreter.h"
#include "ir/Builder.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fp8c {
namespace {

using namespace interptest;

std::vector<HostTensor> run(const Graph &g, std::vector<HostTensor> inputs) {
  Expected<std::vector<HostTensor>> r = interpret(g, inputs);
  EXPECT_TRUE(r) << r.error();
  return r ? r.take() : std::vector<HostTensor>{};
}

// Bitwise-equal values (NaN matches any NaN; zeros must agree in sign).
void expectValues(const HostTensor &t, std::vector<int64_t> shape, DType dt,
                  std::vector<float> want) {
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.dtype, dt);
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const float g = t.data[i], w = want[i];
    const bool same =
        (std::isnan(g) && std::isnan(w)) || (g == w && std::signbit(g) == std::signbit(w));
    EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
  }
}

// One-op graph over one input of type `in`.
std::unique_ptr<Graph> unaryGraph(TensorType in, OpKind kind, AttrDict attrs = {},
                                  std::optional<DType> to = std::nullopt) {
  GraphBuilder b("f");
  Value *x = b.input("x", in);
  b.output(b.op(kind, {x}, std::move(attrs), to));
  return finish(b);
}

HostTensor runUnary(TensorType in, OpKind kind, std::vector<float> values, AttrDict attrs = {},
                    std::optional<DType> to = std::nullopt) {
  std::unique_ptr<Graph> g = unaryGraph(in, kind, std::move(attrs), to);
  std::vector<HostTensor> r = run(*g, {tensor(in.shape(), in.dtype(), std::move(values))});
  return r.empty() ? HostTensor{} : r[0];
}

TEST(InterpLinear, BiasThenOneRoundingToBf16) {
  GraphBuilder b("lin");
  Value *x = b.input("x", {{kDynamic, 2}, DType::BF16});
  Value *w = b.input("w", {{3, 2}, DType::BF16});
  Value *bias = b.input("b", {{3}, DType::BF16});
  b.output(b.linear(x, w, bias));
  auto g = finish(b);
  // x = [[1, 0.5], [2, 0]]; w rows [1, 2^-7], [1, 2^-7], [100, 1]; b = [0, 2^-12, 0.25].
  // Row 0: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> even: 1.
  //        1 + 2^-8 + 2^-12 is above the tie -> 1.0078125 (bias added before the rounding).
  //        100 + 0.5 + 0.25 = 100.75, tie between 100.5 and 101 (ulp 0.5) -> even: 101.
  // Row 1: 2, 2 + 2^-12 -> 2 (ulp 2^-6), 200 + 0.25 -> 200 (ulp 1).
  auto r = run(*g, {tensor({2, 2}, DType::BF16, {1, 0.5, 2, 0}),
                    tensor({3, 2}, DType::BF16, {1, 0x1p-7f, 1, 0x1p-7f, 100, 1}),
                    tensor({3}, DType::BF16, {0, 0x1p-12f, 0.25})});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {2, 3}, DType::BF16, {1, 1.0078125f, 101, 2, 2, 200});
}

TEST(InterpLinear, RankThreeInputFlattensLeadingDims) {
  GraphBuilder b("lin3");
  Value *x = b.input("x", {{2, 1, 2}, DType::F32});
  Value *w = b.input("w", {{2, 2}, DType::F32});
  b.output(b.linear(x, w));
  auto g = finish(b);
  // [1, 2] . [3, 4] = 11, [1, 2] . [-1, 0.5] = 0; [5, 6] . [3, 4] = 39, [5, 6] . [-1, 0.5] = -2.
  auto r = run(*g, {tensor({2, 1, 2}, DType::F32, {1, 2, 5, 6}),
                    tensor({2, 2}, DType::F32, {3, 4, -1, 0.5})});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {2, 1, 2}, DType::F32, {11, 0, 39, -2});
}

// The normative order: partial sum k mod 8, then ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)).
// Row 0 (K = 10): s0 = 2^24, s1 = 1, s2 = 1, s3 = -2^24 -> (2^24 + 1) rounds to 2^24 (tie, even),
//   (1 - 2^24) = -16777215 exactly, sum 1. A left-to-right sum would give 0.
// Row 1: elements 0 and 8 share s0 = 2^24 - 2^24 = 0, s1..s7 = 1 -> 7 (left to right: 0).
TEST(InterpLinear, EightInterleavedPartialSumsAddedPairwise) {
  GraphBuilder b("order");
  Value *x = b.input("x", {{1, 10}, DType::F32});
  Value *w = b.input("w", {{2, 10}, DType::F32});
  b.output(b.linear(x, w));
  auto g = finish(b);
  const float big = 0x1p24f;
  auto r = run(*g, {tensor({1, 10}, DType::F32, std::vector<float>(10, 1.0f)),
                    tensor({2, 10}, DType::F32, {big, 1, 1, -big, 0, 0, 0, 0, 0,    0,
                                                 big, 1, 1, 1,    1, 1, 1, 1, -big, 0})});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {1, 2}, DType::F32, {1, 7});
}

TEST(InterpMatmul, SmallAndSummationOrder) {
  GraphBuilder b("mm");
  Value *a = b.input("a", {{2, 10}, DType::F32});
  Value *bb = b.input("b", {{10, 2}, DType::F32});
  b.output(b.matmul(a, bb));
  auto g = finish(b);
  const float big = 0x1p24f;
  // a row 0 = ones: the same sums as the linear test above (b's columns are those w rows).
  // a row 1 = [1, 2, 3, 0...]: both columns give s0 = 2^24, s1 = 2, s2 = 3, the rest 0:
  // (2^24 + 2) + 3 = 16777221, not representable: tie between 16777220 and 16777222 -> even
  // significand: 16777220.
  std::vector<float> av(20, 0.0f);
  for (int k = 0; k < 10; ++k)
    av[k] = 1;
  av[10] = 1, av[11] = 2, av[12] = 3;
  std::vector<float> bv = {big, big, 1, 1, 1, 1, -big, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, -big, 0, 0};
  auto r = run(*g, {tensor({2, 10}, DType::F32, av), tensor({10, 2}, DType::F32, bv)});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {2, 2}, DType::F32, {1, 7, 16777220, 16777220});
}

TEST(InterpMatmul, Bf16) {
  GraphBuilder b("mm");
  Value *a = b.input("a", {{2, 3}, DType::BF16});
  Value *bb = b.input("b", {{3, 2}, DType::BF16});
  b.output(b.matmul(a, bb));
  auto g = finish(b);
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1.5]] = [[4, 6.5], [10, 14]]
  auto r = run(*g, {tensor({2, 3}, DType::BF16, {1, 2, 3, 4, 5, 6}),
                    tensor({3, 2}, DType::BF16, {1, 0, 0, 1, 1, 1.5})});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {2, 2}, DType::BF16, {4, 6.5, 10, 14});
}

TEST(InterpPointwise, AddMulWithBroadcastAndRounding) {
  GraphBuilder b("pw");
  Value *x = b.input("x", {{4}, DType::BF16});
  Value *y = b.input("y", {{4}, DType::BF16});
  Value *s = b.input("s", {{}, DType::BF16});
  b.output(b.add(x, y));
  b.output(b.mul(x, y));
  b.output(b.add(s, x));
  auto g = finish(b);
  // add: 1 + 2^-8 -> 1 (tie, even); 1 + 3*2^-8 = 1.01171875 -> tie between 1.0078125 and
  // 1.015625 -> 1.015625 (even); 1.5 + 0.25 = 1.75; -2 + 3 = 1.
  // mul: 2^-8, 3*2^-8, 0.375, -6.  s + x with s = 2: 3, 3, 3.5, 0.
  auto r = run(*g, {tensor({4}, DType::BF16, {1, 1, 1.5, -2}),
                    tensor({4}, DType::BF16, {0x1p-8f, 3 * 0x1p-8f, 0.25, 3}),
                    tensor({}, DType::BF16, {2})});
  ASSERT_EQ(r.size(), 3u);
  expectValues(r[0], {4}, DType::BF16, {1, 1.015625f, 1.75f, 1});
  expectValues(r[1], {4}, DType::BF16, {0x1p-8f, 3 * 0x1p-8f, 0.375f, -6});
  expectValues(r[2], {4}, DType::BF16, {3, 3, 3.5, 0});
}

TEST(InterpPointwise, Relu) {
  HostTensor r = runUnary({{5}, DType::F32}, OpKind::Relu, {-1, 0, 2.5, kNaN, -kInf});
  expectValues(r, {5}, DType::F32, {0, 0, 2.5, kNaN, 0});
}

TEST(InterpPointwise, GeluBothForms) {
  AttrDict none, tanh;
  none.set("approximate", Attribute("none"));
  tanh.set("approximate", Attribute("tanh"));
  // gelu(1) = 0.8413447460685429 (erf), 0.8411919906082768 (tanh); gelu(-1) = -0.1586552539,
  // -0.1588080094; gelu(0) = 0.
  HostTensor e = runUnary({{3}, DType::F32}, OpKind::Gelu, {1, -1, 0}, none);
  ASSERT_EQ(e.data.size(), 3u);
  EXPECT_NEAR(e.data[0], 0.8413447460685429, 2e-7);
  EXPECT_NEAR(e.data[1], -0.15865525393145707, 2e-7);
  EXPECT_EQ(e.data[2], 0.0f);
  HostTensor t = runUnary({{3}, DType::F32}, OpKind::Gelu, {1, -1, 0}, tanh);
  ASSERT_EQ(t.data.size(), 3u);
  EXPECT_NEAR(t.data[0], 0.8411919906082768, 2e-7);
  EXPECT_NEAR(t.data[1], -0.15880800939172324, 2e-7);
  EXPECT_EQ(t.data[2], 0.0f);
  // In bf16 (ulp 2^-8 in [0.5, 1), 2^-10 in [0.125, 0.25)): 0.84134 -> 215 * 2^-8 = 0.83984375
  // for both forms; -0.158655 -> -162 * 2^-10 = -0.158203125; -0.158808 -> -163 * 2^-10.
  expectValues(runUnary({{2}, DType::BF16}, OpKind::Gelu, {1, -1}, none), {2}, DType::BF16,
               {0.83984375f, -0.158203125f});
  expectValues(runUnary({{2}, DType::BF16}, OpKind::Gelu, {1, -1}, tanh), {2}, DType::BF16,
               {0.83984375f, -0.1591796875f});
}

TEST(InterpPointwise, SiluAndSwiglu) {
  HostTensor s = runUnary({{3}, DType::F32}, OpKind::Silu, {0, 1, -1});
  ASSERT_EQ(s.data.size(), 3u);
  EXPECT_EQ(s.data[0], 0.0f);
  EXPECT_NEAR(s.data[1], 0.7310585786300049, 1e-7);
  EXPECT_NEAR(s.data[2], -0.2689414213699951, 1e-7);
  // bf16: 0.731059 -> 187 * 2^-8 = 0.73046875; -0.268941 -> -69 * 2^-8 = -0.26953125.
  expectValues(runUnary({{2}, DType::BF16}, OpKind::Silu, {1, -1}), {2}, DType::BF16,
               {0.73046875f, -0.26953125f});

  GraphBuilder b("sw");
  Value *a = b.input("a", {{3}, DType::BF16});
  Value *u = b.input("u", {{3}, DType::BF16});
  b.output(b.swiglu(a, u));
  auto g = finish(b);
  // silu(1) * 2 = 1.46211716 -> bf16 (ulp 2^-7): 187.15 ulps -> 1.4609375. silu(0) * 5 = 0.
  // silu(1) * 9 = 6.57952738 -> ulp 2^-5: 210.54 -> 6.59375; rounding silu(1) to bf16 first
  // (0.73046875 * 9 = 6.57421875 -> 210.375) would give 6.5625: one rounding per op.
  auto r = run(*g, {tensor({3}, DType::BF16, {1, 0, 1}), tensor({3}, DType::BF16, {2, 5, 9})});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {3}, DType::BF16, {1.4609375f, 0, 6.59375f});
}

TEST(InterpPointwise, SiluLimits) {
  // silu(NaN) = NaN; silu(100) = 100 / (1 + e^-100) = 100 in f32; silu(-80) = -80 / (1 + e^80)
  // = -80 e^-80 = -1.44390e-33; silu(-100): e^100 overflows f32 to inf, -100 / inf = -0.
  HostTensor s = runUnary({{4}, DType::F32}, OpKind::Silu, {kNaN, 100, -80, -100});
  ASSERT_EQ(s.data.size(), 4u);
  EXPECT_TRUE(std::isnan(s.data[0]));
  EXPECT_EQ(s.data[1], 100.0f);
  EXPECT_NEAR(s.data[2] / -1.4439e-33f, 1.0f, 1e-4);
  EXPECT_EQ(s.data[3], 0.0f);
  EXPECT_TRUE(std::signbit(s.data[3]));
}

TEST(InterpConvert, ToBf16RoundsToNearestEven) {
  // 1 + 2^-8: tie -> 1 (even). 1 + 3*2^-8: tie -> 1.015625 (even). 1 + 2^-8 + 2^-20: above the
  // tie -> 1.0078125. -(1 + 2^-8) -> -1. FLT_MAX -> inf (0x7F7FFFFF rounds up past 0x7F7F).
  // NaN -> NaN.
  HostTensor r = runUnary({{6}, DType::F32}, OpKind::Convert,
                          {1 + 0x1p-8f, 1 + 3 * 0x1p-8f, 1 + 0x1p-8f + 0x1p-20f, -(1 + 0x1p-8f),
                           std::numeric_limits<float>::max(), kNaN},
                          {}, DType::BF16);
  expectValues(r, {6}, DType::BF16, {1, 1.015625f, 1.0078125f, -1, kInf, kNaN});
}

TEST(InterpConvert, ToF16AndBack) {
  // f16: 65519 -> 65504 (below the tie 65520); 65520 -> inf (tie between 65504 and 2^16, even);
  // 2^-25 -> 0 (tie with the min subnormal 2^-24, even); 3 * 2^-26 -> 2^-24.
  HostTensor r = runUnary({{4}, DType::F32}, OpKind::Convert, {65519, 65520, 0x1p-25f, 0x3p-26f},
                          {}, DType::F16);
  expectValues(r, {4}, DType::F16, {65504, kInf, 0, 0x1p-24f});
  // bf16 -> f32 is exact.
  HostTensor w = runUnary({{2}, DType::BF16}, OpKind::Convert, {1.0078125f, -3.5f}, {}, DType::F32);
  expectValues(w, {2}, DType::F32, {1.0078125f, -3.5f});
}

TEST(InterpTranspose, AnyDType) {
  HostTensor r = runUnary({{2, 3}, DType::F8E4M3FN}, OpKind::Transpose, {1, 2, 3, 4, 5, 448});
  expectValues(r, {3, 2}, DType::F8E4M3FN, {1, 4, 2, 5, 3, 448});
  HostTensor f = runUnary({{1, 2}, DType::F32}, OpKind::Transpose, {0.1f, kNaN});
  expectValues(f, {2, 1}, DType::F32, {0.1f, kNaN});
}

// A kernel op whose region holds add + relu gives what the same two ops give outside.
TEST(InterpKernel, RegionMatchesUnfusedOps) {
  const TensorType t({kDynamic, 3}, DType::BF16);
  Graph g("k");
  Value *x = g.addInput(t, "x");
  Value *y = g.addInput(t, "y");
  OpBuilder ob(g.body());
  AttrDict attrs;
  attrs.set("kind", Attribute("pointwise"));
  Value *operands[] = {x, y};
  TensorType rt[] = {t};
  Op *k = ob.create(OpKind::Kernel, operands, rt, attrs, Location::unknown());
  Block &body = k->createBody();
  Value *a0 = body.addArgument(t, "a");
  Value *a1 = body.addArgument(t, "b");
  OpBuilder ib(body);
  Value *sumArgs[] = {a0, a1};
  Expected<Value *> sum = ib.createInferred(OpKind::Add, sumArgs, {}, Location::unknown());
  ASSERT_TRUE(sum) << sum.error();
  Value *reluArgs[] = {*sum};
  Expected<Value *> rl = ib.createInferred(OpKind::Relu, reluArgs, {}, Location::unknown());
  ASSERT_TRUE(rl) << rl.error();
  Value *yields[] = {*rl};
  ib.create(OpKind::Yield, yields, {}, {}, Location::unknown());
  // The same ops outside the kernel.
  Expected<Value *> sum2 = ob.createInferred(OpKind::Add, operands, {}, Location::unknown());
  ASSERT_TRUE(sum2) << sum2.error();
  Value *relu2Args[] = {*sum2};
  Expected<Value *> rl2 = ob.createInferred(OpKind::Relu, relu2Args, {}, Location::unknown());
  ASSERT_TRUE(rl2) << rl2.error();
  Value *outs[] = {k->result(), *rl2};
  ob.create(OpKind::Return, outs, {}, {}, Location::unknown());
  g.addResultType(t);
  g.addResultType(t);
  DiagnosticEngine diag;
  ASSERT_TRUE(verifyGraph(g, diag)) << diag.str();
  // x + y = [1 + 2^-8 -> 1, -3, 0.5 | 2, -0.25, kNaN] -> relu [1, 0, 0.5, 2, 0, NaN].
  auto r = run(g, {tensor({2, 3}, DType::BF16, {1, -1, 0.25, 1, 0.25, kNaN}),
                   tensor({2, 3}, DType::BF16, {0x1p-8f, -2, 0.25, 1, -0.5, 1})});
  ASSERT_EQ(r.size(), 2u);
  expectValues(r[0], {2, 3}, DType::BF16, {1, 0, 0.5, 2, 0, kNaN});
  expectValues(r[1], {2, 3}, DType::BF16, {1, 0, 0.5, 2, 0, kNaN});
}

} // namespace
} // namespace fp8c
