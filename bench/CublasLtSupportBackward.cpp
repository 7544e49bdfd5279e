// fp8c-cublaslt-support --backward: whether this device's cuBLASLt fuses the backward's GELU
// derivative into an FP8 dgrad GEMM (e5m2 dY x e4m3 W^T, tensor scales, fast accumulation off,
// as the training step's dgrad runs): the DGELU and DGELU_BGRAD epilogues reading the GELU
// input (bf16) as the aux matrix, D bf16 or e5m2 (with D scale and amax). Where one runs at the
// MLP's shape (M 8192, N 14336, K 4096) it is timed against the plain GEMM with a bf16 D, the
// form the step runs (then its gelu_grad cast-transpose launch reads D and the GELU input
// back): whether cuBLASLt could take that launch's work into the GEMM and close the MLP step's
// margin to the bf16 step.
// The same epilogues on the bf16 step's dgrad GEMM (bf16 x bf16, D bf16) are probed and timed
// too, and the bias gradient in the bf16 weight-gradient GEMM's epilogue (BGRADA / BGRADB,
// checked on exact data): the bf16 baseline runs those GEMMs plain, then a gelu_grad launch and
// column-sum launches, where TransformerEngine's bf16 MLP asks cuBLASLt for these epilogues.
#include "CublasLtSupportBackward.h"

#include "Timing.h"
#include "ir/DType.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

