// FP8 conversions of ir/DType against the CUDA toolkit's host-callable reference in cuda_fp8.h:
// f32 -> e4m3fn / e5m2 must equal __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) bit for bit (all
// bf16 and f16 inputs, a large random sample of f32 inputs, every boundary, and, opt-in with
// FP8C_EXHAUSTIVE=1, all 2^32 f32 inputs), and FP8 -> f32 must equal __nv_cvt_fp8_to_halfraw
// widened by __half2float. Boundaries are also checked against hand-derived expected bytes, so
// those hold without the toolkit too.
#include "ir/DType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if FP8C_HAVE_CUDA_FP8_H
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif

namespace fp8c {
namespace {

constexpr DType kE4M3 = DType::F8E4M3FN;
constexpr DType kE5M2 = DType::F8E5M2;

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
    return "first mismatch: input " + hex(input) + " -> ours " + hex(ours) + ", toolkit " +
           hex(ref) + " (" + std::to_string(count) + " mismatches)";
  }
};

#define EXPECT_NO_MISMATCH(m, what) EXPECT_EQ((m).count, 0u) << (what) << ": " << (m).first()

#if FP8C_HAVE_CUDA_FP8_H
uint8_t refToFp8(float x, DType t) {
  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, t == kE4M3 ? __NV_E4M3 : __NV_E5M2);
}
float refFp8ToFloat(uint8_t b, DType t) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(b, t == kE4M3 ? __NV_E4M3 : __NV_E5M2)));
}
#define SKIP_WITHOUT_TOOLKIT()
#else
#define SKIP_WITHOUT_TOOLKIT() GTEST_SKIP() << "built without cuda_fp8.h (FP8C_HAVE_CUDA_FP8_H)"
uint8_t refToFp8(float, DType) { return 0; }
#endif

/// Converts the f32 bit pattern to both formats with ours and the toolkit's.
void checkOne(uint32_t bits, Mismatches &m4, Mismatches &m5) {
  const float x = fromBits(bits);
  m4.check(bits, floatToFp8(x, kE4M3), refToFp8(x, kE4M3));
  m5.check(bits, floatToFp8(x, kE5M2), refToFp8(x, kE5M2));
}

/// checkOne over the f32 bit patterns [begin, end).
void checkRange(uint64_t begin, uint64_t end, Mismatches &m4, Mismatches &m5) {
  for (uint64_t i = begin; i < end; ++i)
    checkOne(static_cast<uint32_t>(i), m4, m5);
}

TEST(DTypeFp8, AllBf16PatternsMatchToolkit) {
  SKIP_WITHOUT_TOOLKIT();
  Mismatches m4, m5;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float x = fromBits(b << 16);
    m4.check(b, floatToFp8(x, kE4M3), refToFp8(x, kE4M3));
    m5.check(b, floatToFp8(x, kE5M2), refToFp8(x, kE5M2));
  }
  EXPECT_NO_MISMATCH(m4, "bf16 bits -> e4m3");
  EXPECT_NO_MISMATCH(m5, "bf16 bits -> e5m2");
}

TEST(DTypeFp8, AllF16PatternsMatchToolkit) {
  SKIP_WITHOUT_TOOLKIT();
  Mismatches m4, m5;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float x = halfToFloat(static_cast<uint16_t>(h));
    m4.check(h, floatToFp8(x, kE4M3), refToFp8(x, kE4M3));
    m5.check(h, floatToFp8(x, kE5M2), refToFp8(x, kE5M2));
  }
  EXPECT_NO_MISMATCH(m4, "f16 bits -> e4m3");
  EXPECT_NO_MISMATCH(m5, "f16 bits -> e5m2");
}

TEST(DTypeFp8, RandomF32MatchesToolkit) {
  SKIP_WITHOUT_TOOLKIT();
  // Uniform bit patterns cover NaN, inf, saturation and underflow; most have exponents far outside
  // the FP8 range, so a second sample draws exponents in [-20, 18], where FP8 values live.
  constexpr uint64_t kUniform = uint64_t{1} << 24, kInRange = uint64_t{1} << 22;
  std::mt19937_64 rng(0x5EED'F8C0'0001ull);
  Mismatches m4, m5;
  for (uint64_t i = 0; i < kUniform; i += 2) {
    const uint64_t r = rng();
    checkOne(static_cast<uint32_t>(r), m4, m5);
    checkOne(static_cast<uint32_t>(r >> 32), m4, m5);
  }
  std::uniform_int_distribution<uint32_t> expDist(127 - 20, 127 + 18);
  for (uint64_t i = 0; i < kInRange; ++i) {
    const uint64_t r = rng();
    const uint32_t bits = (static_cast<uint32_t>(r >> 63) << 31) | (expDist(rng) << 23) |
                          static_cast<uint32_t>(r & 0x7FFFFF);
    checkOne(bits, m4, m5);
  }
  std::cout << "[ sample   ] " << kUniform << " uniform + " << kInRange
            << " in-range random f32 patterns, each -> e4m3 and e5m2\n";
  RecordProperty("uniform_samples", std::to_string(kUniform));
  RecordProperty("in_range_samples", std::to_string(kInRange));
  EXPECT_NO_MISMATCH(m4, "random f32 -> e4m3");
  EXPECT_NO_MISMATCH(m5, "random f32 -> e5m2");
}

