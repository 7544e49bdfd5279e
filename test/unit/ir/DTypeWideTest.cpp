// bf16 / f16 conversions and the dtype tables of ir/DType: decoding of all 2^16 patterns of each,
// f32 -> bf16 / f16 against the toolkit's host __float2bfloat16_rn / __float2half_rn (random
// sample, boundaries, and, opt-in with FP8C_EXHAUSTIVE=1, all 2^32 inputs), dtypeInfo,
// parseDType, roundToDType (I32 in particular) and encodeBits / decodeBits.
#include "ir/DType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if FP8C_HAVE_CUDA_FP8_H
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace fp8c {
namespace {

float fromBits(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t toBits(float f) { return std::bit_cast<uint32_t>(f); }

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

/// Counts mismatches and remembers the first one (input bits, our output, the reference's).
struct Mismatches {
  uint64_t count = 0;
  uint64_t input = 0, ours = 0, ref = 0;
  void check(uint64_t in, uint64_t o, uint64_t r) {
    if (o == r)
      return;
    if (count++ == 0) {
      input = in;
      ours = o;
      ref = r;
    }
  }
  std::string first() const {
    return "first mismatch: input " + hex(input) + " -> ours " + hex(ours) + ", reference " +
           hex(ref) + " (" + std::to_string(count) + " mismatches)";
  }
};

#define EXPECT_NO_MISMATCH(m, what) EXPECT_EQ((m).count, 0u) << (what) << ": " << (m).first()

#if FP8C_HAVE_CUDA_FP8_H
uint16_t refToBf16(float x) { return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x)).x; }
uint16_t refToHalf(float x) { return static_cast<__half_raw>(__float2half_rn(x)).x; }
float refBf16ToFloat(uint16_t b) { return __bfloat162float(__nv_bfloat16(__nv_bfloat16_raw{b})); }
float refHalfToFloat(uint16_t h) { return __half2float(__half(__half_raw{h})); }
#define SKIP_WITHOUT_TOOLKIT()
#else
#define SKIP_WITHOUT_TOOLKIT()                                                                     \
  GTEST_SKIP() << "built without the CUDA headers (FP8C_HAVE_CUDA_FP8_H)"
uint16_t refToBf16(float) { return 0; }
uint16_t refToHalf(float) { return 0; }
#endif

void checkOne(uint32_t bits, Mismatches &mb, Mismatches &mh) {
  const float x = fromBits(bits);
  mb.check(bits, floatToBf16(x), refToBf16(x));
  mh.check(bits, floatToHalf(x), refToHalf(x));
}

void checkRange(uint64_t begin, uint64_t end, Mismatches &mb, Mismatches &mh) {
  for (uint64_t i = begin; i < end; ++i)
    checkOne(static_cast<uint32_t>(i), mb, mh);
}

TEST(DTypeWide, Bf16DecodeAllPatterns) {
  Mismatches shift, ref, trip;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float x = bf16ToFloat(static_cast<uint16_t>(b));
    shift.check(b, toBits(x), b << 16); // NaN payloads kept
#if FP8C_HAVE_CUDA_FP8_H
    ref.check(b, toBits(x), toBits(refBf16ToFloat(static_cast<uint16_t>(b))));
#endif
    trip.check(b, floatToBf16(x), std::isnan(x) ? 0x7FFFu : b);
  }
  EXPECT_NO_MISMATCH(shift, "bf16 -> f32 is the bits shifted up");
  EXPECT_NO_MISMATCH(ref, "bf16 -> f32 vs __bfloat162float");
  EXPECT_NO_MISMATCH(trip, "bf16 -> f32 -> bf16");
}

TEST(DTypeWide, F16DecodeAllPatterns) {
  Mismatches value, ref, trip;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float x = halfToFloat(static_cast<uint16_t>(h));
    const int e = (h >> 10) & 0x1F, f = h & 0x3FF;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31 && f != 0)
      value.check(h, toBits(x), 0x7FFFFFFFu); // canonical NaN, sign and payload dropped
    else if (e == 31)
      value.check(h, toBits(x), toBits(static_cast<float>(sign * INFINITY)));
    else
      value.check(h, toBits(x),
                  toBits(static_cast<float>(
                      sign * (e ? std::ldexp(1024 + f, e - 25) : std::ldexp(f, -24)))));
