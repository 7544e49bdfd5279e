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

/// The most elements one host tensor may hold: 2^30, 4 GiB of f32. Whatever allocates host
/// tensors from shapes it did not choose (the CPU interpreter's results, random inputs, the
/// .npy reader) checks each shape with hostTensorSizeError before allocating, so a huge static
/// shape is an error naming the tensor, not an allocation failure.
constexpr int64_t kMaxHostTensorElements = int64_t(1) << 30;

/// "" when a tensor of `shape` may be allocated; else why not, as a phrase to follow the
/// tensor's name: "has shape [...] with N elements (X GiB as f32), more than ..." (also when
/// the product of the dims overflows), or "has the dynamic shape [...]" for a negative dim.
std::string hostTensorSizeError(const std::vector<int64_t> &shape);

/// Product of a static shape's dims (1 for rank 0).
int64_t numElementsOf(const std::vector<int64_t> &shape);
/// `[2, 3]`; dynamic dims print as `?`.
std::string shapeString(const std::vector<int64_t> &shape);
/// True when x is exactly representable in t (any NaN counts as representable in float types).
bool isRepresentable(float x, DType t);

} // namespace fp8c
