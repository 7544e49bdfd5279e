// GEMM ops of the CPU interpreter: fp8.linear, fp8.matmul, fp8.scaled_matmul. All three sum
// with dotF32 (InterpOps.h), the one place that fixes the normative accumulation order. Rows
// of the result are computed independently, so splitting the N range over threads does not
// change a single bit.
//
// fp8.scaled_matmul dequantizes one scale at a time, (acc / sa) / sb, never by the product
// sa * sb: fp8.scale's scales span [fmax / FLT_MAX, FLT_MAX] (about 2^-119 .. 2^128 for e4m3),
// so the product of two overflows f32 as soon as both operands are small (|x| and |w| ~ 1e-18:
// sa = sb = 448e18 ~ 2^68.6, sa * sb ~ 2^137 = inf, every output 0) or underflows when both are
// large. acc / sa is the dot product of the dequantized A with B's FP8 values, at most
// K * fmax(B) * amax(A) in magnitude (fmax 448 for e4m3, 57344 for e5m2), so it stays finite for
// every amax(A) below FLT_MAX / (448 K) (~1.8e32 for an e4m3 B at K = 4096) and, where amax(A)
// is a normal f32, keeps f32's precision before the second division gives the result
// (docs/numerics.md).
#include "interp/InterpOps.h"

#include <algorithm>
#include <functional>
#include <thread>

namespace fp8c::interp {

void parallelFor(int64_t n, unsigned threads, const std::function<void(int64_t, int64_t)> &body) {
  const int64_t t = std::min<int64_t>(threads, n);
  if (t <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(t - 1));
  const int64_t chunk = (n + t - 1) / t;
  for (int64_t i = 1; i < t; ++i) {
    const int64_t b = std::min(n, i * chunk), e = std::min(n, (i + 1) * chunk);
    if (b < e)
      pool.emplace_back([&body, b, e] { body(b, e); });
  }
  body(0, std::min(n, chunk));
  for (std::thread &th : pool)
    th.join();
}

namespace {

// Threads worth using for an [M, N, K] product: about 1M multiply-adds per thread at least.
unsigned gemmThreads(unsigned threads, int64_t m, int64_t n, int64_t k) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const double want = work / (1 << 20);
  return want < 2 ? 1u : static_cast<unsigned>(std::min<double>(threads, want));
}

// y[m, n] = epilogue(m, n, dot(a[m, :], b[n, :])) for a [M, K], b [N, K] (both row-major,
// K contiguous). Rows of a are taken in blocks that stay in cache while a slice of b streams.
template <typename Epilogue>
void gemmTN(const float *a, const float *b, float *y, int64_t m, int64_t n, int64_t k,
            unsigned threads, const Epilogue &epilogue) {
  constexpr int64_t kRowBlock = 16;
  parallelFor(n, gemmThreads(threads, m, n, k), [&](int64_t n0, int64_t n1) {
    for (int64_t m0 = 0; m0 < m; m0 += kRowBlock) {
      const int64_t m1 = std::min(m, m0 + kRowBlock);
      for (int64_t j = n0; j < n1; ++j) {
        const float *bRow = b + j * k;
        for (int64_t i = m0; i < m1; ++i)
          y[i * n + j] = epilogue(i, j, a + i * k, bRow);
      }
    }
  });
}

} // namespace

Expected<HostTensor> runLinear(const OpContext &c) {
  const HostTensor &x = *c.args[0], &w = *c.args[1];
  const HostTensor *bias = c.args.size() > 2 ? c.args[2] : nullptr;
  const int64_t k = w.shape[1], n = w.shape[0];
  int64_t m = 1;
  for (size_t d = 0; d + 1 < x.shape.size(); ++d)
    m *= x.shape[d];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  gemmTN(x.data.data(), w.data.data(), y.data.data(), m, n, k, c.threads,
         [&](int64_t, int64_t j, const float *xr, const float *wr) {
           float acc = dotF32(xr, wr, k);
           if (bias)
             acc += bias->data[static_cast<size_t>(j)];
           return finish(acc, dt);
         });
  return y;
}

Expected<HostTensor> runMatmul(const OpContext &c) {
  const HostTensor &a = *c.args[0], &b = *c.args[1];
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  // b [K, N] -> bt [N, K] so that both operands are K-contiguous.
  std::vector<float> bt(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      bt[static_cast<size_t>(j * k + i)] = b.data[static_cast<size_t>(i * n + j)];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  gemmTN(a.data.data(), bt.data(), y.data.data(), m, n, k, c.threads,
         [&](int64_t, int64_t, const float *ar, const float *br) {
           return finish(dotF32(ar, br, k), dt);
         });
  return y;
}

Expected<HostTensor> runScaledMatmul(const OpContext &c) {
  const HostTensor &a = *c.args[0], &b = *c.args[1], &sa = *c.args[2], &sb = *c.args[3];
  const HostTensor *bias = c.args.size() > 4 ? c.args[4] : nullptr;
  // a [..., K]: its leading dims flattened are M (tensor scales; the verifier's rule).
  const int64_t k = a.shape.back(), n = b.shape[0];
  int64_t m = 1;
  for (size_t d = 0; d + 1 < a.shape.size(); ++d)
    m *= a.shape[d];
  HostTensor y = HostTensor::make(c.result.shape(), c.result.dtype());
  const DType dt = y.dtype;
  auto addBias = [&](float acc, int64_t j) {
    if (bias)
      acc += bias->data[static_cast<size_t>(j)];
    return finish(acc, dt);
  };
  const float *A = a.data.data(), *B = b.data.data();
  if (sa.rank() == 0 && sb.rank() == 0) {
    const float s0 = sa.data[0], s1 = sb.data[0];
    gemmTN(A, B, y.data.data(), m, n, k, c.threads,
           [&](int64_t, int64_t j, const float *ar, const float *br) {
             return addBias(dotF32(ar, br, k) / s0 / s1, j);
           });
  } else if (sa.rank() == 1) {
    gemmTN(A, B, y.data.data(), m, n, k, c.threads,
           [&](int64_t i, int64_t j, const float *ar, const float *br) {
             const float s0 = sa.data[static_cast<size_t>(i)];
             const float s1 = sb.data[static_cast<size_t>(j)];
             return addBias(dotF32(ar, br, k) / s0 / s1, j);
           });
  } else if (sa.rank() == 2) {
    const int64_t kBlocks = (k + 127) / 128;
    gemmTN(A, B, y.data.data(), m, n, k, c.threads,
           [&](int64_t i, int64_t j, const float *ar, const float *br) {
             float acc = 0.0f;
             for (int64_t kb = 0; kb < kBlocks; ++kb) {
               const int64_t k0 = kb * 128, len = std::min<int64_t>(128, k - k0);
               const float s0 = sa.data[static_cast<size_t>(i * kBlocks + kb)];
               const float s1 = sb.data[static_cast<size_t>((j / 128) * kBlocks + kb)];
               acc += dotF32(ar + k0, br + k0, len) / s0 / s1;
             }
             return addBias(acc, j);
           });
  } else {
    return Error("fp8.scaled_matmul: unsupported scale ranks " + std::to_string(sa.rank()) +
                 " and " + std::to_string(sb.rank()));
  }
  return y;
}

} // namespace fp8c::interp
