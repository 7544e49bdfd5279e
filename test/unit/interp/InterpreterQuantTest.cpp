// CPU interpreter: quantization ops (amax, scale, cast, dequant, scaled_matmul) and the
// delayed-scaling state ops (history_scale, history_push). Expected values are literals worked
// out by hand (FP8 grids: e4m3fn has ulp 0.125 in [1, 2), max 448, min subnormal 2^-9; e5m2 has
// ulp 0.25 in [1, 2), max 57344, min subnormal 2^-16).
#include "ir/Builder.h"
#include "ir/Verifier.h"
#include "unit/interp/InterpreterTestSupport.h"
#include "interp/Interpreter.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

namespace fp8c {
namespace {

using namespace interptest;
constexpr DType E4M3 = DType::F8E4M3FN;
constexpr DType E5M2 = DType::F8E5M2;

std::vector<HostTensor> run(const Graph *g, std::vector<HostTensor> inputs) {
  if (!g)
    return {};
  Expected<std::vector<HostTensor>> r = interpret(*g, inputs);
  EXPECT_TRUE(r) << r.error();
  return r ? r.take() : std::vector<HostTensor>{};
}

void expectValues(const std::vector<HostTensor> &r, size_t i, std::vector<int64_t> shape, DType dt,
                  std::vector<float> want) {
  ASSERT_LT(i, r.size());
  const HostTensor &t = r[i];
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.dtype, dt);
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t j = 0; j < want.size(); ++j) {
    const float g = t.data[j], w = want[j];
    const bool same =
        (std::isnan(g) && std::isnan(w)) || (g == w && std::signbit(g) == std::signbit(w));
    EXPECT_TRUE(same) << "element " << j << ": got " << g << ", want " << w;
  }
}

// q = cast(x, s) with x f32 of `xShape`, s f32 of `sShape`.
std::vector<HostTensor> runCast(std::vector<int64_t> xShape, std::vector<float> x,
                                std::vector<int64_t> sShape, std::vector<float> s, DType fp8,
                                Granularity gr = Granularity::Tensor) {
  GraphBuilder b("cast");
  Value *xv = b.input("x", {xShape, DType::F32});
  Value *sv = b.input("s", {sShape, DType::F32});
  b.output(b.cast(xv, sv, fp8, gr));
  auto g = finish(b);
  return run(g.get(), {tensor(xShape, DType::F32, x), tensor(sShape, DType::F32, s)});
}

TEST(InterpCast, E4M3RoundingSaturationUnderflowNaN) {
  // 1.09375 = 1 + 0.75 ulp -> 1.125 (up). 1.0625 = 1 + 0.5 ulp -> 1 (tie, even 000).
  // 1.1875 = 1.125 + 0.5 ulp -> 1.25 (tie, even 010). 600, 464 (above the largest finite) and
  // inf -> 448; -1e30 -> -448. 0.75 * 2^-9 -> 2^-9 (min subnormal). 2^-10 (half of it) -> 0
  // (tie, even). -2^-11 -> -0. 1.5 * 2^-9 -> tie between 2^-9 (001) and 2^-8 (010) -> 2^-8.
  // NaN -> NaN.
  auto r = runCast({13},
                   {1.09375f, 1.0625f, 1.1875f, 600, 464, kInf, -1e30f, 0.75f * 0x1p-9f, 0x1p-10f,
                    -0x1p-11f, 1.5f * 0x1p-9f, kNaN, -kInf},
                   {}, {1}, E4M3);
  expectValues(r, 0, {13}, E4M3,
               {1.125f, 1, 1.25f, 448, 448, 448, -448, 0x1p-9f, 0, -0.0f, 0x1p-8f, kNaN, -448});
}

TEST(InterpCast, ScaleMultipliesBeforeTheRounding) {
  // s = 4: 0.2734375 * 4 = 1.09375 -> 1.125; 0.265625 * 4 = 1.0625 -> 1; 150 * 4 = 600 -> 448;
  // 0.25 * 2^-11 * 4 = 2^-11 -> 0.
  auto r = runCast({4}, {0.2734375f, 0.265625f, 150, 0x1p-13f}, {}, {4}, E4M3);
  expectValues(r, 0, {4}, E4M3, {1.125f, 1, 448, 0});
}

TEST(InterpCast, E5M2) {
  // 1.125 -> tie between 1 (00) and 1.25 (01) -> 1; 1.375 -> tie -> 1.5 (10). 60000, 61440
  // (half-way to 65536), 1e6 and inf -> 57344. 0.6 * 2^-16 -> 2^-16; 2^-17 -> 0 (tie, even).
  auto r =
      runCast({9}, {1.125f, 1.375f, 60000, 61440, 1e6f, kInf, 0.625f * 0x1p-16f, 0x1p-17f, kNaN},
              {}, {1}, E5M2);
  expectValues(r, 0, {9}, E5M2, {1, 1.5f, 57344, 57344, 57344, 57344, 0x1p-16f, 0, kNaN});
}

