// Tensor statistics (see TensorStats.h). Sums run in double, in element order.
#include "interp/TensorStats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace fp8c {

TensorStats computeStats(const HostTensor &t) {
  TensorStats s;
  s.count = static_cast<int64_t>(t.data.size());
  double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int64_t finite = 0;
  for (float f : t.data) {
    if (std::isnan(f)) {
      ++s.nanCount;
      continue;
    }
    if (std::isinf(f)) {
      ++s.infCount;
      continue;
    }
    const double v = f;
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++finite;
  }
  if (finite == 0) {
    s.mean = s.stddev = s.min = s.max = s.absMax = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.mean = sum / static_cast<double>(finite);
  double sq = 0.0;
  for (float f : t.data)
    if (std::isfinite(f))
      sq += (f - s.mean) * (f - s.mean);
  s.stddev = std::sqrt(sq / static_cast<double>(finite));
  s.min = lo;
  s.max = hi;
  s.absMax = std::max(std::fabs(lo), std::fabs(hi));
  return s;
}

namespace {
bool sameBitsOrBothNaN(float x, float y) {
  if (std::isnan(x) && std::isnan(y))
    return true;
  uint32_t bx, by;
  std::memcpy(&bx, &x, sizeof bx);
  std::memcpy(&by, &y, sizeof by);
  return bx == by;
}
} // namespace

int64_t firstBitMismatch(const HostTensor &a, const HostTensor &b) {
  if (a.shape != b.shape || a.dtype != b.dtype || a.data.size() != b.data.size())
    return 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    if (!sameBitsOrBothNaN(a.data[i], b.data[i]))
      return static_cast<int64_t>(i);
  return -1;
}

int64_t countBitMismatches(const HostTensor &a, const HostTensor &b) {
  size_t common = std::min(a.data.size(), b.data.size());
  int64_t n = static_cast<int64_t>(std::max(a.data.size(), b.data.size()) - common);
  for (size_t i = 0; i < common; ++i)
    n += !sameBitsOrBothNaN(a.data[i], b.data[i]);
  return n;
}

double relativeFrobeniusError(const HostTensor &got, const HostTensor &ref) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (got.shape != ref.shape || got.data.size() != ref.data.size())
    return kNaN;
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    const double g = got.data[i], r = ref.data[i];
    if (std::isnan(g) || std::isnan(r))
      return kNaN;
    diff += (g - r) * (g - r);
    norm += r * r;
  }
  if (norm == 0.0)
    return diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff) / std::sqrt(norm);
}

} // namespace fp8c
