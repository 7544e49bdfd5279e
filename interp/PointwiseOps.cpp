// Pointwise ops and transpose of the CPU interpreter. Each element is computed in f32 (libm's
// float functions for erf / tanh / exp) and rounded once to the result dtype.
#include "interp/InterpOps.h"

#include <numbers>

namespace fp8c::interp {
namespace {

constexpr float kSqrt2 = std::numbers::sqrt2_v<float>;
constexpr float kSqrt2OverPi = 0.7978845608028654f; // sqrt(2 / pi)

float relu(float x) {
  if (x != x)
    return x;
  return x > 0.0f ? x : 0.0f;
}

// 0.5 x (1 + erf(x / sqrt 2))
float geluErf(float x) { return 0.5f * x * (1.0f + std::erf(x / kSqrt2)); }

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
float geluTanh(float x) {
  const float inner = kSqrt2OverPi * (x + 0.044715f * (x * x * x));
  return 0.5f * x * (1.0f + std::tanh(inner));
}

// x / (1 + exp(-x))
float silu(float x) { return x / (1.0f + std::exp(-x)); }

template <typename F> HostTensor unary(const OpContext &c, F f) {
  const HostTensor &x = *c.args[0];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  for (size_t i = 0; i < y.data.size(); ++i)
    y.data[i] = finish(f(x.data[i]), dt);
  return y;
}

// Equal shapes, or one operand of rank 0 broadcast over the other.
template <typename F> HostTensor binary(const OpContext &c, F f) {
  const HostTensor &a = *c.args[0], &b = *c.args[1];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  const bool aScalar = a.data.size() == 1 && a.rank() == 0;
  const bool bScalar = b.data.size() == 1 && b.rank() == 0;
  for (size_t i = 0; i < y.data.size(); ++i) {
    const float av = a.data[aScalar ? 0 : i], bv = b.data[bScalar ? 0 : i];
    y.data[i] = finish(f(av, bv), dt);
  }
  return y;
}

} // namespace

Expected<HostTensor> runPointwise(const OpContext &c) {
  switch (c.op.kind()) {
  case OpKind::Add:
    return binary(c, [](float a, float b) { return a + b; });
  case OpKind::Mul:
    return binary(c, [](float a, float b) { return a * b; });
  case OpKind::Swiglu:
    return binary(c, [](float a, float b) { return silu(a) * b; });
  case OpKind::Relu:
    return unary(c, relu);
  case OpKind::Silu:
    return unary(c, silu);
  case OpKind::Gelu: {
    const std::string approx = c.op.strAttr("approximate");
    if (approx == "tanh")
      return unary(c, geluTanh);
    if (approx == "none")
      return unary(c, geluErf);
    return Error("fp8.gelu: unknown approximate = \"" + approx + "\"");
  }
  case OpKind::Convert:
    return unary(c, [](float x) { return x; });
  default:
    return Error("internal error: " + std::string(c.op.name()) + " is not a pointwise op");
  }
}

Expected<HostTensor> runTranspose(const OpContext &c) {
  const HostTensor &x = *c.args[0];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const int64_t r = x.shape[0], cols = x.shape[1];
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < cols; ++j)
      y.data[static_cast<size_t>(j * r + i)] = x.data[static_cast<size_t>(i * cols + j)];
  return y;
}

} // namespace fp8c::interp
