// fp8c-cublaslt-support: which FP8 GEMM configurations this device's cuBLASLt runs, by scale
// mode, epilogue, output and bias dtype, over M (decode to prefill) and the Llama-shaped N, K.
// Each configuration is run once on zero-filled operands (support only, no timing); a line per
// (mode, epilogue, D, bias, N, K) lists the M that fail and the first error. The lowering's
// fallbacks (codegen/LowerGemm.cpp, runtime/gpu/CublasLtRunner.cpp) are built on what it shows.
//
// fp8c-cublaslt-support --backward: whether this device's cuBLASLt fuses the backward's GELU
// derivative into an FP8 dgrad GEMM (e5m2 dY x e4m3 W^T, tensor scales, fast accumulation off,
// as the training step's dgrad runs): the DGELU and DGELU_BGRAD epilogues reading the GELU
// input (bf16) as the aux matrix, D bf16 or e5m2 (with D scale and amax). Where one runs at the
// MLP's shape (M 8192, N 14336, K 4096) it is timed against the plain GEMM with a bf16 D, the
// form the training step runs (then its gelu_grad cast-transpose launch reads D and the GELU
// input back). On the H200 DGELU ran with a bf16 D only, at over twice the plain GEMM's time,
// so no plan uses it (docs/gemm.md).
// The same epilogues on the bf16 step's dgrad GEMM (bf16 x bf16, D bf16) are probed and timed
// too, and the bias gradient in the bf16 weight-gradient GEMM's epilogue (BGRADA / BGRADB,
// checked on exact data): the bf16 baseline runs those GEMMs plain, then a gelu_grad launch and
// column-sum launches, where TransformerEngine's bf16 MLP asks cuBLASLt for these epilogues.
#include "Timing.h"
#include "ir/DType.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

namespace fp8c {

/// Device buffers large enough for M 8192, N and K up to 14336 with bf16 operands (zero-filled).
struct BackwardBuffers {
  const void *a = nullptr, *b = nullptr;
  void *d = nullptr, *bias = nullptr, *aux = nullptr;
  const float *scale = nullptr;
  float *amax = nullptr;
};

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

/// Prints a support line per (epilogue, D type, N, K) and the timings; returns the exit status.
int probeBackwardGelu(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf) {
  for (DType operands : {DType::F8E5M2, DType::BF16})
    probeOperands(drv, runner, buf, operands);
  probeBf16Dgrad(drv, runner, buf);
  probeBiasGradients(drv, runner, buf);
  return 0;
}

} // namespace fp8c

using namespace fp8c;

namespace {

DeviceBuffer zeroed(CudaDriver *drv, size_t bytes) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(bytes);
  if (!b) {
    std::fprintf(stderr, "fp8c-cublaslt-support: %s\n", b.error().c_str());
    std::exit(1);
  }
  drv->cuMemsetD8Async(b->ptr(), 0, bytes, nullptr);
  return b.take();
}

const char *modeName(GemmScaleMode m) {
  return m == GemmScaleMode::Tensor ? "tensor" : m == GemmScaleMode::OuterVector ? "outer_vector" : "block128";
}

} // namespace