#if FP8C_HAVE_CUDA_FP8_H
    ref.check(h, toBits(x), toBits(refHalfToFloat(static_cast<uint16_t>(h))));
#endif
    trip.check(h, floatToHalf(x), std::isnan(x) ? 0x7FFFu : h);
  }
  EXPECT_NO_MISMATCH(value, "f16 -> f32 vs the format's definition");
  EXPECT_NO_MISMATCH(ref, "f16 -> f32 vs __half2float");
  EXPECT_NO_MISMATCH(trip, "f16 -> f32 -> f16");
}

TEST(DTypeWide, RandomF32MatchesToolkit) {
  SKIP_WITHOUT_TOOLKIT();
  // Uniform bit patterns, then a sample with exponents in [-26, 17] (f16's range and its edges).
  constexpr uint64_t kUniform = uint64_t{1} << 24, kInRange = uint64_t{1} << 22;
  std::mt19937_64 rng(0x5EED'F8C0'0002ull);
  Mismatches mb, mh;
  for (uint64_t i = 0; i < kUniform; i += 2) {
    const uint64_t r = rng();
    checkOne(static_cast<uint32_t>(r), mb, mh);
    checkOne(static_cast<uint32_t>(r >> 32), mb, mh);
  }
  std::uniform_int_distribution<uint32_t> expDist(127 - 26, 127 + 17);
  for (uint64_t i = 0; i < kInRange; ++i) {
    const uint64_t r = rng();
    checkOne((static_cast<uint32_t>(r >> 63) << 31) | (expDist(rng) << 23) |
                 static_cast<uint32_t>(r & 0x7FFFFF),
             mb, mh);
  }
  std::cout << "[ sample   ] " << kUniform << " uniform + " << kInRange
            << " in-range random f32 patterns, each -> bf16 and f16\n";
  RecordProperty("uniform_samples", std::to_string(kUniform));
  RecordProperty("in_range_samples", std::to_string(kInRange));
  EXPECT_NO_MISMATCH(mb, "random f32 -> bf16 vs __float2bfloat16_rn");
  EXPECT_NO_MISMATCH(mh, "random f32 -> f16 vs __float2half_rn");
}

struct Boundary {
  uint32_t input; ///< f32 bits
  uint16_t expected;
};

