// Element types and their exact host conversions (see DType.h and docs/numerics.md). Every
// conversion is integer bit manipulation on the IEEE bits, written to be bit-exact with the CUDA
// toolkit's host paths: __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...), __nv_cvt_fp8_to_halfraw
// (widened by __half2float), __float2bfloat16_rn / __bfloat162float and __float2half_rn /
// __half2float. Like the toolkit, every NaN result is the positive canonical NaN of its format
// (the input's sign and payload are dropped), except that bf16 -> f32 keeps the bf16 bits as they
// are. test/unit/ir/DTypeFp8Test.cpp and DTypeWideTest.cpp check this against the toolkit itself.
#include "ir/DType.h"

#include <bit>
#include <cassert>
#include <cstddef>
#include <iterator>

namespace fp8c {
namespace {

constexpr uint32_t kF32AbsMask = 0x7FFFFFFFu;
constexpr uint32_t kF32Inf = 0x7F800000u;
constexpr uint32_t kF32CanonicalNaN = 0x7FFFFFFFu; // what the toolkit widens every NaN to

constexpr DTypeInfo kInfos[] = {
    {"f32", 32, 23, 8, 0x1.fffffep127, -0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-23, true, true},
    {"f16", 16, 10, 5, 65504.0, -65504.0, 0x1p-14, 0x1p-24, 0x1p-10, true, true},
    {"bf16", 16, 7, 8, 0x1.fep127, -0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7, true, true},
    {"f8E4M3FN", 8, 3, 4, 448.0, -448.0, 0x1p-6, 0x1p-9, 0.125, true, false},
    {"f8E5M2", 8, 2, 5, 57344.0, -57344.0, 0x1p-14, 0x1p-16, 0.25, true, true},
    {"i32", 32, 0, 0, 2147483647.0, -2147483648.0, 1.0, 1.0, 1.0, false, false},
};
static_assert(std::size(kInfos) == std::size(kAllDTypes));

/// Rounds the magnitude |x| (f32 bits, finite, sign cleared) to nearest even in a binary format
/// with `ManBits` fraction bits and exponent bias `Bias`, with an unbounded exponent range above:
/// returns the target's magnitude code (exponent field << ManBits | fraction), which may exceed
/// the largest finite code; the caller saturates or overflows it.
template <int ManBits, int Bias> constexpr uint32_t roundMagnitude(uint32_t abs) {
  constexpr int kShift = 23 - ManBits; // f32 fraction bits dropped for a normal result
  const int f32Exp = static_cast<int>(abs >> 23);
  const int exp = f32Exp - 127 + Bias; // target biased exponent
  uint32_t v;
  int shift;
  if (exp >= 1) {
    // Normal in the target: re-bias the exponent in place and drop kShift fraction bits; a
    // rounding carry out of the fraction correctly increments the exponent.
    v = (static_cast<uint32_t>(exp) << 23) | (abs & 0x007FFFFFu);
    shift = kShift;
  } else {
    // Subnormal in the target: the significand, implicit bit included, is shifted right by
    // 1 - exp more. A rounding carry into bit ManBits yields the min normal code, as it should.
    if (f32Exp == 0)
      return 0; // below 2^-126: far below half the min subnormal of every target here
    v = (abs & 0x007FFFFFu) | 0x00800000u;
    shift = kShift + 1 - exp;
    if (shift > 24)
      return 0; // v < 2^24 <= half an ulp: rounds to zero
  }
  const uint32_t r = v >> shift;
  const uint32_t rem = v & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  return r + ((rem > half || (rem == half && (r & 1u))) ? 1u : 0u);
}

/// f32 -> saturating FP8 (the __NV_SATFINITE conversion).
template <int ManBits, int Bias, uint32_t MaxCode> constexpr uint8_t toFp8(uint32_t bits) {
  const uint32_t abs = bits & kF32AbsMask;
  if (abs > kF32Inf)
    return 0x7F; // the toolkit canonicalises NaN to +NaN before converting (both formats)
  const uint32_t sign = (bits >> 24) & 0x80u;
  if (abs == kF32Inf)
    return static_cast<uint8_t>(sign | MaxCode);
  uint32_t mag = roundMagnitude<ManBits, Bias>(abs);
  if (mag > MaxCode)
    mag = MaxCode;
  return static_cast<uint8_t>(sign | mag);
}

/// FP8 byte -> f32 bits, exact. NaN bytes give the canonical f32 NaN (as the toolkit does).
template <int ManBits, int Bias, bool FiniteOnly> constexpr uint32_t fp8Bits(uint8_t b) {
  constexpr uint32_t kManMask = (1u << ManBits) - 1u;
  constexpr uint32_t kExpMax = (1u << (7 - ManBits)) - 1u;
  const uint32_t sign = static_cast<uint32_t>(b & 0x80u) << 24;
  const uint32_t exp = (b >> ManBits) & kExpMax;
  const uint32_t man = b & kManMask;
  if (FiniteOnly ? (b & 0x7Fu) == 0x7Fu : (exp == kExpMax && man != 0))
    return kF32CanonicalNaN;
  if (!FiniteOnly && exp == kExpMax)
    return sign | kF32Inf;
  if (exp == 0) {
    if (man == 0)
      return sign;
    // Subnormal man * 2^(1 - Bias - ManBits): normalise on the leading bit p.
    const int p = std::bit_width(man) - 1;
    const uint32_t f32Exp = static_cast<uint32_t>(127 + 1 - Bias - ManBits + p);
    return sign | (f32Exp << 23) | ((man ^ (1u << p)) << (23 - p));
  }
  return sign | ((exp + 127 - Bias) << 23) | (man << (23 - ManBits));
}

template <int ManBits, int Bias, bool FiniteOnly> struct Fp8Table {
  uint32_t bits[256];
  constexpr Fp8Table() : bits() {
    for (int i = 0; i < 256; ++i)
      bits[i] = fp8Bits<ManBits, Bias, FiniteOnly>(static_cast<uint8_t>(i));
  }
};
constexpr Fp8Table<3, 7, true> kE4M3ToF32;
constexpr Fp8Table<2, 15, false> kE5M2ToF32;

/// Truncates toward zero into i32, saturating; NaN -> 0.
int32_t toI32(float x) {
  if (x != x)
    return 0;
  if (x >= 0x1p31f)
    return INT32_MAX;
  if (x < -0x1p31f)
    return INT32_MIN;
  return static_cast<int32_t>(x);
}

} // namespace

const DTypeInfo &dtypeInfo(DType t) {
  const auto i = static_cast<size_t>(t);
  assert(i < std::size(kInfos) && "invalid DType");
  return kInfos[i];
}

std::string_view dtypeName(DType t) { return dtypeInfo(t).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtypeInfo(t).name == name)
      return t;
  return std::nullopt;
}

