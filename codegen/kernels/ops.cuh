// The pointwise ops of the fp8c IR on one f32 element, written as the CPU interpreter computes
// them (interp/PointwiseOps.cpp, QuantOps.cpp): f32 arithmetic with every product, sum
// and quotient rounded on its own (the _rn intrinsics are never contracted into FMAs), in the
// interpreter's order of evaluation. Generated code wraps each op in roundTo<result dtype>, the
// single rounding every op performs. erff and expf are CUDA's accurate versions, which may
// differ from the host's libm in the last place. The tanh GELU, SiLU and their derivatives are
// the exception: they are computed through the logistic function, 0.5 (1 + tanh(u)) =
// 1 / (1 + exp(-2u)), with the fast exp2 and reciprocal (a few ulp of f32, and no cancellation
// in the negative tail, where 1 + tanh(u) loses digits), because the accurate tanhf / expf made
// the GELU and SiLU launches compute-bound (H200: the MLP's GELU cast-transpose at 1.6 TB/s
// against 2.5 TB/s for a plain cast-transpose). The tanh GELU and its derivative also fold
// their constants into fused multiply-adds (H200, the two kernels timed alternately in one process:
// the delayed MLP's GELU cast-transpose 173 -> 164 us, gelu_grad 243 -> 228 us). Their bf16 / f32
// results can differ from the interpreter's in the last bit; the GPU tests bound the difference.
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

/// 1 / (1 + exp(-z)) with the fast exp2 and reciprocal: 0 for z below about -87 (1 + exp(-z)
/// past 2^126), NaN for NaN. The flush-to-zero forms are one instruction each and give the
/// same results as __expf / __fdividef: a subnormal exp2 result (or input) only meets 1 + e,
/// which is 1 either way, and 1 / d is subnormal only where __fdividef returns 0 too.
__device__ __forceinline__ float logistic(float z) {
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(__fmul_rn(z, -1.4426950408889634f)));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__fadd_rn(1.0f, e)));
  return r;
}

/// 2^z with the fast exp2 (flush-to-zero: see logistic).
__device__ __forceinline__ float fastExp2(float z) {
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(z));
  return e;
}

/// 1 / d with the fast reciprocal (flush-to-zero: see logistic).
__device__ __forceinline__ float fastRcp(float d) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
  return r;
}

// The tanh GELU's constants, folded for the exp2 form: logistic(2u) = 1 / (1 + 2^z) with
// z = -2 log2(e) u = x (kGeluA + kGeluB x^2), u = sqrt(2/pi) (x + 0.044715 x^3).
constexpr float kGeluA = -2.0f * 1.4426950408889634f * 0.7978845608028654f;
constexpr float kGeluB = kGeluA * 0.044715f;

/// 0.5 x (1 + tanh(u)) = x / (1 + 2^z), in fused multiply-adds.
__device__ __forceinline__ float geluTanh(float x) {
  const float z = x * fmaf(kGeluB, x * x, kGeluA);
  return x * fastRcp(1.0f + fastExp2(z));
}

/// x / (1 + exp(-x)) = x * logistic(x)
__device__ __forceinline__ float silu(float x) { return __fmul_rn(x, logistic(x)); }

/// silu(a) * b
__device__ __forceinline__ float swiglu(float a, float b) { return __fmul_rn(silu(a), b); }

// --- derivatives (interp/GradOps.cpp, in its order of evaluation) ---------------------

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

/// d/dx of 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3): with s = logistic(2u) =
/// 0.5 (1 + tanh(u)) and 1 - tanh(u)^2 = 4 s (1 - s), it is s + x s (1 - s) 2u', in fused
/// multiply-adds (2u' = 2 sqrt(2/pi) (1 + 3 * 0.044715 x^2)).
__device__ __forceinline__ float geluTanhDeriv(float x) {
  constexpr float kDu0 = 2.0f * 0.7978845608028654f, kDu2 = kDu0 * 3.0f * 0.044715f;
  const float x2 = x * x;
  const float s = fastRcp(1.0f + fastExp2(x * fmaf(kGeluB, x2, kGeluA)));
  const float du2 = fmaf(kDu2, x2, kDu0);
  const float ss = fmaf(-s, s, s); // s (1 - s)
  return fmaf(x * ss, du2, s);
}

/// sg (1 + x (1 - sg)), sg = logistic(x)
__device__ __forceinline__ float siluDeriv(float x) {
  const float sg = logistic(x);
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