TEST(InterpCast, Granularities) {
  // row: s = [1, 4]: [1.0625, 1.09375] -> [1, 1.125]; [0.25, 100] * 4 = [1, 400]: 400 is the tie
  // between 384 (1.100b * 2^8) and 416 (1.101b) -> 384.
  expectValues(
      runCast({2, 2}, {1.0625f, 1.09375f, 0.25f, 100}, {2}, {1, 4}, E4M3, Granularity::Row), 0,
      {2, 2}, E4M3, {1, 1.125f, 1, 384});
  // col: s = [2, 0.5]: [[1, 1], [3, 5]] -> [[2, 0.5], [6, 2.5]].
  expectValues(runCast({2, 2}, {1, 1, 3, 5}, {2}, {2, 0.5f}, E4M3, Granularity::Col), 0, {2, 2},
               E4M3, {2, 0.5f, 6, 2.5f});
  // block_1x128 over 130 columns: columns 0..127 use s[0, 0] = 2, columns 128..129 s[0, 1].
  std::vector<float> want(130, 2.0f);
  want[128] = want[129] = 0.25f;
  expectValues(runCast({1, 130}, std::vector<float>(130, 1.0f), {1, 2}, {2, 0.25f}, E4M3,
                       Granularity::Block1x128),
               0, {1, 130}, E4M3, want);
  // block_128x128 over 130 rows: rows 0..127 use s[0, 0] = 0.5, rows 128..129 s[1, 0] = 8.
  std::vector<float> want2(260, 0.5f);
  for (int i = 256; i < 260; ++i)
    want2[i] = 8;
  expectValues(runCast({130, 2}, std::vector<float>(260, 1.0f), {2, 1}, {0.5f, 8}, E4M3,
                       Granularity::Block128x128),
               0, {130, 2}, E4M3, want2);
}

TEST(InterpDequant, DividesAndRoundsOnce) {
  GraphBuilder b("dq");
  Value *q = b.input("q", {{2, 2}, E4M3});
  Value *s = b.input("s", {{2}, DType::F32});
  Value *t = b.input("t", {{}, DType::F32});
  b.output(b.dequant(q, s, DType::BF16, Granularity::Row));
  b.output(b.dequant(q, t, DType::BF16));
  auto g = finish(b);
  // Rows: s = [2, 0.7f]: [1.125, -448] / 2 = [0.5625, -224]; [2^-9, 1.125] / 0.699999988 =
  // [0.0027901787 -> bf16 (ulp 2^-16 in [2^-9, 2^-8)) 182.86 ulps -> 183 * 2^-16 = 0.0027923584,
  //  1.6071429 -> (ulp 2^-7) 205.71 -> 206 * 2^-7 = 1.609375].
  // Tensor: t = 0.5 -> [2.25, -896, 2^-8, 2.25].
  auto r = run(g.get(), {tensor({2, 2}, E4M3, {1.125f, -448, 0x1p-9f, 1.125f}),
                         tensor({2}, DType::F32, {2, 0.7f}), tensor({}, DType::F32, {0.5f})});
  expectValues(r, 0, {2, 2}, DType::BF16, {0.5625f, -224, 183 * 0x1p-16f, 1.609375f});
  expectValues(r, 1, {2, 2}, DType::BF16, {2.25f, -896, 0x1p-8f, 2.25f});
}

TEST(InterpAmax, EveryGranularity) {
  GraphBuilder b("amax");
  Value *x = b.input("x", {{2, 3}, DType::BF16});
  b.output(b.amax(x, Granularity::Tensor));
  b.output(b.amax(x, Granularity::Row));
  b.output(b.amax(x, Granularity::Col));
  b.output(b.amax(x, Granularity::Block1x128));
  b.output(b.amax(x, Granularity::Block128x128));
  auto g = finish(b);
  auto r = run(g.get(), {tensor({2, 3}, DType::BF16, {1, -5, 2, 3, 0, -4})});
  expectValues(r, 0, {}, DType::F32, {5});
  expectValues(r, 1, {2}, DType::F32, {5, 4});
  expectValues(r, 2, {3}, DType::F32, {3, 5, 4});
  expectValues(r, 3, {2, 1}, DType::F32, {5, 4});
  expectValues(r, 4, {1, 1}, DType::F32, {5});
}

