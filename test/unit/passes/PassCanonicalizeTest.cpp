// `canonicalize`, `cse` and `dce` leave a graph's meaning bit-for-bit unchanged
// (checked as interpreter(before) vs interpreter(after)). Random chains of converts through
// every dtype, transposes and relus, on inputs that include the awkward values (inf, NaN,
// subnormals, values that overflow f16 or saturate FP8); and, exhaustively, the premise of the
// cast-of-dequant fold: cast(dequant(q, s) in f32, s) == q for every FP8 q and every
// non-degenerate scale, which does not hold through bf16.
#include "ir/Builder.h"
#include "ir/Printer.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <random>

namespace fp8c {
namespace {

std::vector<HostTensor> run(const Graph &g, const std::vector<HostTensor> &in) {
  Expected<std::vector<HostTensor>> r = interpret(g, in);
  EXPECT_TRUE(r) << r.error() << "\n" << toString(g);
  return r ? r.take() : std::vector<HostTensor>{};
}

bool sameBits(const HostTensor &a, const HostTensor &b) { return firstBitMismatch(a, b) < 0; }

// x: f32 [4, 8] holding, besides ordinary values, +-inf, NaN, f32 subnormals, values that
// overflow f16 (1e5), saturate e4m3 (500) or e5m2 (6e4), sit in FP8's subnormal range, or sit
// halfway between neighbours (ties).
HostTensor awkwardInput() {
  const std::vector<float> v = {
      0.0f,    -0.0f,     1.0f,       -1.5f,    INFINITY, -INFINITY, NAN,      0x1p-140f,
      1e5f,    -1e5f,     500.0f,     6e4f,     0x1p-8f,  0x1p-17f,  0x1.1p0f, -0x1.3p-3f,
      3.0e-5f, 0.1f,      -0.3f,      65504.0f, 448.0f,   57344.0f,  1e30f,    -1e-30f,
      2.5f,    0x1.01p0f, 0x1.008p0f, 7.0f,     -12.0f,   0.0625f,   1.0f / 3, -2.0f / 3};
  return HostTensor::fromValues({4, 8}, DType::F32, v);
}

// A random chain of converts (through every dtype), transposes and relus, with some
// intermediate values returned too.
std::unique_ptr<Graph> randomChain(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const DType types[] = {DType::F32, DType::BF16, DType::F16, DType::F8E4M3FN, DType::F8E5M2};
  GraphBuilder b("chain");
  Value *v = b.input("x", {{4, 8}, DType::F32});
  const int n = 3 + static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) {
    switch (rng() % 5) {
    case 0:
    case 1:
    case 2:
      v = b.convert(v, types[rng() % 5]);
      break;
    case 3:
      v = b.transpose(v);
      break;
    case 4: // relu takes no FP8
      v = isFloat8(v->type().dtype()) ? b.convert(v, DType::BF16) : b.relu(v);
      break;
    }
    if (rng() % 4 == 0)
      b.output(v);
  }
  b.output(v);
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  return g ? g.take() : nullptr;
}

TEST(PassCanonicalize, RandomChainsComputeTheSameBits) {
  const HostTensor x = awkwardInput();
  int folded = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::unique_ptr<Graph> before = randomChain(seed), after = randomChain(seed);
    ASSERT_TRUE(before && after);
    PassManager pm;
    ASSERT_TRUE(pm.parsePipeline("canonicalize,cse,dce"));
    pm.setVerifyEach(true);
    DiagnosticEngine diag;
    ASSERT_TRUE(pm.run(*after, diag)) << diag.str();
    folded += after->body().ops().size() < before->body().ops().size();
    std::vector<HostTensor> r1 = run(*before, {x}), r2 = run(*after, {x});
    ASSERT_EQ(r1.size(), r2.size());
    for (size_t i = 0; i < r1.size(); ++i)
      EXPECT_TRUE(sameBits(r1[i], r2[i])) << "output #" << i << "\nbefore:\n"
                                          << toString(*before) << "after:\n"
                                          << toString(*after);
  }
  EXPECT_GT(folded, 100); // the chains do exercise the folds
}

