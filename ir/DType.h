// Element types of the fp8c IR and their exact host conversions.
//
// fp8c's numerics are defined by these functions: the interpreter, the passes' constant
// folding and the tests all round through them. They are bit-exact with the CUDA toolkit's
// conversions:
//   - to FP8: __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3 / __NV_E5M2): round to nearest
//     even, finite values beyond the range saturate to +-max, +-inf saturate to +-max, every NaN
//     becomes 0x7F in both formats (the toolkit drops a NaN's sign), subnormals are kept, signed
//     zero is kept;
//   - from FP8: __nv_cvt_fp8_to_halfraw widened by __half2float (every FP8 value is exact in f16
//     and f32; NaN bytes become the f32 NaN 0x7FFFFFFF);
//   - to bf16 / f16: __float2bfloat16_rn / __float2half_rn: round to nearest even, overflow to inf,
//     every NaN becomes 0x7FFF (sign and payload dropped, as the toolkit does);
//   - from f16: __half2float (NaN -> 0x7FFFFFFF); from bf16: the bits shifted up (payload kept).
// Nothing here includes a CUDA header: ir/ builds without the toolkit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fp8c {

/// Element type of a tensor. Names are MLIR's builtin type names.
enum class DType : uint8_t { F32, F16, BF16, F8E4M3FN, F8E5M2, I32 };

/// Every dtype, in the order --dtype-info prints them.
inline constexpr DType kAllDTypes[] = {DType::F32,      DType::F16,    DType::BF16,
                                       DType::F8E4M3FN, DType::F8E5M2, DType::I32};

/// Static facts of a dtype. For integer types max/lowest/minNormal/minSubnormal/eps are the
/// integer range (minNormal = minSubnormal = eps = 1).
struct DTypeInfo {
  std::string_view name; ///< MLIR spelling: "f32", "bf16", "f8E4M3FN", ...
  int bits;              ///< storage width
  int mantissaBits;      ///< explicit fraction bits (0 for integers)
  int exponentBits;      ///< exponent field width (0 for integers)
  double max;            ///< largest finite value
  double lowest;         ///< most negative finite value (= -max for floats)
  double minNormal;      ///< smallest positive normal
  double minSubnormal;   ///< smallest positive subnormal
  double eps;            ///< distance from 1.0 to the next larger value
  bool isFloat;
  bool hasInf;           ///< false for f8E4M3FN
};

const DTypeInfo &dtypeInfo(DType t);
std::string_view dtypeName(DType t);
/// Parses an MLIR type name ("bf16", "f8E4M3FN", "i32", ...); nullopt for anything else.
std::optional<DType> parseDType(std::string_view name);
bool isFloat8(DType t);
bool isFloat(DType t);
/// Bytes of one element.
int dtypeBytes(DType t);

// --- bit-exact conversions ---------------------------------------------------------------

/// f32 -> FP8 (t is F8E4M3FN or F8E5M2), saturating, round to nearest even.
uint8_t floatToFp8(float x, DType t);
/// FP8 bits -> f32 (exact).
float fp8ToFloat(uint8_t bits, DType t);
/// f32 -> bf16 bits, round to nearest even (NaN -> 0x7FFF, as __float2bfloat16_rn).
uint16_t floatToBf16(float x);
float bf16ToFloat(uint16_t bits);
/// f32 -> IEEE binary16 bits, round to nearest even, overflow to inf (NaN -> 0x7FFF).
uint16_t floatToHalf(float x);
float halfToFloat(uint16_t bits);

/// Rounds an f32 value to dtype t and widens it back to f32: the "one rounding to the result
/// dtype" every op performs. F32 is the identity; I32 truncates toward zero (saturating).
float roundToDType(float x, DType t);

/// Storage bits of x (which must already be representable in t) and back. Used by .npy I/O.
/// Values that are not representable are rounded as roundToDType does; +-inf encode as e5m2's
/// inf (0x7C / 0xFC) rather than saturating, so every e5m2 byte but NaN survives a round trip.
uint32_t encodeBits(float x, DType t);
float decodeBits(uint32_t bits, DType t);

} // namespace fp8c
