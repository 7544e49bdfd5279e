// fp8c-cublaslt-support --backward: whether this device's cuBLASLt fuses the backward's GELU
// derivative into an FP8 dgrad GEMM (e5m2 dY x e4m3 W^T, tensor scales, fast accumulation off,
// as the training step's dgrad runs): the DGELU and DGELU_BGRAD epilogues reading the GELU
// input (bf16) as the aux matrix, D bf16 or e5m2 (with D scale and amax). Where one runs at the
// MLP's shape (M 8192, N 14336, K 4096) it is timed against the plain GEMM with a bf16 D, the
// form the step runs today (then its gelu_grad cast-transpose launch reads D and the GELU
// input back): the lead for issue 8's MLP margin (bench/NOTES.md, eighteenth session).
#include "CublasLtSupportBackward.h"

#include "Timing.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

namespace fp8c {

int probeBackwardGelu(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf) {
  const std::vector<int64_t> ms = {1, 16, 100, 128, 1000, 8192};
  const std::pair<int64_t, int64_t> nks[] = {{14336, 4096}, {4096, 14336}, {1024, 512}};
  struct Epi {
    GemmEpilogue e;
    const char *name;
  };
  auto config = [](GemmEpilogue e, DType dt, int64_t m, int64_t n, int64_t k) {
    CublasLtGemmConfig c;
    c.m = m, c.n = n, c.k = k, c.lda = k, c.ldb = k, c.ldd = n;
    c.aType = DType::F8E5M2, c.bType = DType::F8E4M3FN, c.dType = dt;
    c.epilogue = e;
    c.fastAccum = false;
    c.hasScaleD = c.hasAmaxD = isFloat8(dt);
    if (e == GemmEpilogue::DGelu || e == GemmEpilogue::DGeluBgrad) {
      c.auxType = DType::BF16;
      c.ldAux = n;
    }
    if (e == GemmEpilogue::DGeluBgrad)
      c.biasType = DType::BF16;
    return c;
  };
  auto pointers = [&](const CublasLtGemmConfig &c) {
    CublasLtGemmPointers p;
    p.a = buf.a, p.b = buf.b, p.d = buf.d;
    p.invScaleA = buf.scale, p.invScaleB = buf.scale;
    p.bias = c.biasType ? buf.bias : nullptr;
    p.aux = c.auxType ? buf.aux : nullptr;
    p.scaleD = c.hasScaleD ? buf.scale : nullptr;
    p.amaxD = c.hasAmaxD ? buf.amax : nullptr;
    return p;
  };
  int runs = 0;
  for (Epi epi : {Epi{GemmEpilogue::DGelu, "dgelu"}, Epi{GemmEpilogue::DGeluBgrad, "dgelu_bgrad"}})
    for (DType dt : {DType::BF16, DType::F8E5M2})
      for (auto [n, k] : nks) {
        std::string failed, firstError;
        for (int64_t m : ms) {
          const CublasLtGemmConfig c = config(epi.e, dt, m, n, k);
          Status s = runner.run(c, pointers(c), nullptr);
          if (s)
            if (CUresult r = drv->cuCtxSynchronize(); r != CUDA_SUCCESS)
              s = Error(drv->errorMessage(r, "cuCtxSynchronize"));
          if (!s) {
            failed += (failed.empty() ? "" : ",") + std::to_string(m);
            if (firstError.empty())
              firstError = s.message();
          } else if (m == 8192 && n == 14336) {
            ++runs;
          }
        }
        std::printf("backward e5m2 x e4m3 %-11s D=%-9s aux=bf16 N=%-5lld K=%-5lld  %s%s\n", epi.name,
                    std::string(dtypeName(dt)).c_str(), (long long)n, (long long)k,
                    failed.empty() ? "all M ok" : ("fails at M=" + failed).c_str(),
                    firstError.empty() ? "" : ("\n    first error: " + firstError.substr(0, 300)).c_str());
      }
  if (runs == 0) {
    std::printf("no backward GELU epilogue runs at M 8192 N 14336 K 4096: nothing to time\n");
    return 0;
  }
  // Timing at the MLP's shape: the plain dgrad GEMM (bf16 D) against each epilogue that ran.
  bench::TimingOptions opts;
  auto time = [&](const CublasLtGemmConfig &c, const char *what) {
    const CublasLtGemmPointers p = pointers(c);
    Expected<bench::Stats> st = bench::timeRuns(
        drv, nullptr, [&](int) { return runner.run(c, p, nullptr); }, 1, false, opts);
    if (st)
      std::printf("  %-40s median %8.1f us  p10 %8.1f  p90 %8.1f\n", what, st->medianUs, st->p10Us,
                  st->p90Us);
    else
      std::printf("  %-40s %s\n", what, st.error().c_str());
  };
  std::printf("timed at M 8192 N 14336 K 4096 (e5m2 x e4m3, fast accumulation off):\n");
  time(config(GemmEpilogue::Default, DType::BF16, 8192, 14336, 4096), "default, D bf16 (today's dgrad)");
  for (GemmEpilogue e : {GemmEpilogue::DGelu, GemmEpilogue::DGeluBgrad})
    for (DType dt : {DType::BF16, DType::F8E5M2}) {
      const CublasLtGemmConfig c = config(e, dt, 8192, 14336, 4096);
      Expected<bool> ok = runner.supports(c, pointers(c));
      if (ok && *ok)
        time(c, fmt::format("{}, D {}", e == GemmEpilogue::DGelu ? "dgelu" : "dgelu_bgrad",
                            dtypeName(dt))
                    .c_str());
    }
  return 0;
}

} // namespace fp8c