struct Boundary {
  uint32_t input; ///< f32 bits
  uint8_t expected;
};

/// f32 bits of x, or of its neighbour of next larger (dir > 0) / smaller (dir < 0) magnitude.
uint32_t near(float x, int dir = 0) {
  return dir == 0 ? toBits(x) : toBits(x) + (dir > 0 ? 1u : uint32_t(-1));
}

constexpr uint32_t kNaNs[] = {0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA00000u,
                              0xFFC00000u, 0xFF800001u, 0xFFFFFFFFu, 0xFFC12345u};

std::vector<Boundary> boundaries(DType t) {
  const bool e4 = t == kE4M3;
  const float max = e4 ? 448.0f : 57344.0f, ulpAtMax = e4 ? 32.0f : 8192.0f;
  const float minNormal = e4 ? 0x1p-6f : 0x1p-14f, minSub = e4 ? 0x1p-9f : 0x1p-16f;
  const uint8_t maxCode = e4 ? 0x7E : 0x7B, minNormalCode = e4 ? 0x08 : 0x04;
  const uint8_t one = e4 ? 0x38 : 0x3C;
  const float ulpAtOne = e4 ? 0.125f : 0.25f;
  std::vector<Boundary> v = {
      {near(max), maxCode},
      {near(-max), uint8_t(0x80 | maxCode)},
      {near(max + ulpAtMax / 2), maxCode}, // exact tie past max: saturates (e4m3: even anyway)
      {near(max + ulpAtMax / 2, -1), maxCode},
      {near(max + ulpAtMax / 2, +1), maxCode},
      {near(-(max + ulpAtMax / 2), +1), uint8_t(0x80 | maxCode)},
      {near(max + ulpAtMax), maxCode},
      {near(-(max + ulpAtMax)), uint8_t(0x80 | maxCode)},
      {near(max - ulpAtMax / 2), e4 ? maxCode : uint8_t(maxCode - 1)}, // tie: 0x7E / 0x7A even
      {near(max - ulpAtMax), uint8_t(maxCode - 1)},
      {near(1e30f), maxCode},
      {near(std::numeric_limits<float>::max()), maxCode},
      {near(-std::numeric_limits<float>::max()), uint8_t(0x80 | maxCode)},
      {near(std::numeric_limits<float>::infinity()), maxCode},
      {near(-std::numeric_limits<float>::infinity()), uint8_t(0x80 | maxCode)},
      {near(minNormal), minNormalCode},
      {near(-minNormal), uint8_t(0x80 | minNormalCode)},
      {near(minNormal - minSub / 2), minNormalCode}, // tie: largest subnormal is odd
      {near(minNormal - minSub / 2, -1), uint8_t(minNormalCode - 1)},
      {near(minNormal - minSub), uint8_t(minNormalCode - 1)},
      {near(minSub), 0x01},
      {near(-minSub), 0x81},
      {near(minSub / 2), 0x00}, // tie -> even 0
      {near(-minSub / 2), 0x80},
      {near(minSub / 2, +1), 0x01},
      {near(minSub / 2, -1), 0x00},
      {near(minSub * 1.5f), 0x02}, // tie between 1 and 2 units -> 2
      {near(minSub * 2.5f), 0x02}, // tie between 2 and 3 units -> 2
      {near(minSub / 4), 0x00},
      {near(0.0f), 0x00},
      {near(-0.0f), 0x80},
      {0x00000001u, 0x00}, // f32 denormals
      {0x007FFFFFu, 0x00},
      {0x80000001u, 0x80},
      {0x807FFFFFu, 0x80},
      {0x00800000u, 0x00}, // f32 min normal
      {near(1.0f), one},
      {near(-1.0f), uint8_t(0x80 | one)},
      {near(1.0f + ulpAtOne / 2), one}, // tie -> even
      {near(1.0f + ulpAtOne / 2, +1), uint8_t(one + 1)},
      {near(1.0f + ulpAtOne * 1.5f), uint8_t(one + 2)}, // tie -> even (up)
  };
  for (uint32_t n : kNaNs)
    v.push_back({n, 0x7F}); // every NaN -> +NaN 0x7F: the toolkit drops the sign
  return v;
}

