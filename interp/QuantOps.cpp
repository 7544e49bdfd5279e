// Quantization ops of the CPU interpreter: fp8.amax, fp8.scale, fp8.cast, fp8.dequant, and the
// scale formula they share with fp8.history_scale. Amax and scales are exact f32 values (amax
// is a max of exact magnitudes; the scale formula rounds once, in its f32 division).
#include "interp/InterpOps.h"

#include <algorithm>
#include <cfloat>

namespace fp8c::interp {
namespace {

Granularity granularityOf(const Op &op) {
  return parseGranularity(op.strAttr("granularity")).value_or(Granularity::Tensor);
}

// Rounds |s| down to a power of two, keeping the sign; 0, inf and NaN stay as they are.
float roundDownPow2(float s) {
  if (s == 0.0f || !std::isfinite(s))
    return s;
  int e = 0;
  (void)std::frexp(s, &e); // s = f * 2^e, 0.5 <= |f| < 1
  return std::ldexp(std::copysign(0.5f, s), e);
}

// Rows and columns of x as the granularities see it (a non-2-D x only has Tensor).
void rowsCols(const HostTensor &x, int64_t &rows, int64_t &cols) {
  if (x.rank() == 2) {
    rows = x.shape[0];
    cols = x.shape[1];
  } else {
    rows = 1;
    cols = x.numElements();
  }
}

} // namespace

float scaleFromAmax(float amax, DType fp8, int64_t margin, bool pow2) {
  if (!std::isfinite(amax))
    return canonicalNaN();
  if (amax == 0.0f)
    return 1.0f;
  const float fmax = static_cast<float>(dtypeInfo(fp8).max);
  const int m = static_cast<int>(std::clamp<int64_t>(margin, -1000, 1000));
  float s = std::ldexp(fmax / amax, -m);
  if (std::isinf(s))
    s = std::copysign(FLT_MAX, s);
  if (pow2)
    s = roundDownPow2(s);
  return s;
}

float absMax(const float *x, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float a = std::fabs(x[i]);
    if (a != a)
      return canonicalNaN();
    if (a > m)
      m = a;
  }
  return m;
}

int64_t scaleIndex(Granularity g, int64_t r, int64_t c, int64_t cols) {
  switch (g) {
  case Granularity::Tensor:
    return 0;
  case Granularity::Row:
    return r;
  case Granularity::Col:
    return c;
  case Granularity::Block1x128:
    return r * ((cols + 127) / 128) + c / 128;
  case Granularity::Block128x128:
    return (r / 128) * ((cols + 127) / 128) + c / 128;
  }
  return 0;
}

Expected<HostTensor> runAmax(const OpContext &c) {
  const HostTensor &x = *c.args[0];
  const Granularity g = granularityOf(c.op);
  HostTensor y = HostTensor::make(c.result.shape(), DType::F32);
  if (g == Granularity::Tensor) {
    y.data[0] = absMax(x.data.data(), x.numElements());
    return y;
  }
  int64_t rows = 0, cols = 0;
  rowsCols(x, rows, cols);
  // Every group's max starts at 0; a NaN element makes its group NaN for good.
  std::vector<bool> isNaN(y.data.size(), false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < cols; ++col) {
      const size_t gi = static_cast<size_t>(scaleIndex(g, r, col, cols));
      const float a = std::fabs(x.data[static_cast<size_t>(r * cols + col)]);
      if (a != a)
        isNaN[gi] = true;
      else if (a > y.data[gi])
        y.data[gi] = a;
    }
  for (size_t i = 0; i < y.data.size(); ++i)
    if (isNaN[i])
      y.data[i] = canonicalNaN();
  return y;
}

Expected<HostTensor> runScale(const OpContext &c) {
  const HostTensor &amax = *c.args[0];
  const DType fp8 = c.op.dtypeAttr("dtype");
  if (!isFloat8(fp8))
    return Error("fp8.scale: dtype must be f8E4M3FN or f8E5M2");
  const int64_t margin = c.op.intAttr("margin");
  const bool pow2 = c.op.boolAttr("pow2");
  HostTensor y = HostTensor::make(c.result.shape(), DType::F32);
  for (size_t i = 0; i < y.data.size(); ++i)
    y.data[i] = scaleFromAmax(amax.data[i], fp8, margin, pow2);
  return y;
}

// q = x * s (cast) or x / s (dequant), s broadcast over its group, rounded to the result dtype.
template <bool Multiply> HostTensor applyScale(const OpContext &c) {
  const HostTensor &x = *c.args[0], &s = *c.args[1];
  const Granularity g = granularityOf(c.op);
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  int64_t rows = 0, cols = 0;
  rowsCols(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < cols; ++col) {
      const size_t i = static_cast<size_t>(r * cols + col);
      const float sv = s.data[static_cast<size_t>(scaleIndex(g, r, col, cols))];
      y.data[i] = finish(Multiply ? x.data[i] * sv : x.data[i] / sv, dt);
    }
  return y;
}

Expected<HostTensor> runCast(const OpContext &c) {
  if (!isFloat8(c.result.dtype()))
    return Error("fp8.cast: the result must be FP8");
  return applyScale<true>(c);
}

Expected<HostTensor> runDequant(const OpContext &c) { return applyScale<false>(c); }

} // namespace fp8c::interp