TEST(InterpAmax, BlocksWhenDimsAreNotMultiplesOf128) {
  GraphBuilder b("amax");
  Value *x = b.input("x", {{130, 130}, DType::F32});
  b.output(b.amax(x, Granularity::Block1x128));
  b.output(b.amax(x, Granularity::Block128x128));
  auto g = finish(b);
  HostTensor x0 = HostTensor::make({130, 130}, DType::F32);
  x0.at(0, 5) = 3;      // row 0, K block 0
  x0.at(0, 129) = -7;   // row 0, K block 1 (the 2-wide tail)
  x0.at(127, 128) = 9;  // row 127, K block 1; row block 0
  x0.at(129, 0) = -0.5; // row block 1, column block 0
  x0.at(128, 128) = 6;  // row block 1, column block 1
  auto r = run(g.get(), {x0});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].shape, (std::vector<int64_t>{130, 2}));
  EXPECT_EQ(r[0].at(0, 0), 3.0f);
  EXPECT_EQ(r[0].at(0, 1), 7.0f);
  EXPECT_EQ(r[0].at(127, 1), 9.0f);
  EXPECT_EQ(r[0].at(129, 0), 0.5f);
  EXPECT_EQ(r[0].at(128, 1), 6.0f);
  EXPECT_EQ(r[0].at(1, 0), 0.0f);
  expectValues(r, 1, {2, 2}, DType::F32, {3, 9, 0.5f, 6});
}

TEST(InterpAmax, NaNMakesItsGroupNaN) {
  GraphBuilder b("amax");
  Value *x = b.input("x", {{2, 3}, DType::F32});
  b.output(b.amax(x, Granularity::Tensor));
  b.output(b.amax(x, Granularity::Row));
  b.output(b.amax(x, Granularity::Col));
  auto g = finish(b);
  // NaN at (0, 1), after a larger value in its row: row 0 and column 1 are NaN, the rest not.
  auto r = run(g.get(), {tensor({2, 3}, DType::F32, {100, kNaN, 2, 3, 1, -kInf})});
  expectValues(r, 0, {}, DType::F32, {kNaN});
  expectValues(r, 1, {2}, DType::F32, {kNaN, kInf});
  expectValues(r, 2, {3}, DType::F32, {100, kNaN, kInf});
}

std::vector<HostTensor> runScale(std::vector<float> amax, DType fp8, int64_t margin, bool pow2) {
  GraphBuilder b("scale");
  Value *a = b.input("a", {{static_cast<int64_t>(amax.size())}, DType::F32});
  b.output(b.scale(a, fp8, margin, pow2));
  auto g = finish(b);
  return run(g.get(), {tensor({static_cast<int64_t>(amax.size())}, DType::F32, amax)});
}

TEST(InterpScale, FormulaAndSpecialCases) {
  // amax: 0 -> 1; 448 -> 1; 2 -> 224; 3 -> f32(448 / 3) = 149.333328; inf and NaN -> NaN;
  // 1e-38 and the min subnormal: 448 / amax overflows -> FLT_MAX.
  const std::vector<float> amax = {0, 448, 2, 3, kInf, kNaN, 1e-38f, 0x1p-149f};
  expectValues(runScale(amax, E4M3, 0, false), 0, {8}, DType::F32,
               {1, 1, 224, 149.33332824707031f, kNaN, kNaN, FLT_MAX, FLT_MAX});
  // margin 1 halves exactly (amax 0 still gives 1; inf / 2 is still inf -> FLT_MAX).
  expectValues(runScale(amax, E4M3, 1, false), 0, {8}, DType::F32,
               {1, 0.5f, 112, 74.666664123535156f, kNaN, kNaN, FLT_MAX, FLT_MAX});
  // pow2 rounds down: 224 -> 128, 149.3 -> 128, FLT_MAX -> 2^127.
  expectValues(runScale(amax, E4M3, 0, true), 0, {8}, DType::F32,
               {1, 1, 128, 128, kNaN, kNaN, 0x1p127f, 0x1p127f});
  expectValues(runScale(amax, E4M3, 1, true), 0, {8}, DType::F32,
               {1, 0.5f, 64, 64, kNaN, kNaN, 0x1p127f, 0x1p127f});
  // e5m2: 57344 / amax. 57344 / 0.1f = 573439.99 -> f32 573440.
  expectValues(runScale({57344, 1, 0.1f}, E5M2, 0, false), 0, {3}, DType::F32, {1, 57344, 573440});
}