struct RoundTrip {
  int failures = 0;
  std::string first; ///< the first (q, s) that did not come back
};

// cast(dequant(q, s) -> mid, s) for all 256 bit patterns of q's FP8 type (NaN excluded) and
// the scales `scales`: how many (q, s) pairs do not give q back.
RoundTrip roundTrip(DType fp8, DType mid, const std::vector<float> &scales) {
  std::vector<float> all;
  for (int bits = 0; bits < 256; ++bits) {
    float q = fp8ToFloat(static_cast<uint8_t>(bits), fp8);
    if (!std::isnan(q) && !std::isinf(q))
      all.push_back(q);
  }
  const int64_t n = static_cast<int64_t>(all.size());
  GraphBuilder b("rt");
  Value *q = b.input("q", {{n}, fp8});
  Value *s = b.input("s", {{}, DType::F32});
  b.output(b.cast(b.dequant(q, s, mid), s, fp8));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  RoundTrip out;
  if (!g)
    return {-1, "no graph"};
  HostTensor qt = HostTensor::fromValues({n}, fp8, all);
  for (float sv : scales) {
    std::vector<HostTensor> r = run(**g, {qt, HostTensor::fromValues({}, DType::F32, {sv})});
    if (r.empty())
      return {-1, "no result"};
    for (int64_t i = 0; i < n; ++i)
      if (std::bit_cast<uint32_t>(r[0].data[i]) != std::bit_cast<uint32_t>(all[i]) &&
          !(r[0].data[i] == 0 && all[i] == 0) && out.failures++ == 0)
        out.first = std::string(dtypeName(fp8)) + " q=" + std::to_string(all[i]) +
                    " s=" + std::to_string(sv) + " through " + std::string(dtypeName(mid)) +
                    " gives " + std::to_string(r[0].data[i]);
  }
  return out;
}

// Non-degenerate scales: fmax / FLT_MAX <= |s| <= FLT_MAX. Every power of two in range, both
// ends, and scales with long mantissas.
std::vector<float> nonDegenerateScales(float fmax) {
  std::vector<float> s;
  const float lo = std::nextafter(fmax / FLT_MAX, INFINITY);
  for (int e = -126; e <= 127; ++e)
    if (std::ldexp(1.0f, e) >= lo)
      s.push_back(std::ldexp(1.0f, e));
  for (float v : {lo, FLT_MAX, 1.0f / 3, 448.0f / 3, 57344.0f / 7, 0.1f, 1e-30f, 1e30f, -2.5f})
    s.push_back(v);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) // random mantissas at random exponents
    s.push_back(std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) * 0x1p-23f,
                           static_cast<int>(rng() % 200) - 100));
  return s;
}

TEST(PassCanonicalize, CastOfDequantThroughF32IsTheIdentity) {
  RoundTrip e4m3 = roundTrip(DType::F8E4M3FN, DType::F32, nonDegenerateScales(448));
  EXPECT_EQ(e4m3.failures, 0) << e4m3.first;
  RoundTrip e5m2 = roundTrip(DType::F8E5M2, DType::F32, nonDegenerateScales(57344));
  EXPECT_EQ(e5m2.failures, 0) << e5m2.first;
}

TEST(PassCanonicalize, CastOfDequantThroughBf16IsNotTheIdentity) {
  // Why the fold stops at bf16: q = 2^-9 (e4m3's smallest subnormal) / FLT_MAX is deep in
  // bf16's subnormals and rounds to 0.
  RoundTrip bf16 = roundTrip(DType::F8E4M3FN, DType::BF16, {FLT_MAX});
  EXPECT_GT(bf16.failures, 0);
  EXPECT_NE(bf16.first.find("q=0.001953"), std::string::npos) << bf16.first;
  // Degenerate scales break it through f32 too: the assumption the fold documents.
  EXPECT_GT(roundTrip(DType::F8E4M3FN, DType::F32, {0.0f}).failures, 0);
  EXPECT_GT(roundTrip(DType::F8E4M3FN, DType::F32, {NAN}).failures, 0);
}

} // namespace
} // namespace fp8c
