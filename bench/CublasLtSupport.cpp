// fp8c-cublaslt-support: which FP8 GEMM configurations this device's cuBLASLt runs, by scale
// mode, epilogue, output and bias dtype, over M (decode to prefill) and the Llama-shaped N, K.
// Each configuration is run once on zero-filled operands (support only, no timing); a line per
// (mode, epilogue, D, bias, N, K) lists the M that fail and the first error. The lowering's
// fallbacks (codegen/LowerGemm.cpp, runtime/gpu/CublasLtRunner.cpp) are built on what it shows.
// With --backward it probes the backward's GELU epilogues instead (CublasLtSupportBackward.cpp).
#include "CublasLtSupportBackward.h"

#include "runtime/gpu/CublasLtGemm.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

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