// a8 [[1, 2, 0.5], [-1, 4, 3]], b8 [[1, 1, 2], [0.5, -2, 1]]: dots [[4, -3], [9, -5.5]].
HostTensor a8() { return tensor({2, 3}, E4M3, {1, 2, 0.5f, -1, 4, 3}); }
HostTensor b8() { return tensor({2, 3}, E4M3, {1, 1, 2, 0.5f, -2, 1}); }

std::vector<HostTensor> runScaledMatmul(HostTensor a, HostTensor bm, HostTensor sa, HostTensor sb,
                                        const HostTensor *bias, DType out) {
  GraphBuilder b("smm");
  Value *av = b.input("a", a.type());
  Value *bv = b.input("b", bm.type());
  Value *sav = b.input("sa", sa.type());
  Value *sbv = b.input("sb", sb.type());
  Value *biasv = bias ? b.input("bias", bias->type()) : nullptr;
  b.output(b.scaledMatmul(av, bv, sav, sbv, biasv, out));
  auto g = finish(b);
  std::vector<HostTensor> in = {a, bm, sa, sb};
  if (bias)
    in.push_back(*bias);
  return run(g.get(), in);
}

TEST(InterpScaledMatmul, Tensorwise) {
  // / sa / sb = / 2 / 4 -> [[0.5, -0.375], [1.125, -0.6875]]; + bias [1, 0.25] ->
  // [[1.5, -0.125], [2.125, -0.4375]]. In e4m3, 2.125 is a tie between 2 and 2.25 -> 2.
  HostTensor bias = tensor({2}, DType::BF16, {1, 0.25f});
  HostTensor sa = tensor({}, DType::F32, {2}), sb = tensor({}, DType::F32, {4});
  expectValues(runScaledMatmul(a8(), b8(), sa, sb, &bias, DType::BF16), 0, {2, 2}, DType::BF16,
               {1.5f, -0.125f, 2.125f, -0.4375f});
  expectValues(runScaledMatmul(a8(), b8(), sa, sb, &bias, E4M3), 0, {2, 2}, E4M3,
               {1.5f, -0.125f, 2, -0.4375f});
}

TEST(InterpScaledMatmul, TensorwiseDividesByEachScaleInTurn) {
  // dot [1, 4] . [1, 1] = 5; sa = 3, sb = f32(1/3) = 0.333333343: (5 / 3) / sb = 4.99999952, one
  // ulp below 5, where dividing by the product (sa * sb rounds to 1) would give 5. The order
  // keeps two small operands' scales from overflowing as a product (IR.h).
  expectValues(runScaledMatmul(tensor({1, 2}, E4M3, {1, 4}), tensor({1, 2}, E4M3, {1, 1}),
                               tensor({}, DType::F32, {3}), tensor({}, DType::F32, {1.0f / 3.0f}),
                               nullptr, DType::F32),
               0, {1, 1}, DType::F32, {std::nextafter(5.0f, 0.0f)});
}

TEST(InterpScaledMatmul, Rowwise) {
  // / sa[m] / sb[n] with sa = [2, 0.5], sb = [1, 4]: [[4/2, -3/8], [9/0.5, -5.5/2]] =
  // [[2, -0.375], [18, -2.75]]; + bias f32 [0.5, 0] -> [[2.5, -0.375], [18.5, -2.75]].
  HostTensor bias = tensor({2}, DType::F32, {0.5f, 0});
  expectValues(runScaledMatmul(a8(), b8(), tensor({2}, DType::F32, {2, 0.5f}),
                               tensor({2}, DType::F32, {1, 4}), &bias, DType::F32),
               0, {2, 2}, DType::F32, {2.5f, -0.375f, 18.5f, -2.75f});
}

TEST(InterpScaledMatmul, BlockwiseKTail) {
  // K = 130: K blocks [0, 128) and [128, 130). Nonzeros: a[0,0] = 1, a[0,129] = 2, a[1,1] = 3,
  // a[1,128] = 1; b[0,0] = 1, b[0,1] = 1, b[0,128] = 2, b[0,129] = 1, b[1,0] = 2, b[1,129] = 4.
  // sa = [[1, 2], [4, 0.5]], sb = [[2, 0.25]] (N = 2: one N block), bias bf16 [1, -1].
  // (0,0): 1 / (1*2) + 2 / (2*0.25) = 0.5 + 4 = 4.5, + 1 = 5.5
  // (0,1): 2 / 2 + 8 / 0.5 = 17, - 1 = 16
  // (1,0): 3 / (4*2) + 2 / (0.5*0.25) = 0.375 + 16 = 16.375, + 1 = 17.375
  // (1,1): 0 + 0 - 1 = -1
  HostTensor a = HostTensor::make({2, 130}, E4M3), bm = HostTensor::make({2, 130}, E4M3);
  a.at(0, 0) = 1, a.at(0, 129) = 2, a.at(1, 1) = 3, a.at(1, 128) = 1;
  bm.at(0, 0) = 1, bm.at(0, 1) = 1, bm.at(0, 128) = 2, bm.at(0, 129) = 1;
  bm.at(1, 0) = 2, bm.at(1, 129) = 4;
  HostTensor bias = tensor({2}, DType::BF16, {1, -1});
  expectValues(runScaledMatmul(a, bm, tensor({2, 2}, DType::F32, {1, 2, 4, 0.5f}),
                               tensor({1, 2}, DType::F32, {2, 0.25f}), &bias, DType::BF16),
               0, {2, 2}, DType::BF16, {5.5f, 16, 17.375f, -1});
}

