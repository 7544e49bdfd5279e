// fp8c-gemm-bench --accum-probe: how often an FP8 GEMM promotes its tensor-core partial sums
// into f32, read from its output. A is all ones; row n of B holds 448 at k = 32 n and 2^-7
// everywhere else (e4m3, unit scales, f32 D). The tensor cores' own accumulation keeps about 14
// bits, so a 2^-7 product added after 448 within one promotion interval is lost, while the
// products of the next intervals start from zero and reach the f32 result whole. Column n's
// lost products, (448 + (K - 1) 2^-7 - D[0, n]) / 2^-7, so fall with k = 32 n inside an interval
// and jump back up where the next one starts: their period is the interval (K when nothing is
// promoted). Printed for cuBLASLt and the generated kernel, with and without fast accumulation.
// (H200, CUDA 13.0: cuBLASLt without fast accumulation promotes every 128, as the generated
// kernel does; with it, never.)
#include "bench/GemmSm90BenchCommon.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace fp8c::gemmbench {

namespace {

constexpr int64_t kM = 128, kN = 128, kK = 4096;
constexpr double kSmall = 1.0 / 128;

/// Lost products per column from D[0, :] (f32), printed as a row of numbers per 32 columns.
void report(const char *name, const std::vector<float> &d) {
  std::printf("  %-44s lost small products by position of 448 (k = 0, 32, 64, ...):\n", name);
  for (int64_t n = 0; n < kN; ++n) {
    const double lost = (448.0 + double(kK - 1) * kSmall - double(d[size_t(n)])) / kSmall;
    std::printf("%s%5.0f", n % 16 == 0 ? "    " : "", lost);
    if (n % 16 == 15)
      std::printf("\n");
  }
}

} // namespace

void accumProbe(GemmSm90Runner &g, CublasLtRunner &lt) {
  std::printf("\n[t=%.1fs] accumulation probe, M=%lld K=%lld N=%lld (e4m3, f32 D)\n", elapsedS(),
              (long long)kM, (long long)kK, (long long)kN);
  std::vector<uint8_t> a(size_t(kM * kK), 0x38), b(size_t(kN * kK), 0x04); // 1.0, 2^-7
  for (int64_t n = 0; n < kN; ++n)
    b[size_t(n * kK + 32 * n)] = 0x7E; // 448
  DeviceBuffer da = alloc(a.size()), db = alloc(b.size()), dd = alloc(size_t(kM * kN * 4));
  if (Status st = da.upload(a.data(), a.size()); !st)
    die(st.message());
  if (Status st = db.upload(b.data(), b.size()); !st)
    die(st.message());
  DeviceBuffer one = scalars({1.0f});
  auto readRow = [&] {
    drv->cuCtxSynchronize();
    std::vector<float> d(static_cast<size_t>(kN));
    if (Status st = dd.download(d.data(), d.size() * 4); !st)
      die(st.message());
    return d;
  };
  for (bool fast : {true, false}) {
    CublasLtGemmConfig c;
    c.m = kM;
    c.n = kN;
    c.k = kK;
    c.lda = c.ldb = kK;
    c.ldd = kN;
    c.dType = DType::F32;
    c.fastAccum = fast;
    CublasLtGemmPointers p;
    p.a = da.data();
    p.b = db.data();
    p.d = dd.data();
    p.invScaleA = p.invScaleB = static_cast<const float *>(one.data());
    dd.fill(0);
    if (Status st = lt.run(c, p, nullptr); !st) {
      std::printf("  cuBLASLt %s: %s\n", fast ? "fast" : "precise", st.message().c_str());
      continue;
    }
    report(fast ? "cuBLASLt, fast accumulation" : "cuBLASLt, no fast accumulation", readRow());
  }
  GemmSm90Problem prob{kM, kN, kK, kK, kK, kN};
  for (bool fast : {true, false}) {
    GemmSm90Kernel k;
    k.dType = DType::F32;
    k.fastAccum = fast;
    k.bn = 128;
    k.stages = 6;
    k.overlap = fast;
    GemmSm90Pointers p;
    p.a = da.data();
    p.b = db.data();
    p.d = dd.data();
    p.invScaleA = p.invScaleB = static_cast<const float *>(one.data());
    dd.fill(0);
    if (Status st = g.run(k, prob, p, nullptr); !st)
      die(st.message());
    report(fast ? "generated, fast accumulation" : "generated, no fast accumulation", readRow());
  }
}

} // namespace fp8c::gemmbench
