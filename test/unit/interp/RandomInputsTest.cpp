// Seeded random inputs (interp/RandomInputs.h) and tensor statistics (interp/TensorStats.h).
#include "interp/RandomInputs.h"
#include "ir/Builder.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fp8c {
namespace {

std::unique_ptr<Graph> mlpGraph() {
  GraphBuilder b("mlp");
  Value *x = b.input("x", {{kDynamic, 256}, DType::BF16});
  Value *w = b.input("w", {{512, 256}, DType::BF16});
  Value *bias = b.input("b", {{512}, DType::BF16});
  Value *h = b.stateInput("h", {{16}, DType::F32});
  Value *y = b.linear(x, w, bias);
  b.output(y);
  b.stateOutput("h", b.historyPush(h, b.amax(y)));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  return g ? g.take() : nullptr;
}

TEST(RandomInputs, ShapesDistributionsAndDeterminism) {
  auto g = mlpGraph();
  ASSERT_TRUE(g);
  std::vector<HostTensor> in = randomInputs(*g, 42, 300);
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].shape, (std::vector<int64_t>{300, 256}));
  EXPECT_EQ(in[1].shape, (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(in[2].shape, (std::vector<int64_t>{512}));
  EXPECT_EQ(in[3].shape, (std::vector<int64_t>{16}));
  for (const HostTensor &t : in)
    for (float v : t.data)
      ASSERT_TRUE(isRepresentable(v, t.dtype));
  // x ~ N(0, 1), w ~ N(0, 1/256) (std 1/16), b ~ N(0, 0.01), the state is zeros.
  TensorStats sx = computeStats(in[0]), sw = computeStats(in[1]), sb = computeStats(in[2]);
  EXPECT_NEAR(sx.mean, 0.0, 0.01);
  EXPECT_NEAR(sx.stddev, 1.0, 0.01);
  EXPECT_NEAR(sw.stddev, 1.0 / 16, 0.001);
  EXPECT_NEAR(sb.stddev, 0.1, 0.01);
  EXPECT_EQ(computeStats(in[3]).absMax, 0.0);
  // Deterministic; another seed gives other values; inputs do not share a stream.
  std::vector<HostTensor> again = randomInputs(*g, 42, 300);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(in[i].data, again[i].data);
  EXPECT_NE(randomInputs(*g, 43, 300)[0].data, in[0].data);
  EXPECT_NE(in[0].data[0], in[1].data[0] * 16);
}

TEST(RandomInputs, RandomTensorAndHeavyTails) {
  HostTensor a = randomTensor({1 << 17}, DType::F32, 5, 2.0);
  HostTensor b = randomTensor({1 << 17}, DType::F32, 5, 2.0);
  EXPECT_EQ(a.data, b.data);
  TensorStats s = computeStats(a);
  EXPECT_NEAR(s.stddev, 2.0, 0.02);
  EXPECT_LT(s.absMax, 2.0 * 7); // Box-Muller with 32-bit uniforms stops below 6.7 sigma
  HostTensor h = randomTensor({1 << 17}, DType::F32, 5, 2.0, true);
  TensorStats hs = computeStats(h);
  EXPECT_GT(hs.absMax, 2.0 * 10); // t3 tails: 2^17 samples reach far past 10 sigma
  EXPECT_EQ(hs.nanCount + hs.infCount, 0);
  // FP8 rounding of the values.
  HostTensor q = randomTensor({64}, DType::F8E4M3FN, 1, 1000.0);
  for (float v : q.data)
    ASSERT_TRUE(isRepresentable(v, DType::F8E4M3FN) && std::fabs(v) <= 448);
}

TEST(TensorStats, CountsAndMoments) {
  HostTensor t = HostTensor::make({6}, DType::F32);
  const float inf = std::numeric_limits<float>::infinity();
  t.data = {1, -3, 2, std::nanf(""), inf, 4};
  TensorStats s = computeStats(t);
  EXPECT_EQ(s.count, 6);
  EXPECT_EQ(s.nanCount, 1);
  EXPECT_EQ(s.infCount, 1);
  EXPECT_DOUBLE_EQ(s.mean, 1.0);              // (1 - 3 + 2 + 4) / 4
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(6.5)); // (0 + 16 + 1 + 9) / 4
  EXPECT_EQ(s.min, -3.0);
  EXPECT_EQ(s.max, 4.0);
  EXPECT_EQ(s.absMax, 4.0);
}

TEST(TensorStats, RelativeFrobeniusError) {
  HostTensor ref = HostTensor::make({2}, DType::F32), got = ref;
  ref.data = {3, 4};
  got.data = {3, 4.5f};
  EXPECT_DOUBLE_EQ(relativeFrobeniusError(got, ref), 0.1); // 0.5 / 5
  EXPECT_EQ(relativeFrobeniusError(ref, ref), 0.0);
  got.data = {std::nanf(""), 4};
  EXPECT_TRUE(std::isnan(relativeFrobeniusError(got, ref)));
  EXPECT_TRUE(std::isnan(relativeFrobeniusError(ref, got)));
  EXPECT_TRUE(std::isnan(relativeFrobeniusError(HostTensor::make({3}, DType::F32), ref)));
  EXPECT_TRUE(std::isinf(relativeFrobeniusError(ref, HostTensor::make({2}, DType::F32))));
}

} // namespace
} // namespace fp8c
