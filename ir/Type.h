// Tensor types: a shape and an element dtype. A scalar is rank 0. A dim may be dynamic (`?`,
// stored as kDynamic); function inputs may be dynamic only in their leading (token) dim, so
// kernels are specialized on N and K and take M at run time.
#pragma once

#include "ir/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

inline constexpr int64_t kDynamic = -1;

class TensorType {
public:
  TensorType() = default;
  TensorType(std::vector<int64_t> shape, DType dtype) : shape_(std::move(shape)), dtype_(dtype) {}

  const std::vector<int64_t> &shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[i]; }
  bool isDynamicDim(int64_t i) const { return shape_[i] == kDynamic; }
  bool hasDynamicDim() const;
  bool isScalar() const { return shape_.empty(); }
  /// Product of the dims; requires a static shape.
  int64_t numElements() const;
  TensorType withDType(DType t) const { return TensorType(shape_, t); }
  TensorType withShape(std::vector<int64_t> s) const { return TensorType(std::move(s), dtype_); }

  /// MLIR spelling: `tensor<?x4096xbf16>`, `tensor<f32>`.
  std::string str() const;
  /// Parses the MLIR spelling; nullopt when malformed.
  static std::optional<TensorType> parse(std::string_view text);

  bool operator==(const TensorType &o) const { return dtype_ == o.dtype_ && shape_ == o.shape_; }
  bool operator!=(const TensorType &o) const { return !(*this == o); }

private:
  std::vector<int64_t> shape_;
  DType dtype_ = DType::F32;
};

/// `4096`, or `?` for a dynamic dim.
std::string dimStr(int64_t d);

} // namespace fp8c