TEST(DTypeFp8, BoundariesMatchExpectedAndToolkit) {
  for (DType t : {kE4M3, kE5M2}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    for (const Boundary &b : boundaries(t)) {
      const float x = fromBits(b.input);
      const uint8_t ours = floatToFp8(x, t);
      EXPECT_EQ(hex(ours), hex(b.expected)) << "input " << hex(b.input) << " (" << x << ")";
#if FP8C_HAVE_CUDA_FP8_H
      EXPECT_EQ(hex(ours), hex(refToFp8(x, t))) << "toolkit, input " << hex(b.input);
#endif
    }
  }
}

/// Independent value of an FP8 byte (NaN for NaN bytes), from the format's definition.
double fp8Value(uint8_t b, DType t) {
  const int man = t == kE4M3 ? 3 : 2, bias = t == kE4M3 ? 7 : 15;
  const int e = (b & 0x7F) >> man, f = b & ((1 << man) - 1);
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  if (t == kE4M3 && (b & 0x7F) == 0x7F)
    return std::numeric_limits<double>::quiet_NaN();
  if (t == kE5M2 && e == 31)
    return f ? std::numeric_limits<double>::quiet_NaN()
             : sign * std::numeric_limits<double>::infinity();
  if (e == 0)
    return sign * std::ldexp(f, 1 - bias - man);
  return sign * std::ldexp((1 << man) + f, e - bias - man);
}

TEST(DTypeFp8, DecodeAllBytes) {
  for (DType t : {kE4M3, kE5M2}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Mismatches ref, value;
    for (int i = 0; i < 256; ++i) {
      const uint8_t b = static_cast<uint8_t>(i);
      const float ours = fp8ToFloat(b, t);
      const double expected = fp8Value(b, t);
      if (std::isnan(expected))
        value.check(b, std::isnan(ours), 1);
      else
        value.check(b, toBits(ours), toBits(static_cast<float>(expected)));
#if FP8C_HAVE_CUDA_FP8_H
      // Bit-exact, NaN included (both give the canonical 0x7FFFFFFF).
      ref.check(b, toBits(ours), toBits(refFp8ToFloat(b, t)));
#endif
    }
    EXPECT_NO_MISMATCH(value, "fp8 -> f32 vs the format's definition");
    EXPECT_NO_MISMATCH(ref, "fp8 -> f32 vs __nv_cvt_fp8_to_halfraw + __half2float");
  }
}

TEST(DTypeFp8, RoundTripIsIdentity) {
  for (DType t : {kE4M3, kE5M2}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    for (int i = 0; i < 256; ++i) {
      const uint8_t b = static_cast<uint8_t>(i);
      const float x = fp8ToFloat(b, t);
      if (std::isnan(x)) {
        EXPECT_EQ(hex(floatToFp8(x, t)), "0x7f") << "NaN byte " << hex(b);
      } else if (std::isinf(x)) {
        // e5m2 +-inf: the saturating conversion maps them to +-max, not back to inf.
        EXPECT_EQ(hex(floatToFp8(x, t)), hex((b & 0x80) | 0x7B)) << "inf byte " << hex(b);
      } else {
        EXPECT_EQ(hex(floatToFp8(x, t)), hex(b)) << "byte " << hex(b);
        EXPECT_EQ(toBits(roundToDType(x, t)), toBits(x)) << "byte " << hex(b);
      }
    }
  }
}

TEST(DTypeFp8, ExhaustiveF32MatchesToolkit) {
  const char *env = std::getenv("FP8C_EXHAUSTIVE");
  if (!env || std::string(env) != "1")
    GTEST_SKIP() << "set FP8C_EXHAUSTIVE=1 to compare all 2^32 f32 inputs";
  SKIP_WITHOUT_TOOLKIT();
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Mismatches> m4(n), m5(n);
  std::vector<std::thread> threads;
  constexpr uint64_t kAll = uint64_t{1} << 32;
  for (unsigned k = 0; k < n; ++k)
    threads.emplace_back(checkRange, kAll * k / n, kAll * (k + 1) / n, std::ref(m4[k]),
                         std::ref(m5[k]));
  for (std::thread &th : threads)
    th.join();
  for (unsigned k = 0; k < n; ++k) { // ranges are ascending: the first failing chunk has the first
    EXPECT_NO_MISMATCH(m4[k], "all f32 -> e4m3");
    EXPECT_NO_MISMATCH(m5[k], "all f32 -> e5m2");
  }
}

} // namespace
} // namespace fp8c
