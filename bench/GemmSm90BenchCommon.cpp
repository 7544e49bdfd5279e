// fp8c-gemm-bench's shared pieces (GemmSm90BenchCommon.h says what each is).
#include "bench/GemmSm90BenchCommon.h"

#include "ir/DType.h"
#include "runtime/cuda/CudaEvents.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

namespace fp8c::gemmbench {

CudaDriver *drv = nullptr;
std::string dumpDir;

namespace {

const auto startTime = std::chrono::steady_clock::now();

// n values of a normal distribution encoded by `encode` (4096 of them drawn, then picked by a
// xorshift sequence: fast for hundreds of millions of elements), as a device buffer.
template <typename T, typename Encode>
DeviceBuffer randomNormal(size_t n, uint64_t seed, Encode encode) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  T table[4096];
  for (T &t : table)
    t = encode(nd(rng));
  std::vector<T> h(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    h[i] = table[x & 4095];
  }
  DeviceBuffer b = alloc(n * sizeof(T));
  if (Status st = b.upload(h.data(), n * sizeof(T)); !st)
    die(st.message());
  return b;
}

} // namespace

/// Seconds since the start, printed in section headers (to line them up with clock logs).
double elapsedS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();
}

[[noreturn]] void die(const std::string &m) {
  std::fprintf(stderr, "fp8c-gemm-bench: %s\n", m.c_str());
  std::exit(1);
}

DeviceBuffer alloc(size_t bytes) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(bytes);
  if (!b)
    die(b.error());
  return b.take();
}

// Random e4m3 values (never NaN), as bytes.
DeviceBuffer randomFp8(size_t n, uint64_t seed) {
  return randomNormal<uint8_t>(n, seed, [](float v) { return floatToFp8(v, DType::F8E4M3FN); });
}

DeviceBuffer scalars(const std::vector<float> &v) {
  DeviceBuffer b = alloc(std::max<size_t>(16, v.size() * 4));
  if (Status st = b.upload(v.data(), v.size() * 4); !st)
    die(st.message());
  return b;
}

// Random bf16 values of a normal distribution, as a device buffer of n elements.
DeviceBuffer randomBf16(size_t n, uint64_t seed) {
  return randomNormal<uint16_t>(n, seed, [](float v) { return floatToBf16(v); });
}

/// Median milliseconds per call of `work(i)` over batches of `reps` calls.
double timeMs(int reps, const std::function<Status(int)> &work) {
  Expected<CudaEvents> ev = CudaEvents::create(drv, 2);
  if (!ev)
    die(ev.error());
  auto check = [](CUresult r, const char *what) {
    if (r != CUDA_SUCCESS)
      die(drv->errorMessage(r, what));
  };
  std::vector<float> t;
  int call = 0;
  for (int batch = 0; batch < 18; ++batch) {
    check(drv->cuEventRecord((*ev)[0], nullptr), "cuEventRecord");
    for (int r = 0; r < reps; ++r)
      if (Status st = work(call++); !st)
        die(st.message());
    check(drv->cuEventRecord((*ev)[1], nullptr), "cuEventRecord");
    check(drv->cuEventSynchronize((*ev)[1]), "cuEventSynchronize (a kernel failed)");
    Expected<float> ms = ev->elapsedMs(0, 1);
    if (!ms)
      die(ms.error());
    if (batch >= 3)
      t.push_back(*ms / float(reps));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void soak(const std::string &name, double seconds, const std::function<Status(int)> &work) {
  auto unixS = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const double t0 = unixS();
  int calls = 0;
  while (unixS() - t0 < seconds) {
    for (int r = 0; r < 50; ++r)
      if (Status st = work(calls++); !st)
        die(st.message());
    drv->cuCtxSynchronize();
  }
  const double t1 = unixS();
  std::printf("    soak %s: %d calls, %.1f us each, unix %.2f .. %.2f\n", name.c_str(), calls,
              (t1 - t0) / calls * 1e6, t0, t1);
}

void dumpCubin(GemmSm90Runner &g, const GemmSm90Spec &k) {
  Expected<std::shared_ptr<const CachedKernel>> ck = g.prepare(k);
  if (!ck)
    die(ck.error());
  if (dumpDir.empty())
    return;
  std::ofstream f(dumpDir + "/" + k.name() + ".cubin", std::ios::binary);
  f.write((*ck)->cubin.data(), std::streamsize((*ck)->cubin.size()));
}

Operands makeOperands(const Shape &s, const Device &dev) {
  Operands o{s.m, s.k, s.n, {}, {}, {}, {}, {}, {}};
  o.a = randomFp8(size_t(s.m * s.k), 1);
  // Rotate B when A, B and D together would fit in L2 a few times over.
  const int64_t bytes = s.m * s.k + s.n * s.k + 2 * s.m * s.n;
  const int sets = bytes < 3 * dev.l2Bytes ? 4 : 1;
  for (int i = 0; i < sets; ++i)
    o.b.push_back(randomFp8(size_t(s.n * s.k), 2 + i));
  o.d = alloc(size_t(s.m * s.n * 4));
  o.dRef = alloc(size_t(s.m * s.n * 4));
  o.sa = scalars({0.5f});
  o.sb = scalars({0.25f});
  return o;
}

/// cuBLASLt's plain e4m3 x e4m3 -> bf16 GEMM of shape `s` (fast accumulation, tensor scales).
CublasLtGemmConfig plainLtConfig(const Shape &s) {
  CublasLtGemmConfig c;
  c.m = s.m;
  c.n = s.n;
  c.k = s.k;
  c.lda = c.ldb = s.k;
  c.ldd = s.n;
  c.fastAccum = true;
  return c;
}

/// cuBLASLt's pointers for call i (B set i) into o.dRef, A's inverse scale from `invScaleA`.
CublasLtGemmPointers plainLtPointers(Operands &o, int i, const DeviceBuffer &invScaleA) {
  CublasLtGemmPointers p;
  p.a = o.a.data();
  p.b = o.b[size_t(i) % o.b.size()].data();
  p.d = o.dRef.data();
  p.invScaleA = static_cast<const float *>(invScaleA.data());
  p.invScaleB = static_cast<const float *>(o.sb.data());
  return p;
}

int repsFor(const Shape &s) {
  const double flop = 2.0 * s.m * s.n * s.k;
  return std::clamp(int(2e11 / flop), 1, 200); // about 0.2 ms of work per batch and more
}

} // namespace fp8c::gemmbench
