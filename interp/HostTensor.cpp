// HostTensor helpers (see HostTensor.h).
#include "interp/HostTensor.h"

#include <fmt/format.h>

#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace fp8c {

int64_t numElementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string hostTensorSizeError(const std::vector<int64_t> &shape) {
  const std::string limit = fmt::format("more than the {} elements ({} GiB as f32) a host tensor "
                                        "may hold",
                                        kMaxHostTensorElements, kMaxHostTensorElements * 4 >> 30);
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0)
      return "has the dynamic shape " + shapeString(shape);
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
      overflow = true;
    n *= static_cast<uint64_t>(d);
  }
  for (int64_t d : shape) // a zero dim makes the tensor empty, however large the others
    if (d == 0)
      return "";
  if (overflow)
    return fmt::format("has shape {}, whose element count overflows 64 bits: {}",
                       shapeString(shape), limit);
  if (n > static_cast<uint64_t>(kMaxHostTensorElements))
    return fmt::format("has shape {} with {} elements ({:.4g} GiB as f32), {}", shapeString(shape),
                       n, static_cast<double>(n) * 4 / double(int64_t(1) << 30), limit);
  return "";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + dimStr(shape[i]);
  return out + "]";
}

bool isRepresentable(float x, DType t) {
  if (t == DType::F32)
    return true;
  if (t == DType::BF16) // the fast path for weights: low 16 bits clear (or a NaN)
    return (std::bit_cast<uint32_t>(x) & 0xFFFFu) == 0 || x != x;
  if (std::isnan(x))
    return isFloat(t);
  if (std::isinf(x))
    return dtypeInfo(t).hasInf;
  return roundToDType(x, t) == x;
}

HostTensor HostTensor::make(std::vector<int64_t> shape, DType dtype) {
  HostTensor t;
  const int64_t n = numElementsOf(shape);
  assert(n >= 0 && "HostTensor needs a static shape");
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.data.assign(static_cast<size_t>(n < 0 ? 0 : n), 0.0f);
  return t;
}

HostTensor HostTensor::fromValues(std::vector<int64_t> shape, DType dtype,
                                  const std::vector<float> &values) {
  HostTensor t = make(std::move(shape), dtype);
  assert(values.size() == t.data.size() && "value count differs from the shape");
  for (size_t i = 0; i < t.data.size() && i < values.size(); ++i)
    t.data[i] = roundToDType(values[i], dtype);
  return t;
}

int64_t HostTensor::numElements() const { return numElementsOf(shape); }

} // namespace fp8c
