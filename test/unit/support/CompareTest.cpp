// The tests' tensor comparison (Compare.h) on the host: a whole wrong column of a 64 x 14336
// output stays under the FP8 Frobenius bound but fails the max-element bound, and names the
// column; a correct result's rounding noise passes both; NaN and infinity fail any bounds;
// sizes, shapes, an all-zero reference and the index naming.
#include "unit/support/Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace fp8c {
namespace {

using testcmp::Bounds;
using testcmp::Comparison;
using testcmp::kFp8VsInterpreter;

constexpr int64_t kRows = 64, kCols = 14336;

HostTensor gaussian(uint32_t seed) {
  HostTensor t = HostTensor::make({kRows, kCols}, DType::BF16);
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (float &v : t.data)
    v = roundToDType(n(rng), DType::BF16);
  return t;
}

TEST(Compare, OneZeroedColumnPassesFrobeniusButFailsMaxElement) {
  const HostTensor ref = gaussian(1);
  HostTensor got = ref;
  const int64_t col = 9000;
  for (int64_t i = 0; i < kRows; ++i)
    got.data[size_t(i * kCols + col)] = 0.0f;
  const Comparison c(got, ref);
  // The column is 1/14336 of the tensor: sqrt(1/14336) = 0.0084 relative Frobenius error.
  EXPECT_LT(c.relFrobenius(), kFp8VsInterpreter.relFrobenius);
  EXPECT_NEAR(c.relFrobenius(), std::sqrt(1.0 / kCols), 2e-3);
  // The column's largest |value| (about 2.4 sigma of 64) against the tensor's (about 5 sigma).
  EXPECT_GT(c.maxElement(), kFp8VsInterpreter.maxElement);
  EXPECT_GT(c.maxElement(), 0.25);
  EXPECT_EQ(c.worstIndex() % kCols, col);
  ::testing::AssertionResult r = c.within(kFp8VsInterpreter);
  EXPECT_FALSE(r);
  const std::string msg = r.message();
  EXPECT_NE(msg.find(", 9000]: got 0, want "), std::string::npos) << msg;
  EXPECT_NE(msg.find("max-element error"), std::string::npos) << msg;
  // The Frobenius bound alone would have passed it.
  EXPECT_TRUE(c.within({kFp8VsInterpreter.relFrobenius, 1.0})) << c.describe();
}

// A column read from its neighbour (an off-by-one index): as far off as a zeroed one.
TEST(Compare, OneShiftedColumnFailsMaxElement) {
  const HostTensor ref = gaussian(2);
  HostTensor got = ref;
  const int64_t col = kCols - 1;
  for (int64_t i = 0; i < kRows; ++i)
    got.data[size_t(i * kCols + col)] = ref.data[size_t(i * kCols + col - 1)];
  const Comparison c(got, ref);
  EXPECT_LT(c.relFrobenius(), kFp8VsInterpreter.relFrobenius);
  EXPECT_GT(c.maxElement(), kFp8VsInterpreter.maxElement);
  EXPECT_EQ(c.worstIndex() % kCols, col);
  EXPECT_FALSE(c.within(kFp8VsInterpreter));
}

// A correct result's differences: every element one bf16 step off (the largest a flipped bf16
// rounding gives) and a few elements one e4m3 step off at full scale. Both bounds hold.
TEST(Compare, RoundingNoisePassesBothBounds) {
  const HostTensor ref = gaussian(3);
  HostTensor got = ref;
  std::mt19937 rng(4);
  for (float &v : got.data)
    v = v + std::ldexp(v, -7) * (rng() % 2 ? 1.0f : -1.0f);
  double refMax = 0;
  for (float v : ref.data)
    refMax = std::max(refMax, double(std::fabs(v)));
  // Three elements each moved by 2^-5 of the largest magnitude.
  for (size_t i : {size_t(5), size_t(70000), size_t(900000)})
    got.data[i] += float(std::ldexp(refMax, -5));
  const Comparison c(got, ref);
  EXPECT_TRUE(c.within(kFp8VsInterpreter)) << c.describe();
  EXPECT_LT(c.maxElement(), 0x1p-4);
}

TEST(Compare, NaNFailsAnyBounds) {
  const HostTensor ref = gaussian(5);
  HostTensor got = ref;
  got.data[size_t(3 * kCols + 7)] = std::numeric_limits<float>::quiet_NaN();
  const Comparison c(got, ref);
  EXPECT_EQ(c.nonFinite(), 1);
  EXPECT_TRUE(std::isnan(c.relFrobenius()));
  EXPECT_TRUE(std::isnan(c.maxElement()));
  ::testing::AssertionResult r = c.within({1e300, 1e300});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("first at [3, 7]: got nan"), std::string::npos)
      << r.message();
  // A NaN in the reference fails too, and so does an infinity on either side.
  EXPECT_FALSE(Comparison(ref, got).within({1e300, 1e300}));
  got.data[size_t(3 * kCols + 7)] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(Comparison(got, ref).within({1e300, 1e300}));
}