bool isFloat8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

bool isFloat(DType t) { return dtypeInfo(t).isFloat; }

int dtypeBytes(DType t) { return dtypeInfo(t).bits / 8; }

uint8_t floatToFp8(float x, DType t) {
  assert(isFloat8(t) && "floatToFp8 needs an FP8 dtype");
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  return t == DType::F8E4M3FN ? toFp8<3, 7, 0x7E>(bits) : toFp8<2, 15, 0x7B>(bits);
}

float fp8ToFloat(uint8_t bits, DType t) {
  assert(isFloat8(t) && "fp8ToFloat needs an FP8 dtype");
  return std::bit_cast<float>(t == DType::F8E4M3FN ? kE4M3ToF32.bits[bits] : kE5M2ToF32.bits[bits]);
}

uint16_t floatToBf16(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & kF32AbsMask) > kF32Inf)
    return 0x7FFF; // toolkit: canonical NaN, sign dropped
  // Drop the low 16 bits, round to nearest even; the carry handles exponent steps and overflow
  // (0x7F7F8000 and above round to inf).
  const uint32_t r = bits >> 16;
  const uint32_t rem = bits & 0xFFFFu;
  return static_cast<uint16_t>(r + ((rem > 0x8000u || (rem == 0x8000u && (r & 1u))) ? 1u : 0u));
}

float bf16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t floatToHalf(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t abs = bits & kF32AbsMask;
  if (abs > kF32Inf)
    return 0x7FFF; // toolkit: canonical NaN, sign dropped
  const uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t mag = abs == kF32Inf ? 0x7C00u : roundMagnitude<10, 15>(abs);
  if (mag > 0x7C00u)
    mag = 0x7C00u; // overflow to inf
  return static_cast<uint16_t>(sign | mag);
}

float halfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1Fu;
  const uint32_t man = bits & 0x3FFu;
  uint32_t out;
  if (exp == 0x1F) {
    out = man != 0 ? kF32CanonicalNaN : (sign | kF32Inf);
  } else if (exp != 0) {
    out = sign | ((exp + 127 - 15) << 23) | (man << 13);
  } else if (man == 0) {
    out = sign;
  } else {
    const int p = std::bit_width(man) - 1; // man * 2^-24 = 2^(p-24) * 1.fraction
    out = sign | (static_cast<uint32_t>(127 - 24 + p) << 23) | ((man ^ (1u << p)) << (23 - p));
  }
  return std::bit_cast<float>(out);
}

float roundToDType(float x, DType t) {
  switch (t) {
  case DType::F32:
    return x;
  case DType::F16:
    return halfToFloat(floatToHalf(x));
  case DType::BF16:
    return bf16ToFloat(floatToBf16(x));
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return fp8ToFloat(floatToFp8(x, t), t);
  case DType::I32:
    return static_cast<float>(toI32(x));
  }
  assert(false && "invalid DType");
  return x;
}

uint32_t encodeBits(float x, DType t) {
  switch (t) {
  case DType::F32:
    return std::bit_cast<uint32_t>(x);
  case DType::F16:
    return floatToHalf(x);
  case DType::BF16:
    return floatToBf16(x);
  case DType::F8E4M3FN:
    return floatToFp8(x, t);
  case DType::F8E5M2:
    // Storage, not rounding: e5m2 stores +-inf as themselves (floatToFp8 saturates them).
    if (std::bit_cast<uint32_t>(x) << 1 == kF32Inf << 1)
      return x < 0 ? 0xFCu : 0x7Cu;
    return floatToFp8(x, t);
  case DType::I32:
    return static_cast<uint32_t>(toI32(x));
  }
  assert(false && "invalid DType");
  return 0;
}

float decodeBits(uint32_t bits, DType t) {
  switch (t) {
  case DType::F32:
    return std::bit_cast<float>(bits);
  case DType::F16:
    return halfToFloat(static_cast<uint16_t>(bits));
  case DType::BF16:
    return bf16ToFloat(static_cast<uint16_t>(bits));
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return fp8ToFloat(static_cast<uint8_t>(bits), t);
  case DType::I32:
    return static_cast<float>(static_cast<int32_t>(bits));
  }
  assert(false && "invalid DType");
  return 0.0f;
}

} // namespace fp8c
