// fp8c-gemm-bench --accum-probe: how often each FP8 GEMM promotes its tensor-core partial sums
// into f32, read from its output (the probe: PromotionProbe.h). Column n's lost products fall
// with 448's position k = 32 n inside an interval and jump back up where the next one starts:
// their period is the interval (K when nothing is promoted). Printed for cuBLASLt and the
// generated kernel, with and without fast accumulation. (H200, CUDA 13.0: cuBLASLt without fast
// accumulation promotes every 128, as the generated kernel does; with it, never.)
#include "bench/GemmSm90BenchCommon.h"
#include "bench/PromotionProbe.h"

#include <cstdio>
#include <vector>

namespace fp8c::gemmbench {

namespace {

using bench::PromotionProbe;

/// Prints each column's lost products, 16 to a line.
void report(const char *name, const PromotionProbe &probe) {
  Expected<std::vector<double>> lost = probe.lostProducts();
  if (!lost)
    die(lost.error());
  std::printf("  %-44s lost small products by position of 448 (k = 0, 32, 64, ...):\n", name);
  for (size_t n = 0; n < lost->size(); ++n)
    std::printf("%s%5.0f%s", n % 16 == 0 ? "    " : "", (*lost)[n], n % 16 == 15 ? "\n" : "");
}

} // namespace

void accumProbe(GemmSm90Runner &g, CublasLtRunner &lt) {
  std::printf("\n[t=%.1fs] accumulation probe, M=%lld K=%lld N=%lld (e4m3, f32 D)\n", elapsedS(),
              (long long)PromotionProbe::kM, (long long)PromotionProbe::kK,
              (long long)PromotionProbe::kN);
  Expected<PromotionProbe> probe = PromotionProbe::create();
  if (!probe)
    die(probe.error());
  for (bool fast : {true, false}) {
    if (Status st = probe->clear(); !st)
      die(st.message());
    if (Status st = lt.run(probe->cublasConfig(fast), probe->cublasPointers(), nullptr); !st) {
      std::printf("  cuBLASLt %s: %s\n", fast ? "fast" : "precise", st.message().c_str());
      continue;
    }
    report(fast ? "cuBLASLt, fast accumulation" : "cuBLASLt, no fast accumulation", *probe);
  }
  for (bool fast : {true, false}) {
    GemmSm90Spec k;
    k.dType = DType::F32;
    k.fastAccum = fast;
    k.bn = 128;
    k.stages = 6;
    k.overlap = fast;
    if (Status st = probe->clear(); !st)
      die(st.message());
    if (Status st = g.run(k, probe->problem(), probe->sm90Pointers(), nullptr); !st)
      die(st.message());
    report(fast ? "generated, fast accumulation" : "generated, no fast accumulation", *probe);
  }
}

} // namespace fp8c::gemmbench
