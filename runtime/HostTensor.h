// A tensor in host memory, as the CPU interpreter, the .npy reader/writer and the random input
// generator exchange it: a static shape, a dtype, and the elements in C (row-major) order as f32.
// Every element holds a value exactly representable in `dtype` (FP8 / bf16 / f16 values are
// stored widened to f32, which is exact), so "rounding to the dtype" is a no-op on stored data.
#pragma once

#include "ir/DType.h"
#include "ir/Type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c {

/// A host tensor: static shape (no kDynamic), dtype, row-major f32 elements.
struct HostTensor {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  std::vector<float> data;

  /// A zero-filled tensor. `shape` must be static and non-negative.
  static HostTensor make(std::vector<int64_t> shape, DType dtype);
  /// A tensor holding `values` (row-major), each rounded to `dtype` with roundToDType.
  /// values.size() must equal the product of `shape`.
  static HostTensor fromValues(std::vector<int64_t> shape, DType dtype,
                               const std::vector<float> &values);

  /// Product of the dims (1 for a scalar).
  int64_t numElements() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// The element at (i, j) of a rank-2 tensor.
  float &at(int64_t i, int64_t j) { return data[static_cast<size_t>(i * shape[1] + j)]; }
  float at(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * shape[1] + j)]; }
  /// The element at flat (row-major) index i.
  float &at(int64_t i) { return data[static_cast<size_t>(i)]; }
  float at(int64_t i) const { return data[static_cast<size_t>(i)]; }

  /// `tensor<2x3xbf16>`.
  TensorType type() const { return TensorType(shape, dtype); }
};

/// Product of a static shape's dims (1 for rank 0).
int64_t numElementsOf(const std::vector<int64_t> &shape);
/// `[2, 3]`; dynamic dims print as `?`.
std::string shapeString(const std::vector<int64_t> &shape);
/// True when x is exactly representable in t (any NaN counts as representable in float types).
bool isRepresentable(float x, DType t);

} // namespace fp8c