TEST(DTypeWide, BoundariesMatchExpectedAndToolkit) {
  const uint32_t inf = 0x7F800000u, fltMax = 0x7F7FFFFFu;
  const std::vector<Boundary> half = {
      {toBits(65504.0f), 0x7BFF},
      {toBits(-65504.0f), 0xFBFF},
      {toBits(65520.0f), 0x7C00},
      {toBits(65520.0f) - 1, 0x7BFF}, // tie past max -> inf
      {toBits(65536.0f), 0x7C00},
      {fltMax, 0x7C00},
      {fltMax | 0x80000000u, 0xFC00},
      {inf, 0x7C00},
      {inf | 0x80000000u, 0xFC00},
      {toBits(0x1p-14f), 0x0400},
      {toBits(0x1p-24f), 0x0001},
      {toBits(0x1p-25f), 0x0000}, // tie -> 0
      {toBits(-0x1p-25f), 0x8000},
      {toBits(0x1p-25f) + 1, 0x0001},
      {toBits(0x1.8p-24f), 0x0002},
      {toBits(0x1p-14f - 0x1p-25f), 0x0400},
      {toBits(0.0f), 0x0000},
      {toBits(-0.0f), 0x8000},
      {0x00000001u, 0x0000},
      {0x807FFFFFu, 0x8000},
      {toBits(1.0f + 0x1p-11f), 0x3C00},
      {toBits(1.0f + 0x1.8p-10f), 0x3C02},
  };
  const std::vector<Boundary> bf16 = {
      {fltMax, 0x7F80},       {0x7F7F7FFFu, 0x7F7F},   {0x7F7F8000u, 0x7F80}, // tie, odd -> inf
      {0x7F7E8000u, 0x7F7E},  {0xFF7FFFFFu, 0xFF80},   {inf, 0x7F80},
      {0xFF800000u, 0xFF80},  {0x00000001u, 0x0000},   {0x00008000u, 0x0000}, // f32 denormals
      {0x00008001u, 0x0001},  {0x00018000u, 0x0002},   {0x807FFFFFu, 0x8080},
      {toBits(1.0f), 0x3F80}, {toBits(-0.0f), 0x8000},
  };
  for (uint32_t nan :
       {0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0xFFC00000u, 0xFF800001u, 0x7F810000u}) {
    // Every NaN becomes +0x7FFF: the toolkit drops the sign and payload.
    EXPECT_EQ(hex(floatToHalf(fromBits(nan))), "0x7fff") << hex(nan);
    EXPECT_EQ(hex(floatToBf16(fromBits(nan))), "0x7fff") << hex(nan);
#if FP8C_HAVE_CUDA_FP8_H
    EXPECT_EQ(hex(refToHalf(fromBits(nan))), "0x7fff");
    EXPECT_EQ(hex(refToBf16(fromBits(nan))), "0x7fff");
#endif
  }
  for (const Boundary &b : half) {
    EXPECT_EQ(hex(floatToHalf(fromBits(b.input))), hex(b.expected))
        << "f16, input " << hex(b.input);
#if FP8C_HAVE_CUDA_FP8_H
    EXPECT_EQ(hex(refToHalf(fromBits(b.input))), hex(b.expected)) << "toolkit f16 " << hex(b.input);
#endif
  }
  for (const Boundary &b : bf16) {
    EXPECT_EQ(hex(floatToBf16(fromBits(b.input))), hex(b.expected))
        << "bf16, input " << hex(b.input);
#if FP8C_HAVE_CUDA_FP8_H
    EXPECT_EQ(hex(refToBf16(fromBits(b.input))), hex(b.expected))
        << "toolkit bf16 " << hex(b.input);
#endif
  }
}

TEST(DTypeWide, ExhaustiveF32MatchesToolkit) {
  const char *env = std::getenv("FP8C_EXHAUSTIVE");
  if (!env || std::string(env) != "1")
    GTEST_SKIP() << "set FP8C_EXHAUSTIVE=1 to compare all 2^32 f32 inputs";
  SKIP_WITHOUT_TOOLKIT();
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Mismatches> mb(n), mh(n);
  std::vector<std::thread> threads;
  constexpr uint64_t kAll = uint64_t{1} << 32;
  for (unsigned k = 0; k < n; ++k)
    threads.emplace_back(checkRange, kAll * k / n, kAll * (k + 1) / n, std::ref(mb[k]),
                         std::ref(mh[k]));
  for (std::thread &th : threads)
    th.join();
  for (unsigned k = 0; k < n; ++k) { // ranges ascend: the first failing chunk has the first input
    EXPECT_NO_MISMATCH(mb[k], "all f32 -> bf16");
    EXPECT_NO_MISMATCH(mh[k], "all f32 -> f16");
  }
}

