// TensorType printing and parsing (the MLIR spelling `tensor<DxDx...xdtype>`).
#include "ir/Type.h"

#include <cassert>
#include <charconv>

namespace fp8c {

bool TensorType::hasDynamicDim() const {
  for (int64_t d : shape_)
    if (d == kDynamic)
      return true;
  return false;
}

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape_) {
    assert(d != kDynamic && "numElements of a dynamic shape");
    n *= d;
  }
  return n;
}

std::string dimStr(int64_t d) { return d == kDynamic ? "?" : std::to_string(d); }

std::string TensorType::str() const {
  std::string s = "tensor<";
  for (int64_t d : shape_)
    s += dimStr(d) + "x";
  s += dtypeName(dtype_);
  s += ">";
  return s;
}

std::optional<TensorType> TensorType::parse(std::string_view text) {
  constexpr std::string_view prefix = "tensor<";
  if (text.substr(0, prefix.size()) != prefix || text.empty() || text.back() != '>')
    return std::nullopt;
  std::string_view body = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  std::vector<int64_t> shape;
  while (true) {
    size_t x = body.find('x');
    // A dim is `?` or digits, followed by `x`. Anything else is the dtype.
    if (x == std::string_view::npos || x == 0)
      break;
    std::string_view dim = body.substr(0, x);
    if (dim == "?") {
      shape.push_back(kDynamic);
    } else {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
      if (ec != std::errc() || ptr != dim.data() + dim.size())
        break;
      if (v < 0)
        return std::nullopt;
      shape.push_back(v);
    }
    body = body.substr(x + 1);
  }
  std::optional<DType> dt = parseDType(body);
  if (!dt)
    return std::nullopt;
  return TensorType(std::move(shape), *dt);
}

} // namespace fp8c
