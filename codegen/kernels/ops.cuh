// The pointwise ops of the fp8c IR on one f32 element, written as the CPU interpreter computes
// them (runtime/interp/PointwiseOps.cpp, QuantOps.cpp): f32 arithmetic with every product, sum
// and quotient rounded on its own (the _rn intrinsics are never contracted into FMAs), in the
// interpreter's order of evaluation. Generated code wraps each op in roundTo<result dtype>, the
// single rounding every op performs. erff / tanhf / expf are CUDA's accurate versions, which
// may differ from the host's libm in the last place; everything else is exact.
#pragma once

#include "fp8c/common.cuh"

namespace fp8c {
namespace op {

__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }

/// max(x, 0); NaN stays NaN.
__device__ __forceinline__ float relu(float x) {
  if (isNaN(x))
    return x;
  return x > 0.0f ? x : 0.0f;
}

/// 0.5 x (1 + erf(x / sqrt 2))
__device__ __forceinline__ float geluErf(float x) {
  const float kSqrt2 = 1.41421353816986083984375f; // std::numbers::sqrt2_v<float>
  return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, erff(__fdiv_rn(x, kSqrt2))));
}

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
__device__ __forceinline__ float geluTanh(float x) {
  const float kSqrt2OverPi = 0.7978845608028654f;
  const float cube = __fmul_rn(__fmul_rn(x, x), x);
  const float inner = __fmul_rn(kSqrt2OverPi, __fadd_rn(x, __fmul_rn(0.044715f, cube)));
  return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, tanhf(inner)));
}

/// x / (1 + exp(-x))
__device__ __forceinline__ float silu(float x) { return __fdiv_rn(x, __fadd_rn(1.0f, expf(-x))); }

/// silu(a) * b
__device__ __forceinline__ float swiglu(float a, float b) { return __fmul_rn(silu(a), b); }

// --- derivatives (runtime/interp/GradOps.cpp, in its order of evaluation) ---------------------

/// dy * relu'(x); NaN in x propagates, dy * 0 keeps NaN / inf of dy as the interpreter does.
__device__ __forceinline__ float reluGrad(float dy, float x) {
  if (isNaN(x))
    return x;
  return x > 0.0f ? dy : __fmul_rn(0.0f, dy);
}

/// Phi(x) + x phi(x)
__device__ __forceinline__ float geluErfDeriv(float x) {
  const float kSqrt2 = 1.41421353816986083984375f;   // std::numbers::sqrt2_v<float>
  const float kInvSqrt2Pi = 0.3989422804014327f;      // 1 / sqrt(2 pi)
  const float cdf = __fmul_rn(0.5f, __fadd_rn(1.0f, erff(__fdiv_rn(x, kSqrt2))));
  const float pdf = __fmul_rn(kInvSqrt2Pi, expf(__fmul_rn(-0.5f, __fmul_rn(x, x))));
  return __fadd_rn(cdf, __fmul_rn(x, pdf));
}

/// d/dx of 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
__device__ __forceinline__ float geluTanhDeriv(float x) {
  const float kSqrt2OverPi = 0.7978845608028654f;
  const float x2 = __fmul_rn(x, x);
  const float u = __fmul_rn(kSqrt2OverPi, __fadd_rn(x, __fmul_rn(0.044715f, __fmul_rn(x2, x))));
  const float t = tanhf(u);
  const float du = __fmul_rn(kSqrt2OverPi, __fadd_rn(1.0f, __fmul_rn(3.0f * 0.044715f, x2)));
  return __fadd_rn(__fmul_rn(0.5f, __fadd_rn(1.0f, t)),
                   __fmul_rn(__fmul_rn(0.5f, x), __fmul_rn(__fsub_rn(1.0f, __fmul_rn(t, t)), du)));
}

/// sg (1 + x (1 - sg)), sg = 1 / (1 + exp(-x))
__device__ __forceinline__ float siluDeriv(float x) {
  const float sg = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-x)));
  return __fmul_rn(sg, __fadd_rn(1.0f, __fmul_rn(x, __fsub_rn(1.0f, sg))));
}

__device__ __forceinline__ float geluTanhGrad(float dy, float x) {
  return __fmul_rn(dy, geluTanhDeriv(x));
}
__device__ __forceinline__ float geluErfGrad(float dy, float x) {
  return __fmul_rn(dy, geluErfDeriv(x));
}
__device__ __forceinline__ float siluGrad(float dy, float x) { return __fmul_rn(dy, siluDeriv(x)); }
/// swiglu_grad {wrt = "gate"}: (dy * b) * silu'(a)
__device__ __forceinline__ float swigluGradGate(float dy, float a, float b) {
  return __fmul_rn(__fmul_rn(dy, b), siluDeriv(a));
}
/// swiglu_grad {wrt = "up"}: dy * silu(a)
__device__ __forceinline__ float swigluGradUp(float dy, float a) { return __fmul_rn(dy, silu(a)); }

/// fp8.cast before its rounding: x * s.
__device__ __forceinline__ float quantize(float x, float s) { return __fmul_rn(x, s); }

/// fp8.dequant before its rounding: q / s.
__device__ __forceinline__ float dequantize(float q, float s) { return __fdiv_rn(q, s); }

/// fp8.scale of one amax.
template <Dt F8> __device__ __forceinline__ float scale(float amax, int margin, bool pow2) {
  return scaleFromAmax<F8>(amax, margin, pow2);
}

} // namespace op
} // namespace fp8c