TEST(InterpScaledMatmul, BlockwiseNBlocks) {
  // N = 130: rows n < 128 of b use sb[0, kb], rows 128..129 use sb[1, kb].
  // a = [1, 0, 0, 0]; b[0, 0] = b[129, 0] = 1; sa = [[1]], sb = [[2], [4]]:
  // y[0, 0] = 1 / 2 = 0.5, y[0, 129] = 1 / 4 = 0.25, the rest 0.
  HostTensor bm = HostTensor::make({130, 4}, E4M3);
  bm.at(0, 0) = 1, bm.at(129, 0) = 1;
  auto r = runScaledMatmul(tensor({1, 4}, E4M3, {1, 0, 0, 0}), bm, tensor({1, 1}, DType::F32, {1}),
                           tensor({2, 1}, DType::F32, {2, 4}), nullptr, DType::F32);
  std::vector<float> want(130, 0.0f);
  want[0] = 0.5f, want[129] = 0.25f;
  expectValues(r, 0, {1, 130}, DType::F32, want);
}

TEST(InterpHistory, ScaleFromAPartlyFilledHistory) {
  GraphBuilder b("hs");
  Value *h = b.input("h", {{16}, DType::F32});
  b.output(b.historyScale(h, "max"));
  b.output(b.historyScale(h, "most_recent"));
  b.output(b.historyScale(h, "max", E4M3, 1));
  AttrDict pow2;
  pow2.set("algo", Attribute("max"));
  pow2.set("pow2", Attribute(true));
  b.output(b.op(OpKind::HistoryScale, {h}, pow2));
  b.output(b.historyScale(h, "max", E5M2));
  auto g = finish(b);
  // h = [3, 5, 0, ...]: max 5 -> 448 / 5 = 89.5999985; most recent 3 -> 149.333328;
  // margin 1 -> 44.7999992; pow2 -> 64; e5m2: 57344 / 5 = 11468.7998.
  std::vector<float> hv(16, 0.0f);
  hv[0] = 3, hv[1] = 5;
  auto r = run(g.get(), {tensor({16}, DType::F32, hv)});
  expectValues(r, 0, {}, DType::F32, {89.5999984741211f});
  expectValues(r, 1, {}, DType::F32, {149.33332824707031f});
  expectValues(r, 2, {}, DType::F32, {44.79999923706055f});
  expectValues(r, 3, {}, DType::F32, {64});
  expectValues(r, 4, {}, DType::F32, {11468.7998046875f});
  // A fresh (all-zero) history gives scale 1 with either algo.
  auto z = run(g.get(), {tensor({16}, DType::F32, std::vector<float>(16, 0.0f))});
  expectValues(z, 0, {}, DType::F32, {1});
  expectValues(z, 1, {}, DType::F32, {1});
}

TEST(InterpHistory, DelayedScalingStep) {
  GraphBuilder b("step");
  Value *x = b.input("x", {{2}, DType::F32});
  Value *h = b.stateInput("x_amax", {{4}, DType::F32});
  Value *s = b.historyScale(h, "max");
  b.output(b.cast(x, s, E4M3));
  b.stateOutput("x_amax", b.historyPush(h, b.amax(x)));
  auto g = finish(b);
  // s = 448 / 20 = 22.3999996. x * s = [22.4 -> 22 (ulp 2 in [16, 32)), -224 (exact)].
  // New history: [amax(x) = 10, 20, 5, 0] (the oldest entry, 1, drops out).
  auto r =
      run(g.get(), {tensor({2}, DType::F32, {1, -10}), tensor({4}, DType::F32, {20, 5, 0, 1})});
  expectValues(r, 0, {2}, E4M3, {22, -224});
  expectValues(r, 1, {4}, DType::F32, {10, 20, 5, 0});
}

} // namespace
} // namespace fp8c
