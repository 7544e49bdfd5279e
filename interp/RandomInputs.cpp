// Seeded random tensors (see RandomInputs.h).
#include "interp/RandomInputs.h"

#include "interp/InterpOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <thread>

namespace fp8c {
namespace {

// splitmix64 finaliser: spreads (seed, stream) over the 64-bit seed space.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Standard normal samples by Box-Muller, two per 64-bit draw (32 bits per uniform), in f32
/// (float log / sin / cos are about twice as fast as double, and the values are rounded to the
/// input's dtype anyway; the tails reach sqrt(2 ln 2^32) = 6.66 sigma).
class Gaussian {
public:
  explicit Gaussian(uint64_t seed) : rng_(seed) {}
  float next() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    const uint64_t v = rng_();
    const float u1 = static_cast<float>((v >> 32) + 1) * 0x1p-32f;     // (0, 1]
    const float u2 = static_cast<float>(v & 0xFFFFFFFFull) * 0x1p-32f; // [0, 1]
    const float r = std::sqrt(-2.0f * std::log(u1));
    const float theta = 2.0f * std::numbers::pi_v<float> * u2;
    spare_ = r * std::sin(theta);
    hasSpare_ = true;
    return r * std::cos(theta);
  }

private:
  std::mt19937_64 rng_;
  float spare_ = 0.0f;
  bool hasSpare_ = false;
};

// Elements are generated in chunks of kChunk, chunk c from its own generator seeded with
// mix(streamSeed ^ mix(c)), so chunks fill in parallel and the values do not depend on the
// number of threads.
constexpr int64_t kChunk = int64_t(1) << 16;

HostTensor fill(const std::vector<int64_t> &shape, DType dtype, uint64_t streamSeed, double stddev,
                bool heavyTailed) {
  HostTensor t = HostTensor::make(shape, dtype);
  const int64_t n = static_cast<int64_t>(t.data.size());
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  interp::parallelFor(chunks, threads, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      Gaussian g(mix(streamSeed ^ mix(static_cast<uint64_t>(c))));
      const int64_t end = std::min(n, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i) {
        double x = g.next();
        if (heavyTailed) {
          // t3 = z / sqrt(chi2_3 / 3), scaled by 1/sqrt(3) to unit variance.
          double chi2 = 0.0;
          for (int j = 0; j < 3; ++j) {
            const double z = g.next();
            chi2 += z * z;
          }
          x = x / std::sqrt(std::max(chi2, 1e-30) / 3.0) / std::sqrt(3.0);
        }
        t.data[static_cast<size_t>(i)] = roundToDType(static_cast<float>(x * stddev), dtype);
      }
    }
  });
  return t;
}

// Input i's shape with its dynamic dims set to `dynamicDim`.
std::vector<int64_t> inputShape(const Graph &g, unsigned i, int64_t dynamicDim) {
  std::vector<int64_t> shape = g.input(i)->type().shape();
  for (int64_t &d : shape)
    if (d == kDynamic)
      d = dynamicDim < 0 ? 0 : dynamicDim;
  return shape;
}

} // namespace

Status checkRandomInputs(const Graph &g, int64_t dynamicDim) {
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (std::string e = hostTensorSizeError(inputShape(g, i, dynamicDim)); !e.empty()) {
      const std::string &name = g.input(i)->name();
      return Error(fmt::format("{}: error: random input {} of '@{}' {}", g.loc().str(),
                               name.empty() ? fmt::format("#{}", i) : "%" + name, g.name(), e));
    }
  return Status::ok();
}

std::vector<HostTensor> randomInputs(const Graph &g, uint64_t seed, int64_t dynamicDim) {
  std::vector<HostTensor> out;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const TensorType &type = g.input(i)->type();
    std::vector<int64_t> shape = inputShape(g, i, dynamicDim);
    if (g.inputAttrs(i).has("fp8.state")) {
      out.push_back(HostTensor::make(shape, type.dtype()));
      continue;
    }
    double stddev = 1.0;
    if (type.rank() == 2 && !type.hasDynamicDim())
      stddev = type.dim(1) > 0 ? 1.0 / std::sqrt(static_cast<double>(type.dim(1))) : 1.0;
    else if (type.rank() == 1)
      stddev = 0.1;
    out.push_back(fill(shape, type.dtype(), mix(mix(seed) ^ (i + 1)), stddev, false));
  }
  return out;
}

HostTensor randomTensor(const std::vector<int64_t> &shape, DType dtype, uint64_t seed,
                        double stddev, bool heavyTailed) {
  return fill(shape, dtype, mix(seed), stddev, heavyTailed);
}

} // namespace fp8c
