// makeMlpProblem (MlpProblem.h): random tensors from interp/RandomInputs.h's randomTensor
// (chunked, seeded per chunk, filled in parallel), teacher targets threaded over rows.
#include "MlpProblem.h"

#include "interp/RandomInputs.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace fp8c::example {
namespace {

// The random stream of each tensor: seed and a stream number, mixed again by randomTensor.
uint64_t streamSeed(uint64_t seed, uint64_t stream) {
  return seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + 1;
}

std::vector<float> normal(int64_t n, double stddev, uint64_t seed, uint64_t stream) {
  return randomTensor({n}, DType::F32, streamSeed(seed, stream), stddev).data;
}

float geluTanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}

} // namespace

void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &body) {
  const int64_t threads =
      std::min<int64_t>({n, 16, std::max(1u, std::thread::hardware_concurrency())});
  if (threads <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t per = (n + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t b = t * per, e = std::min(n, b + per);
    if (b < e)
      pool.emplace_back([&body, b, e] { body(b, e); });
  }
  body(0, std::min(n, per));
  for (std::thread &t : pool)
    t.join();
}

std::vector<float> teacherTargets(const std::vector<float> &x, const std::vector<float> &a,
                                  const std::vector<float> &b, const MlpSizes &s) {
  const int64_t rows = static_cast<int64_t>(x.size()) / s.in, th = kTeacherHidden;
  // Transposed weights, so that the inner loops run over independent sums (vectorized); each
  // sum still adds its terms in order (over k, then over j): the values are those of the
  // plain loops.
  std::vector<float> at(a.size()), bt(b.size());
  for (int64_t j = 0; j < th; ++j) {
    for (int64_t k = 0; k < s.in; ++k)
      at[static_cast<size_t>(k * th + j)] = a[static_cast<size_t>(j * s.in + k)];
    for (int64_t n = 0; n < s.out; ++n)
      bt[static_cast<size_t>(j * s.out + n)] = b[static_cast<size_t>(n * th + j)];
  }
  std::vector<float> t(static_cast<size_t>(rows * s.out));
  parallelFor(rows, [&](int64_t r0, int64_t r1) {
    std::vector<float> h(static_cast<size_t>(th));
    for (int64_t m = r0; m < r1; ++m) {
      const float *xm = &x[static_cast<size_t>(m * s.in)];
      std::fill(h.begin(), h.end(), 0.0f);
      for (int64_t k = 0; k < s.in; ++k) {
        const float xk = xm[k], *ak = &at[static_cast<size_t>(k * th)];
        for (int64_t j = 0; j < th; ++j)
          h[static_cast<size_t>(j)] += xk * ak[j];
      }
      for (float &v : h)
        v = geluTanh(v);
      float *tm = &t[static_cast<size_t>(m * s.out)];
      std::fill(tm, tm + s.out, 0.0f);
      for (int64_t j = 0; j < th; ++j) {
        const float hj = h[static_cast<size_t>(j)], *bj = &bt[static_cast<size_t>(j * s.out)];
        for (int64_t n = 0; n < s.out; ++n)
          tm[n] += hj * bj[n];
      }
    }
  });
  return t;
}

MlpProblem makeMlpProblem(const MlpSizes &s, int poolSize, uint64_t seed) {
  MlpProblem p;
  p.sizes = s;
  const int64_t th = kTeacherHidden;
  p.teacherA = normal(th * s.in, 1.0 / std::sqrt(double(s.in)), seed, 1);
  p.teacherB = normal(s.out * th, 1.0 / std::sqrt(double(th)), seed, 2);
  p.w1 = normal(s.hidden * s.in, 1.0 / std::sqrt(double(s.in)), seed, 3);
  p.b1.assign(static_cast<size_t>(s.hidden), 0.0f);
  p.w2 = normal(s.out * s.hidden, 1.0 / std::sqrt(double(s.hidden)), seed, 4);
  p.b2.assign(static_cast<size_t>(s.out), 0.0f);
  for (int i = 0; i < std::max(1, poolSize); ++i) {
    MlpBatch b;
    b.x = normal(s.batch * s.in, 1.0, seed, 100 + static_cast<uint64_t>(i));
    b.t = teacherTargets(b.x, p.teacherA, p.teacherB, s);
    p.pool.push_back(std::move(b));
  }
  return p;
}

} // namespace fp8c::example