int main(int argc, char **argv) {
  const bool backward = argc > 1 && std::string(argv[1]) == "--backward";
  if (argc > 1 && !backward) {
    std::fprintf(stderr, "usage: fp8c-cublaslt-support [--backward]\n");
    return 2;
  }
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr) {
    std::fprintf(stderr, "fp8c-cublaslt-support: %s\n", drvOr.error().c_str());
    return 1;
  }
  CudaDriver *drv = *drvOr;
  if (Status st = drv->makeCurrent(0); !st) {
    std::fprintf(stderr, "fp8c-cublaslt-support: %s\n", st.message().c_str());
    return 1;
  }
  std::printf("device: %s\n", drv->device(0)->str().c_str());
  Expected<std::unique_ptr<CublasLtRunner>> runner = CublasLtRunner::create();
  if (!runner) {
    std::fprintf(stderr, "fp8c-cublaslt-support: %s\n", runner.error().c_str());
    return 1;
  }
  const int64_t maxM = 8192, maxN = 14336, maxK = 14336;
  // Two bytes per operand element: --backward probes bf16 operands too.
  DeviceBuffer a = zeroed(drv, maxM * maxK * 2), b = zeroed(drv, maxN * maxK * 2);
  DeviceBuffer d = zeroed(drv, maxM * maxN * 4), bias = zeroed(drv, maxN * 4);
  DeviceBuffer sa = zeroed(drv, 4 * maxM * (maxK / 128 + 4)), sb = zeroed(drv, 4 * maxN * (maxK / 128 + 4));
  DeviceBuffer amax = zeroed(drv, 256), scaleD = zeroed(drv, 256);
  if (backward) {
    DeviceBuffer aux = zeroed(drv, maxM * maxN * 2), one = zeroed(drv, 256);
    const float kOne = 1.0f;
    drv->cuMemcpyHtoD(one.ptr(), &kOne, sizeof kOne);
    BackwardBuffers bb;
    bb.a = a.data(), bb.b = b.data(), bb.d = d.data(), bb.bias = bias.data(), bb.aux = aux.data();
    bb.scale = static_cast<const float *>(one.data());
    bb.amax = static_cast<float *>(amax.data());
    return probeBackwardGelu(drv, **runner, bb);
  }

  const std::vector<int64_t> ms = {1, 2, 4, 8, 15, 16, 32, 37, 64, 100, 128, 256, 1000, 8192};
  const std::pair<int64_t, int64_t> nks[] = {{14336, 4096}, {4096, 14336}, {256, 256}, {1024, 512}};
  struct Epi {
    GemmEpilogue e;
    const char *name;
  };
  int lines = 0, unsupported = 0;
  for (GemmScaleMode mode : {GemmScaleMode::Tensor, GemmScaleMode::OuterVector, GemmScaleMode::Block128})
    for (Epi epi : {Epi{GemmEpilogue::Default, "default"}, Epi{GemmEpilogue::Bias, "bias"},
                    Epi{GemmEpilogue::GeluBias, "gelu_bias"}})
      for (DType dt : {DType::BF16, DType::F32, DType::F8E4M3FN})
        for (std::optional<DType> bt : {std::optional<DType>{}, std::optional<DType>{DType::BF16},
                                        std::optional<DType>{DType::F32}}) {
          if ((epi.e == GemmEpilogue::Default) != !bt.has_value())
            continue;
          for (auto [n, k] : nks) {
            std::vector<std::string> fails;
            std::string firstError;
            for (int64_t m : ms) {
              CublasLtGemmConfig c;
              c.m = m, c.n = n, c.k = k, c.lda = k, c.ldb = k, c.ldd = n;
              c.dType = dt, c.biasType = bt, c.scaleMode = mode, c.epilogue = epi.e;
              c.fastAccum = mode != GemmScaleMode::Block128;
              c.hasScaleD = isFloat8(dt);
              CublasLtGemmPointers p;
              p.a = a.data(), p.b = b.data(), p.d = d.data();
              p.invScaleA = static_cast<const float *>(sa.data());
              p.invScaleB = static_cast<const float *>(sb.data());
              p.bias = bt ? bias.data() : nullptr;
              p.scaleD = c.hasScaleD ? static_cast<const float *>(scaleD.data()) : nullptr;
              Status s = (*runner)->run(c, p, nullptr);
              if (s)
                if (CUresult r = drv->cuCtxSynchronize(); r != CUDA_SUCCESS)
                  s = Error(drv->errorMessage(r, "cuCtxSynchronize"));
              if (!s) {
                fails.push_back(std::to_string(m));
                if (firstError.empty())
                  firstError = s.message();
              }
            }
            ++lines;
            unsupported += !fails.empty();
            std::string failed;
            for (const std::string &f : fails)
              failed += (failed.empty() ? "" : ",") + f;
            std::printf("%-12s %-9s D=%-9s bias=%-5s N=%-5lld K=%-5lld  %s%s\n", modeName(mode),
                        epi.name, std::string(dtypeName(dt)).c_str(), bt ? std::string(dtypeName(*bt)).c_str() : "-",
                        (long long)n, (long long)k,
                        fails.empty() ? "all M ok" : ("fails at M=" + failed).c_str(),
                        firstError.empty() ? "" : ("\n    first error: " + firstError.substr(0, 300)).c_str());
          }
        }
  std::printf("%d configurations x %zu M values; %d with failures\n", lines, ms.size(), unsupported);
  return 0;
}