TEST(Compare, AllFiniteNamesTheFirstUnwrittenElement) {
  HostTensor t = HostTensor::make({4, 5}, DType::BF16);
  EXPECT_TRUE(testcmp::allFinite(t));
  t.data[13] = std::numeric_limits<float>::quiet_NaN();
  t.data[17] = std::numeric_limits<float>::quiet_NaN();
  ::testing::AssertionResult r = testcmp::allFinite(t);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("2 of 20 elements NaN or infinite, first at [2, 3]"),
            std::string::npos)
      << r.message();
}

TEST(Compare, SizesAndShapesMustAgree) {
  HostTensor a = HostTensor::make({2, 3}, DType::F32), b = HostTensor::make({3, 2}, DType::F32);
  EXPECT_FALSE(Comparison(a, b).within({1, 1}));
  HostTensor c = HostTensor::make({2, 4}, DType::F32);
  ::testing::AssertionResult r = Comparison(a, c).within({1, 1});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("shapes differ: 6 computed elements against 8"),
            std::string::npos)
      << r.message();
}

TEST(Compare, AllZeroReference) {
  HostTensor zero = HostTensor::make({3}, DType::F32);
  EXPECT_TRUE(Comparison(zero, zero).within({0, 0}));
  HostTensor one = zero;
  one.data[1] = 1.0f;
  const Comparison c(one, zero);
  EXPECT_TRUE(std::isinf(c.relFrobenius()));
  EXPECT_FALSE(c.within({1e300, 1e300}));
}

TEST(Compare, VectorsOfDoubles) {
  const std::vector<double> ref = {1, 2, 3, 4, 5, 6};
  std::vector<double> got = ref;
  got[4] = 5.5;
  const Comparison c = testcmp::compare(got, ref, {2, 3});
  EXPECT_DOUBLE_EQ(c.maxElement(), 0.5 / 6);
  EXPECT_EQ(c.worstIndex(), 4);
  EXPECT_NE(c.describe().find("worst at [1, 1]: got 5.5, want 5"), std::string::npos)
      << c.describe();
}

TEST(Compare, IndexStringAndSteps) {
  const std::vector<int64_t> shape = {2, 3, 4};
  EXPECT_EQ(testcmp::indexString(23, shape), "[1, 2, 3]");
  EXPECT_EQ(testcmp::indexString(0, shape), "[0, 0, 0]");
  EXPECT_EQ(testcmp::indexString(24, shape), "[24]");
  EXPECT_EQ(testcmp::indexString(5, {}), "[5]");
  EXPECT_EQ(testcmp::halfStep(DType::F8E4M3FN), 0x1p-4);
  EXPECT_EQ(testcmp::halfStep(DType::F8E5M2), 0x1p-3);
  EXPECT_EQ(testcmp::halfStep(DType::BF16), 0x1p-8);
  EXPECT_EQ(testcmp::halfStep(DType::F16), 0x1p-11);
  EXPECT_EQ(testcmp::halfStep(DType::F32), 0x1p-24);
  EXPECT_EQ(testcmp::fullStep(DType::F8E4M3FN), 0x1p-3);
  // A correct rounding moves a value by at most halfStep of itself.
  for (float x : {1.0f, 1.07f, 1.9999f, 300.0f, 0.02f})
    for (DType t : {DType::F8E4M3FN, DType::F8E5M2, DType::BF16})
      EXPECT_LE(std::fabs(roundToDType(x, t) - x), testcmp::halfStep(t) * x) << x;
}

} // namespace
} // namespace fp8c
