// fp8c-gemm-energy: the GEMMs of a training step alone, bf16 against FP8, in sustained blocks
// (bench/SustainedTiming.h) with NVML's energy per step. Under the H200's power cap a step's
// time follows its energy, so the FP8 GEMMs' energy ratio against the bf16 GEMMs bounds what a
// whole FP8 training step can gain over the bf16 step, whatever its other launches cost.
//
//   fp8c-gemm-energy [--tokens=8192] [--blocks=6] [--block-ms=2000] [--graphs=mlp,linear]
//
// The GEMMs are those of fp8c-train-bench's examples/mlp.mlir and examples/linear.mlir (D 4096,
// H 14336) at --tokens rows, all through cuBLASLt (runtime/gpu/CublasLtGemm.h), TN, bf16 out:
//   forward   Y[T, N] = X[T, K] W[N, K]^T          FP8: e4m3 x e4m3, fast accumulation
//   dgrad     dX[T, K] = dY[T, N] W^T[K, N]^T      FP8: e5m2 x e4m3, promoted (fast accum off)
//   wgrad     dW[N, K] = dY^T[N, T] X^T[K, T]^T    FP8: e5m2 x e4m3, promoted
// The MLP has two of each (K 4096 N 14336, then K 14336 N 4096). No bias, activation or cast:
// the floor of the step's GEMM work. FP8 operands are N(0, 64^2) rounded (a delayed scale puts
// the amax near the top of e4m3's range), bf16 ones N(0, 1) and N(0, 0.02^2) for weights.
#include "bench/BenchDevice.h"
#include "bench/DeviceFill.h"
#include "bench/SustainedTiming.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <cstdio>
#include <sstream>

using namespace fp8c;
using namespace fp8c::bench;

namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "fp8c-gemm-energy: error: %s\n", msg.c_str());
  return 1;
}

struct Dims {
  int64_t m, n, k;
  bool gradA; ///< A is a gradient (e5m2, promoted accumulation in FP8)
};

// The step's GEMMs for one linear layer of K inputs and N outputs at T tokens.
void linearGemms(int64_t t, int64_t k, int64_t n, std::vector<Dims> &out) {
  out.push_back({t, n, k, false}); // forward
  out.push_back({t, k, n, true});  // dgrad
  out.push_back({n, k, t, true});  // wgrad
}

// One sequence of GEMMs in one precision, its buffers owned.
class GemmSequence {
public:
  Status init(CublasLtRunner *runner, const std::vector<Dims> &dims, bool fp8) {
    runner_ = runner;
    uint64_t seed = fp8 ? 100 : 200;
    for (const Dims &d : dims) {
      CublasLtGemmConfig c;
      c.m = d.m;
      c.n = d.n;
      c.k = d.k;
      c.lda = c.ldb = d.k;
      c.ldd = d.n;
      c.dType = DType::BF16;
      if (fp8) {
        c.aType = d.gradA ? DType::F8E5M2 : DType::F8E4M3FN;
        c.bType = DType::F8E4M3FN;
        c.fastAccum = !d.gradA;
      } else {
        c.aType = c.bType = DType::BF16;
      }
      const Device &dev = runner_->device();
      if (Status s = checkCublasLtConfig(c, dev.ccMajor, dev.ccMinor); !s)
        return s;
      const size_t eb = fp8 ? 1 : 2;
      Expected<DeviceBuffer> a = allocateFor(size_t(d.m * d.k) * eb, "A");
      Expected<DeviceBuffer> b = allocateFor(size_t(d.n * d.k) * eb, "B");
      Expected<DeviceBuffer> o = allocateFor(size_t(d.m * d.n) * 2, "D");
      Expected<DeviceBuffer> ia = allocateFor(16, "1/sA");
      Expected<DeviceBuffer> ib = allocateFor(16, "1/sB");
      for (auto *x : {&a, &b, &o, &ia, &ib})
        if (!*x)
          return Error(x->error());
      if (Status s = fillRandom(*a, d.m * d.k, c.aType, fp8 ? 64.0 : 1.0, seed++); !s)
        return s;
      if (Status s = fillRandom(*b, d.n * d.k, c.bType, fp8 ? 64.0 : 0.02, seed++); !s)
        return s;
      if (Status s = fillF32(*ia, 1, 1.0f / 64, nullptr); !s)
        return s;
      if (Status s = fillF32(*ib, 1, 1.0f / 64, nullptr); !s)
        return s;
      CublasLtGemmPointers p;
      p.a = a->data();
      p.b = b->data();
      p.d = o->data();
      if (fp8) {
        p.invScaleA = static_cast<const float *>(ia->data());
        p.invScaleB = static_cast<const float *>(ib->data());
      }
      calls_.push_back({c, p});
      for (auto *x : {&a, &b, &o, &ia, &ib})
        bufs_.push_back(x->take());
    }
    return Status::ok();
  }

  Status run(CUstream stream) {
    for (const auto &[c, p] : calls_)
      if (Status s = runner_->run(c, p, stream); !s)
        return s;
    return Status::ok();
  }

private:
  CublasLtRunner *runner_ = nullptr;
  std::vector<std::pair<CublasLtGemmConfig, CublasLtGemmPointers>> calls_;
  std::vector<DeviceBuffer> bufs_;
};

} // namespace

