// The training ops of the CPU interpreter (IR.h): activation derivatives (relu_grad,
// gelu_grad, silu_grad, swiglu_grad), each computed in f32 from its operands and rounded once,
// and col_sum, the bias gradient, summing rows in order into one f32 sum per column.
#include "interp/InterpOps.h"

#include <numbers>

namespace fp8c::interp {
namespace {

constexpr float kSqrt2 = std::numbers::sqrt2_v<float>;
constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kInvSqrt2Pi = 0.3989422804014327f;   // 1 / sqrt(2 pi)

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// relu'(x) times dy; NaN in x propagates.
float reluGrad(float dy, float x) {
  if (x != x)
    return x;
  return x > 0.0f ? dy : 0.0f * dy;
}

// Phi(x) + x phi(x), Phi the normal CDF, phi its density.
float geluErfDeriv(float x) {
  const float cdf = 0.5f * (1.0f + std::erf(x / kSqrt2));
  const float pdf = kInvSqrt2Pi * std::exp(-0.5f * (x * x));
  return cdf + x * pdf;
}

// d/dx of 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3).
float geluTanhDeriv(float x) {
  const float x2 = x * x;
  const float u = kSqrt2OverPi * (x + 0.044715f * (x2 * x));
  const float t = std::tanh(u);
  const float du = kSqrt2OverPi * (1.0f + (3.0f * 0.044715f) * x2);
  return 0.5f * (1.0f + t) + (0.5f * x) * ((1.0f - t * t) * du);
}

// silu'(x) = sg (1 + x (1 - sg)).
float siluDeriv(float x) {
  const float sg = sigmoid(x);
  return sg * (1.0f + x * (1.0f - sg));
}

float siluValue(float x) { return x / (1.0f + std::exp(-x)); }

template <typename F> HostTensor elementwise(const OpContext &c, F f) {
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  const size_t nargs = c.args.size();
  for (size_t i = 0; i < y.data.size(); ++i) {
    float v[3] = {0.0f, 0.0f, 0.0f};
    for (size_t a = 0; a < nargs; ++a)
      v[a] = c.args[a]->data[i];
    y.data[i] = finish(f(v[0], v[1], v[2]), dt);
  }
  return y;
}

} // namespace

Expected<HostTensor> runActivationGrad(const OpContext &c) {
  switch (c.op.kind()) {
  case OpKind::ReluGrad:
    return elementwise(c, [](float dy, float x, float) { return reluGrad(dy, x); });
  case OpKind::GeluGrad: {
    const std::string approx = c.op.strAttr("approximate");
    if (approx == "tanh")
      return elementwise(c, [](float dy, float x, float) { return dy * geluTanhDeriv(x); });
    if (approx == "none")
      return elementwise(c, [](float dy, float x, float) { return dy * geluErfDeriv(x); });
    return Error("fp8.gelu_grad: unknown approximate = \"" + approx + "\"");
  }
  case OpKind::SiluGrad:
    return elementwise(c, [](float dy, float x, float) { return dy * siluDeriv(x); });
  case OpKind::SwigluGrad: {
    const std::string wrt = c.op.strAttr("wrt");
    if (wrt == "gate")
      return elementwise(c, [](float dy, float a, float b) { return (dy * b) * siluDeriv(a); });
    if (wrt == "up")
      return elementwise(c, [](float dy, float a, float) { return dy * siluValue(a); });
    return Error("fp8.swiglu_grad: unknown wrt = \"" + wrt + "\"");
  }
  default:
    return Error("internal error: " + std::string(c.op.name()) + " is not a derivative op");
  }
}

Expected<HostTensor> runColSum(const OpContext &c) {
  const HostTensor &x = *c.args[0];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const int64_t cols = x.shape.back();
  const int64_t rows = cols == 0 ? 0 : static_cast<int64_t>(x.data.size()) / cols;
  std::vector<float> acc(static_cast<size_t>(cols), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j)
      acc[static_cast<size_t>(j)] += x.data[static_cast<size_t>(r * cols + j)];
  for (int64_t j = 0; j < cols; ++j)
    y.data[static_cast<size_t>(j)] = finish(acc[static_cast<size_t>(j)], y.dtype);
  return y;
}

} // namespace fp8c::interp