namespace fp8c {
namespace {

struct Epi {
  GemmEpilogue e;
  const char *name;
};

/// The dgrad GEMM's config: A `operands` (e5m2, B e4m3 with tensor scales; or bf16, B bf16).
CublasLtGemmConfig dgradConfig(DType operands, GemmEpilogue e, DType dt, int64_t m, int64_t n,
                               int64_t k) {
  CublasLtGemmConfig c;
  c.m = m, c.n = n, c.k = k, c.lda = k, c.ldb = k, c.ldd = n;
  c.aType = operands;
  c.bType = isFloat8(operands) ? DType::F8E4M3FN : operands;
  c.dType = dt;
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
}

CublasLtGemmPointers dgradPointers(const CublasLtGemmConfig &c, const BackwardBuffers &buf) {
  CublasLtGemmPointers p;
  p.a = buf.a, p.b = buf.b, p.d = buf.d;
  if (isFloat8(c.aType))
    p.invScaleA = buf.scale, p.invScaleB = buf.scale;
  p.bias = c.biasType ? buf.bias : nullptr;
  p.aux = c.auxType ? buf.aux : nullptr;
  p.scaleD = c.hasScaleD ? buf.scale : nullptr;
  p.amaxD = c.hasAmaxD ? buf.amax : nullptr;
  return p;
}

/// Times one cuBLASLt GEMM (bench::timeRuns' defaults) and prints a line: `what`, median, p10,
/// p90, or the error.
void timeGemm(CudaDriver *drv, CublasLtRunner &runner, const CublasLtGemmConfig &c,
              const CublasLtGemmPointers &p, const std::string &what) {
  Expected<bench::Stats> st = bench::timeRuns(
      drv, nullptr, [&](int) { return runner.run(c, p, nullptr); }, 1, false,
      bench::TimingOptions{});
  if (st)
    std::printf("  %-40s median %8.1f us  p10 %8.1f  p90 %8.1f\n", what.c_str(), st->medianUs,
                st->p10Us, st->p90Us);
  else
    std::printf("  %-40s %s\n", what.c_str(), st.error().c_str());
}

/// Support lines and timings for one operand type.
void probeOperands(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf,
                   DType operands) {
  const std::vector<int64_t> ms = {1, 16, 100, 128, 1000, 8192};
  const std::pair<int64_t, int64_t> nks[] = {{14336, 4096}, {4096, 14336}, {1024, 512}};
  const bool fp8 = isFloat8(operands);
  const std::string kind = fp8 ? "e5m2 x e4m3" : "bf16 x bf16";
  const std::vector<DType> dts =
      fp8 ? std::vector<DType>{DType::BF16, DType::F8E5M2} : std::vector<DType>{DType::BF16};
  int runs = 0;
  for (Epi epi : {Epi{GemmEpilogue::DGelu, "dgelu"}, Epi{GemmEpilogue::DGeluBgrad, "dgelu_bgrad"}})
    for (DType dt : dts)
      for (auto [n, k] : nks) {
        std::string failed, firstError;
        for (int64_t m : ms) {
          const CublasLtGemmConfig c = dgradConfig(operands, epi.e, dt, m, n, k);
          Status s = runner.run(c, dgradPointers(c, buf), nullptr);
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
        std::printf(
            "backward %s %-11s D=%-9s aux=bf16 N=%-5lld K=%-5lld  %s%s\n", kind.c_str(), epi.name,
            std::string(dtypeName(dt)).c_str(), (long long)n, (long long)k,
            failed.empty() ? "all M ok" : ("fails at M=" + failed).c_str(),
            firstError.empty() ? "" : ("\n    first error: " + firstError.substr(0, 300)).c_str());
      }
  if (runs == 0) {
    std::printf("no backward GELU epilogue (%s) runs at M 8192 N 14336 K 4096: nothing to time\n",
                kind.c_str());
    return;
  }
  // Timing at the MLP's shape: the plain dgrad GEMM (bf16 D) against each epilogue that ran.
  auto time = [&](const CublasLtGemmConfig &c, const std::string &what) {
    timeGemm(drv, runner, c, dgradPointers(c, buf), what);
  };
  std::printf("timed at M 8192 N 14336 K 4096 (%s%s):\n", kind.c_str(),
              fp8 ? ", fast accumulation off" : "");
  time(dgradConfig(operands, GemmEpilogue::Default, DType::BF16, 8192, 14336, 4096),
       "default, D bf16 (today's dgrad)");
  for (GemmEpilogue e : {GemmEpilogue::DGelu, GemmEpilogue::DGeluBgrad})
    for (DType dt : dts) {
      const CublasLtGemmConfig c = dgradConfig(operands, e, dt, 8192, 14336, 4096);
      Expected<bool> ok = runner.supports(c, dgradPointers(c, buf));
      if (ok && *ok)
        time(c, fmt::format("{}, D {}", e == GemmEpilogue::DGelu ? "dgelu" : "dgelu_bgrad",
                            dtypeName(dt)));
    }
}

/// The bf16 weight-gradient GEMM's bias gradient in its epilogue (BGradA: the sums of our A,
/// dY^T read in place, over the tokens; BGradB: of our B): checked on small exact data, then
/// timed at the MLP's two weight-gradient shapes against the plain GEMM, which the bf16 step
/// runs beside a column-sum launch.
void probeBiasGradients(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf) {
  auto config = [](GemmEpilogue e, int64_t m, int64_t n, int64_t k) {
    CublasLtGemmConfig c;
    c.m = m, c.n = n, c.k = k;
    c.aKMajor = c.bKMajor = false; // A [k, m] and B [k, n]: dY and X (or G) read in place
    c.lda = m, c.ldb = n, c.ldd = n;
    c.aType = c.bType = c.dType = DType::BF16;
    c.epilogue = e;
    if (e != GemmEpilogue::Default)
      c.biasType = DType::BF16;
    return c;
  };
  auto pointers = [&](const CublasLtGemmConfig &c) {
    CublasLtGemmPointers p;
    p.a = buf.a, p.b = buf.b, p.d = buf.d;
    p.bias = c.biasType ? buf.bias : nullptr;
    return p;
  };
  // Exact data: A[k][i] = B[k][i] = ((k % 7) - 3 + (i % 4)) / 4, so a column's sum over 64 k is
  // 16 (i % 4) - 0.75, a bf16 value.
  const int64_t m = 32, n = 48, k = 64;
  std::vector<uint16_t> host(static_cast<size_t>(k * n));
  for (GemmEpilogue e : {GemmEpilogue::BGradA, GemmEpilogue::BGradB}) {
    const int64_t cols = e == GemmEpilogue::BGradA ? m : n;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t i = 0; i < cols; ++i)
        host[size_t(r * cols + i)] = floatToBf16(float((r % 7) - 3 + (i % 4)) / 4.0f);
    const void *dst = e == GemmEpilogue::BGradA ? buf.a : buf.b;
    std::vector<uint16_t> got(static_cast<size_t>(cols));
    const CublasLtGemmConfig c = config(e, m, n, k);
    Status s = Status::ok();
    if (CUresult r = drv->cuMemcpyHtoD(CUdeviceptr(dst), host.data(), size_t(k * cols) * 2);
        r != CUDA_SUCCESS)
      s = Error(drv->errorMessage(r, "cuMemcpyHtoD"));
    if (s)
      s = runner.run(c, pointers(c), nullptr);
    if (s)
      if (CUresult r = drv->cuMemcpyDtoH(got.data(), CUdeviceptr(buf.bias), size_t(cols) * 2);
          r != CUDA_SUCCESS)
        s = Error(drv->errorMessage(r, "cuMemcpyDtoH"));
    int wrong = 0;
    for (int64_t i = 0; s && i < cols; ++i)
      wrong += bf16ToFloat(got[size_t(i)]) != 16.0f * float(i % 4) - 0.75f;
    std::printf("bf16 x bf16 weight gradient, %s (%lld bias values): %s\n",
                e == GemmEpilogue::BGradA ? "bgrad_a" : "bgrad_b", (long long)cols,
                !s      ? s.message().substr(0, 300).c_str()
                : wrong ? (std::to_string(wrong) + " WRONG").c_str()
                        : "all exact");
    // Zeros again for the timing below (as the other probes time).
    std::vector<uint16_t> zeros(host.size(), 0);
    drv->cuMemcpyHtoD(CUdeviceptr(dst), zeros.data(), zeros.size() * 2);
  }
  auto time = [&](const CublasLtGemmConfig &c, const std::string &what) {
    timeGemm(drv, runner, c, pointers(c), what);
  };
  // The MLP's weight gradients: dW2 [4096, 14336] = dY^T G, dW1 [14336, 4096] = dH^T X.
  for (auto [mm, nn] : {std::pair<int64_t, int64_t>{4096, 14336}, {14336, 4096}}) {
    std::printf("timed bf16 x bf16 weight gradient M %lld N %lld K 8192 (A^T B, both read in "
                "place):\n",
                (long long)mm, (long long)nn);
    time(config(GemmEpilogue::Default, mm, nn, 8192), "default (today's wgrad)");
    time(config(GemmEpilogue::BGradA, mm, nn, 8192), "bgrad_a (A's sums over K)");
  }
}

/// The bf16 step's second-layer dgrad as it runs (B = W2 read in place) with DGELU.
void probeBf16Dgrad(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf) {
  std::printf("timed bf16 x bf16 dgrad M 8192 N 14336 K 4096 (B read in place, as the step):\n");
  for (GemmEpilogue e : {GemmEpilogue::Default, GemmEpilogue::DGelu}) {
    CublasLtGemmConfig c = dgradConfig(DType::BF16, e, DType::BF16, 8192, 14336, 4096);
    c.bKMajor = false;
    c.ldb = 14336;
    timeGemm(drv, runner, c, dgradPointers(c, buf),
             e == GemmEpilogue::DGelu ? "dgelu, D bf16" : "default, D bf16 (today's)");
  }
}

} // namespace

int probeBackwardGelu(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf) {
  for (DType operands : {DType::F8E5M2, DType::BF16})
    probeOperands(drv, runner, buf, operands);
  probeBf16Dgrad(drv, runner, buf);
  probeBiasGradients(drv, runner, buf);
  return 0;
}

} // namespace fp8c