int main(int argc, char **argv) {
  int64_t tokens = 8192;
  int blocks = 6;
  double blockMs = 2000;
  std::vector<std::string> graphs = {"mlp", "linear"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    try {
      if (a.rfind("--tokens=", 0) == 0)
        tokens = std::stoll(a.substr(9));
      else if (a.rfind("--blocks=", 0) == 0)
        blocks = std::stoi(a.substr(9));
      else if (a.rfind("--block-ms=", 0) == 0)
        blockMs = std::stod(a.substr(11));
      else if (a.rfind("--graphs=", 0) == 0) {
        graphs.clear();
        std::stringstream ss(a.substr(9));
        for (std::string g; std::getline(ss, g, ',');)
          graphs.push_back(g);
      } else
        return fail("unknown argument " + a +
                    " (see the comment at the top of "
                    "bench/GemmEnergyBench.cpp)");
    } catch (const std::exception &) {
      return fail("bad value in " + a);
    }
  }
  if (tokens < 1 || blocks < 1 || !(blockMs > 0))
    return fail("--tokens, --blocks and --block-ms must be positive");
  Expected<BenchDevice> bd = openBenchDevice();
  if (!bd)
    return fail(bd.error());
  Expected<std::unique_ptr<CublasLtRunner>> runner = CublasLtRunner::create();
  if (!runner)
    return fail(runner.error());
  Expected<std::unique_ptr<PowerMonitor>> monitor = PowerMonitor::open(bd->drv, bd->dev.ordinal);
  if (!monitor)
    return fail("this bench reports energy, and NVML is not there: " + monitor.error());
  std::printf("fp8c-gemm-energy on %s, %lld tokens, %d rounds of a %.0f ms block per precision "
              "(the last two thirds timed)\n",
              bd->dev.str().c_str(), static_cast<long long>(tokens), blocks, blockMs);
  for (const std::string &graph : graphs) {
    std::vector<Dims> dims;
    if (graph == "mlp") {
      linearGemms(tokens, 4096, 14336, dims);
      linearGemms(tokens, 14336, 4096, dims);
    } else if (graph == "linear") {
      linearGemms(tokens, 4096, 14336, dims);
    } else {
      return fail("unknown graph '" + graph + "' (mlp or linear)");
    }
    GemmSequence seq[2]; // bf16, FP8
    for (int p = 0; p < 2; ++p)
      if (Status s = seq[p].init(runner->get(), dims, p == 1); !s)
        return fail(graph + ": " + s.message());
    std::vector<SustainedBlock> got[2];
    double estimateUs[2];
    for (int p = 0; p < 2; ++p) {
      RunFn run = [&, p](int) { return seq[p].run(bd->stream); };
      // The estimate sizes the blocks; it also runs cuBLASLt's heuristic outside them.
      SustainedOptions probe;
      probe.blockMs = 50;
      Expected<SustainedBlock> b = timeSustained(bd->drv, bd->stream, run, 1000, probe, nullptr);
      if (!b)
        return fail(graph + ": " + b.error());
      estimateUs[p] = b->kept.medianUs;
    }
    SustainedOptions so;
    so.blockMs = blockMs;
    for (int r = 0; r < blocks; ++r)
      for (int p = 0; p < 2; ++p) {
        RunFn run = [&, p](int) { return seq[p].run(bd->stream); };
        Expected<SustainedBlock> b =
            timeSustained(bd->drv, bd->stream, run, estimateUs[p], so, monitor->get());
        if (!b)
          return fail(graph + ": " + b.error());
        got[p].push_back(*b);
      }
    double us[2], joules[2];
    std::vector<double> timeRatios, energyRatios;
    for (int r = 0; r < blocks; ++r) {
      timeRatios.push_back(got[0][r].kept.medianUs / got[1][r].kept.medianUs);
      if (got[1][r].joulesPerStep > 0)
        energyRatios.push_back(got[0][r].joulesPerStep / got[1][r].joulesPerStep);
    }
    for (int p = 0; p < 2; ++p) {
      std::vector<double> t, j;
      double w = 0, mhz = 0;
      for (const SustainedBlock &b : got[p]) {
        t.push_back(b.kept.medianUs);
        j.push_back(b.joulesPerStep);
        w += b.meanWatts / blocks;
        mhz += b.sampledSmMhz / blocks;
      }
      us[p] = statsOf(t).medianUs;
      joules[p] = statsOf(j).medianUs;
      std::printf("%-7s %zu GEMMs %-5s median %9.1f us  %.4f J  %.0f W  SM %.0f MHz\n",
                  graph.c_str(), dims.size(), p ? "fp8" : "bf16", us[p], joules[p], w, mhz);
    }
    std::printf("%-7s FP8 GEMMs against bf16 GEMMs: time x%.3f, energy x%.3f (medians of the "
                "per-round ratios)\n",
                graph.c_str(), statsOf(timeRatios).medianUs, statsOf(energyRatios).medianUs);
    std::fflush(stdout);
  }
  return 0;
}
