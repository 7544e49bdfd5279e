// Internal to the CPU interpreter (interp/Interpreter.cpp): the per-op implementations and the
// numeric helpers they share. Interpreter.cpp checks every op's concrete operand types with
// TypeRules before calling these, so they may rely on well-formed shapes.
#pragma once

// No fused multiply-add anywhere in the interpreter: every f32 operation of an op's formula
// rounds on its own (IR.h semantics). GCC contracts a*b+c into an FMA by default wherever the
// target has one (aarch64, or x86-64 with -mfma / -march=native), also in ISO C++ mode; clang
// contracts within an expression. Each interp/*.cpp includes this header first.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "ir/IR.h"
#include "ir/Status.h"
#include "ir/TypeRules.h"
#include "interp/HostTensor.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace fp8c::interp {

/// What an op implementation gets: the op (for attributes), its operands' values, and its
/// result type with every dim concrete.
struct OpContext {
  const Op &op;
  std::vector<const HostTensor *> args;
  TensorType result;
  unsigned threads; ///< GEMM threads, >= 1
};

/// The canonical NaN every op result uses (the CUDA toolkit's 0x7FFFFFFF).
inline float canonicalNaN() { return std::bit_cast<float>(0x7FFFFFFFu); }

/// The single rounding of an op's f32 result to its dtype; NaN becomes canonicalNaN().
inline float finish(float x, DType t) {
  if (x != x)
    return canonicalNaN();
  return roundToDType(x, t);
}

/// THE accumulation order of linear, matmul and scaled_matmul (IR.h, normative): the product
/// a[k]*b[k] is added to partial sum k mod 8, each partial sum starting at +0, and the partial
/// sums are added pairwise at the end: ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)). Each product is
/// rounded to f32 before it is added (no FMA: see the pragma above). For f16 / bf16 / FP8
/// operands the product is exact, so a GPU's FMA gives the same sums.
inline float dotF32(const float *a, const float *b, int64_t n) {
  float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    float p[8];
    for (int j = 0; j < 8; ++j)
      p[j] = a[k + j] * b[k + j];
    for (int j = 0; j < 8; ++j)
      s[j] += p[j];
  }
  const int64_t rest = n - k; // < 8: element k + j goes to partial sum j = (k + j) mod 8
  for (int j = 0; j < 8; ++j)
    if (j < rest) {
      const float p = a[k + j] * b[k + j];
      s[j] += p;
    }
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/// fp8.scale's formula for one amax (see Interpreter.h for the order of its steps).
float scaleFromAmax(float amax, DType fp8, int64_t margin, bool pow2);

/// NaN-propagating max |x| over x[0..n) (0 for n == 0); the result is canonical NaN or exact.
float absMax(const float *x, int64_t n);

/// Index of the scale element that covers x[r, c] of a [R, C] tensor (any r, c for Tensor).
int64_t scaleIndex(Granularity g, int64_t r, int64_t c, int64_t cols);

/// Calls body(begin, end) over [0, n) split into at most `threads` contiguous chunks, on that
/// many threads (the calling thread takes the first chunk); runs inline when threads <= 1.
void parallelFor(int64_t n, unsigned threads, const std::function<void(int64_t, int64_t)> &body);

// Op implementations, one per OpKind without a region. Each returns the result tensor.
Expected<HostTensor> runLinear(const OpContext &c);
Expected<HostTensor> runMatmul(const OpContext &c);
Expected<HostTensor> runScaledMatmul(const OpContext &c);
Expected<HostTensor> runPointwise(const OpContext &c); // add mul relu gelu silu swiglu convert
Expected<HostTensor> runTranspose(const OpContext &c);
Expected<HostTensor> runActivationGrad(const OpContext &c); // relu/gelu/silu/swiglu _grad
Expected<HostTensor> runColSum(const OpContext &c);
Expected<HostTensor> runAmax(const OpContext &c);
Expected<HostTensor> runScale(const OpContext &c);
Expected<HostTensor> runCast(const OpContext &c);
Expected<HostTensor> runDequant(const OpContext &c);
Expected<HostTensor> runHistoryScale(const OpContext &c);
Expected<HostTensor> runHistoryPush(const OpContext &c);

} // namespace fp8c::interp