TEST(DTypeInfo, Values) {
  struct Row {
    DType t;
    const char *name;
    int bits, man, exp, bytes;
    double max, minNormal, minSub, eps;
    bool isFloat, isFloat8, hasInf;
  };
  const Row rows[] = {
      {DType::F32, "f32", 32, 23, 8, 4, 0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-23, true, false,
       true},
      {DType::F16, "f16", 16, 10, 5, 2, 65504, 0x1p-14, 0x1p-24, 0x1p-10, true, false, true},
      {DType::BF16, "bf16", 16, 7, 8, 2, 0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7, true, false, true},
      {DType::F8E4M3FN, "f8E4M3FN", 8, 3, 4, 1, 448, 0x1p-6, 0x1p-9, 0.125, true, true, false},
      {DType::F8E5M2, "f8E5M2", 8, 2, 5, 1, 57344, 0x1p-14, 0x1p-16, 0.25, true, true, true},
  };
  for (const Row &r : rows) {
    SCOPED_TRACE(r.name);
    const DTypeInfo &i = dtypeInfo(r.t);
    EXPECT_EQ(i.name, r.name);
    EXPECT_EQ(dtypeName(r.t), r.name);
    EXPECT_EQ(i.bits, r.bits);
    EXPECT_EQ(i.mantissaBits, r.man);
    EXPECT_EQ(i.exponentBits, r.exp);
    EXPECT_EQ(dtypeBytes(r.t), r.bytes);
    EXPECT_EQ(i.max, r.max);
    EXPECT_EQ(i.lowest, -r.max);
    EXPECT_EQ(i.minNormal, r.minNormal);
    EXPECT_EQ(i.minSubnormal, r.minSub);
    EXPECT_EQ(i.eps, r.eps);
    EXPECT_EQ(i.isFloat, r.isFloat);
    EXPECT_EQ(isFloat(r.t), r.isFloat);
    EXPECT_EQ(isFloat8(r.t), r.isFloat8);
    EXPECT_EQ(i.hasInf, r.hasInf);
    // The table agrees with the conversions: max, min subnormal and 1 + eps are representable,
    // and the next value past max is not.
    const auto rt = [&](double v) { return static_cast<double>(roundToDType(float(v), r.t)); };
    EXPECT_EQ(rt(r.max), r.max);
    EXPECT_EQ(rt(r.minSub), r.minSub);
    EXPECT_EQ(rt(r.minNormal), r.minNormal);
    EXPECT_EQ(rt(1 + r.eps), 1 + r.eps);
    EXPECT_EQ(rt(1 + r.eps / 2), 1.0); // tie to even
    if (r.t != DType::F32) {
      EXPECT_NE(rt(r.max * (1 + r.eps)), r.max * (1 + r.eps));
    }
  }
  const DTypeInfo &i = dtypeInfo(DType::I32);
  EXPECT_EQ(i.name, "i32");
  EXPECT_EQ(i.bits, 32);
  EXPECT_EQ(dtypeBytes(DType::I32), 4);
  EXPECT_EQ(i.mantissaBits, 0);
  EXPECT_EQ(i.exponentBits, 0);
  EXPECT_EQ(i.max, 2147483647.0);
  EXPECT_EQ(i.lowest, -2147483648.0);
  EXPECT_EQ(i.minNormal, 1.0);
  EXPECT_EQ(i.minSubnormal, 1.0);
  EXPECT_EQ(i.eps, 1.0);
  EXPECT_FALSE(i.isFloat);
  EXPECT_FALSE(isFloat(DType::I32));
  EXPECT_FALSE(isFloat8(DType::I32));
  EXPECT_FALSE(i.hasInf);
}

TEST(DTypeInfo, ParseDType) {
  for (DType t : kAllDTypes)
    EXPECT_EQ(parseDType(dtypeName(t)), t) << dtypeName(t);
  for (const char *bad : {"f8e4m3", "bf17", "", "F32", "f32 ", " f32", "i64", "f8E4M3", "f8e4m3fn",
                          "f8E4M3FNUZ", "f8E5M2FNUZ", "float32"})
    EXPECT_EQ(parseDType(bad), std::nullopt) << '"' << bad << '"';
  EXPECT_EQ(parseDType(std::string_view("f16\0", 4)), std::nullopt);
}

TEST(DTypeInfo, RoundToI32) {
  const auto r = [](float x) { return roundToDType(x, DType::I32); };
  EXPECT_EQ(r(1.9f), 1.0f);
  EXPECT_EQ(r(-1.9f), -1.0f);
  EXPECT_EQ(toBits(r(-0.5f)), toBits(0.0f));  // i32 has no -0
  EXPECT_EQ(r(2147483520.0f), 2147483520.0f); // largest f32 below 2^31
  EXPECT_EQ(r(-0x1p31f), -0x1p31f);
  EXPECT_EQ(r(0x1p31f), 0x1p31f); // saturates to INT32_MAX, which widens to 2^31
  EXPECT_EQ(r(3e9f), 0x1p31f);
  EXPECT_EQ(r(-3e9f), -0x1p31f);
  EXPECT_EQ(r(INFINITY), 0x1p31f);
  EXPECT_EQ(r(-INFINITY), -0x1p31f);
  EXPECT_EQ(toBits(r(NAN)), 0u);
  EXPECT_EQ(toBits(r(-NAN)), 0u);
  EXPECT_EQ(encodeBits(-1.0f, DType::I32), 0xFFFFFFFFu);
  EXPECT_EQ(encodeBits(3e9f, DType::I32), 0x7FFFFFFFu);
  EXPECT_EQ(encodeBits(-3e9f, DType::I32), 0x80000000u);
  EXPECT_EQ(encodeBits(NAN, DType::I32), 0u);
  EXPECT_EQ(encodeBits(-7.99f, DType::I32), uint32_t(-7));
  EXPECT_EQ(decodeBits(0xFFFFFFFFu, DType::I32), -1.0f);
  EXPECT_EQ(decodeBits(0x80000000u, DType::I32), -0x1p31f);
  EXPECT_EQ(decodeBits(12345u, DType::I32), 12345.0f);
}

TEST(DTypeInfo, EncodeDecodeBits) {
  EXPECT_EQ(encodeBits(fromBits(0xFFC12345u), DType::F32), 0xFFC12345u); // f32 bits kept as is
  EXPECT_EQ(toBits(decodeBits(0xFFC12345u, DType::F32)), 0xFFC12345u);
  EXPECT_EQ(toBits(roundToDType(fromBits(0xFFC12345u), DType::F32)), 0xFFC12345u);
  EXPECT_EQ(encodeBits(1.0f, DType::F16), 0x3C00u);
  EXPECT_EQ(encodeBits(1.0f, DType::BF16), 0x3F80u);
  EXPECT_EQ(encodeBits(-448.0f, DType::F8E4M3FN), 0xFEu);
  EXPECT_EQ(encodeBits(INFINITY, DType::F8E5M2), 0x7Cu); // storage keeps e5m2's inf
  EXPECT_EQ(encodeBits(-INFINITY, DType::F8E5M2), 0xFCu);
  EXPECT_EQ(encodeBits(INFINITY, DType::F8E4M3FN), 0x7Eu); // e4m3fn has none: saturates
  for (DType t : kAllDTypes) {
    if (t == DType::F32 || t == DType::I32)
      continue;
    SCOPED_TRACE(std::string(dtypeName(t)));
    const uint32_t n = 1u << dtypeInfo(t).bits;
    Mismatches trip, round;
    for (uint32_t b = 0; b < n; ++b) {
      const float x = decodeBits(b, t);
      if (std::isnan(x))
        continue;
      trip.check(b, encodeBits(x, t), b);
      if (!std::isinf(x)) // roundToDType saturates e5m2's inf (next test)
        round.check(b, toBits(roundToDType(x, t)), toBits(x));
    }
    EXPECT_NO_MISMATCH(trip, "decodeBits -> encodeBits");
    EXPECT_NO_MISMATCH(round, "roundToDType of a representable value");
  }
  EXPECT_EQ(roundToDType(INFINITY, DType::F8E5M2), 57344.0f); // as __NV_SATFINITE
  EXPECT_EQ(roundToDType(-INFINITY, DType::F8E4M3FN), -448.0f);
  EXPECT_EQ(roundToDType(INFINITY, DType::F16), INFINITY);
  EXPECT_EQ(roundToDType(-INFINITY, DType::BF16), -INFINITY);
}

} // namespace
} // namespace fp8c
