// `fp8c --run=gpu [--check] [--bench]`: compiles the graph for the GPU, uploads the inputs
// (.npy or seeded random), runs it into poisoned output buffers, downloads the outputs;
// --check compares them with the CPU interpreter on the same inputs, --bench times run()
// with CUDA events (warm-up excluded, median of many runs). --backend picks who runs the FP8
// GEMMs (--autotune: measured at compile time on Hopper); after the first run it prints, per
// GEMM, which backend ran it and, where measured, the times behind the choice. --profile (with
// --bench) adds each step's median time. Every run prints a warning per amax history that
// skipped a non-finite amax; --check also counts each output's NaN / inf values on the device
// (Executable::nonFiniteReport) and fails (exit 1) when any was seen.
#include "RunGpu.h"
#include "RunCommand.h"

#include "runtime/DeviceTensorIO.h"
#include "driver/Compile.h"
#include "interp/Interpreter.h"
#include "runtime/StepProfiler.h"
#include "interp/TensorStats.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace fp8c::cli {
namespace {

// --bench: 10 warm-up runs, then the median of 100 runs timed with CUDA events on the legacy
// stream; with --profile, the median time of each step over 20 more runs.
Expected<std::string> benchRuns(CudaDriver &drv, Executable &E, const Bindings &bindings,
                                bool profile) {
  struct Events {
    CudaDriver &drv;
    CUevent start = nullptr, stop = nullptr;
    ~Events() {
      if (start)
        drv.cuEventDestroy(start);
      if (stop)
        drv.cuEventDestroy(stop);
    }
  } ev{drv};
  FP8C_CU_TRY(&drv, cuEventCreate, &ev.start, CU_EVENT_DEFAULT);
  FP8C_CU_TRY(&drv, cuEventCreate, &ev.stop, CU_EVENT_DEFAULT);
  for (int i = 0; i < 10; ++i)
    if (Status st = E.run(bindings, nullptr); !st)
      return Error(st.message());
  std::vector<float> times;
  for (int i = 0; i < 100; ++i) {
    FP8C_CU_TRY(&drv, cuEventRecord, ev.start, nullptr);
    if (Status st = E.run(bindings, nullptr); !st)
      return Error(st.message());
    FP8C_CU_TRY(&drv, cuEventRecord, ev.stop, nullptr);
    FP8C_CU_TRY(&drv, cuEventSynchronize, ev.stop);
    float ms = 0;
    FP8C_CU_TRY(&drv, cuEventElapsedTime, &ms, ev.start, ev.stop);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  char buf[256];
  std::snprintf(buf, sizeof buf, "--bench: median %.1f us, p10 %.1f us, p90 %.1f us over %zu runs\n",
                times[times.size() / 2] * 1e3, times[times.size() / 10] * 1e3,
                times[times.size() * 9 / 10] * 1e3, times.size());
  std::string out = buf;
  if (!profile)
    return out;
  Expected<std::vector<StepTime>> steps = medianStepTimes(E, bindings, 20, nullptr);
  if (!steps)
    return Error(steps.error());
  out += "--profile: median of 20 runs per step (an event after each step)\n";
  double sum = 0;
  for (const StepTime &s : *steps) {
    sum += s.us;
    std::snprintf(buf, sizeof buf, "  %9.1f us  %s: %s\n", s.us, s.name.c_str(),
                  s.what.substr(0, 150).c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "  %9.1f us  total of the step medians\n", sum);
  return out + buf;
}

} // namespace

bool runOnGpu(const Options &o, const Graph &g, const std::vector<HostTensor> &inputs,
              std::ostream &out) {
  CompileOptions co;
  co.passes = "shape-infer,fuse,dce"; // the CLI's own pipeline already ran
  co.arch = o.arch ? o.arch->name : ""; // none: the device's
  co.backend = o.backend;
  co.load.autotune = o.autotune;
  co.load.maxTokens = 1;
  co.load.countNonFinite = o.check;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (g.input(i)->type().rank() > 0 && g.input(i)->type().isDynamicDim(0))
      co.load.maxTokens = std::max<int64_t>(co.load.maxTokens, inputs[i].shape[0]);
  Expected<std::unique_ptr<Executable>> exe = compile(g, co);
  if (!exe) {
    std::cerr << "fp8c: error: " << exe.error() << "\n";
    return false;
  }
  Executable &E = **exe;
  out << "// compiled @" << g.name() << " for the GPU: " << E.plan().steps.size() << " steps, "
      << E.coldCompiles() << " kernels compiled cold, JIT " << E.jitSeconds() * 1e3 << " ms\n";
  CudaDriver *drv = *CudaDriver::get();

  Bindings bindings;
  std::vector<DeviceBuffer> owned;
  const Graph &cg = E.graph();
  for (unsigned i = 0; i < cg.numInputs(); ++i) {
    if (cg.inputAttrs(i).has("fp8.state"))
      continue; // state lives in the executable
    const std::string &name = cg.input(i)->name();
    const HostTensor *h = nullptr;
    for (unsigned j = 0; j < g.numInputs(); ++j)
      if (g.input(j)->name() == name)
        h = &inputs[j];
    if (!h) {
      std::cerr << "fp8c: error: no value for input '" << name << "'\n";
      return false;
    }
    Expected<DeviceBuffer> buf = uploadTensor(*h);
    if (!buf) {
      std::cerr << "fp8c: error: input '" << name << "': " << buf.error() << "\n";
      return false;
    }
    bindings[name] = {buf->data(), h->shape, h->dtype};
    owned.push_back(buf.take());
  }
  // Outputs: shapes from the interpreter's view of the types, M from the inputs.
  int64_t m = co.load.maxTokens;
  std::vector<std::pair<std::string, TensorType>> outs;
  std::vector<int64_t> divisors;
  for (const BufferDesc &d : E.plan().buffers)
    if (d.role == BufferRole::Output) {
      outs.push_back({d.name, d.type});
      divisors.push_back(d.mDivisor);
    }
  std::vector<size_t> outIndex;
  for (size_t oi = 0; oi < outs.size(); ++oi) {
    auto &[name, type] = outs[oi];
    std::vector<int64_t> shape = type.shape();
    for (int64_t &d : shape)
      if (d == kDynamic)
        d = (m + divisors[oi] - 1) / divisors[oi];
    size_t bytes = static_cast<size_t>(TensorType(shape, type.dtype()).numElements()) *
                   dtypeBytes(type.dtype());
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(std::max<size_t>(bytes, 1));
    if (!buf || !buf->fill(0xFF)) { // poison: NaN in every float format
      std::cerr << "fp8c: error: cannot allocate output '" << name << "'\n";
      return false;
    }
    bindings[name] = {buf->data(), shape, type.dtype()};
    outIndex.push_back(owned.size());
    owned.push_back(buf.take());
  }

  if (Status st = E.run(bindings, nullptr); !st) {
    std::cerr << "fp8c: error: " << st.message() << "\n";
    return false;
  }
  if (Status st = E.enqueueNonFiniteReport(nullptr); !st) {
    std::cerr << "fp8c: error: " << st.message() << "\n";
    return false;
  }
  if (CUresult r = drv->cuStreamSynchronize(nullptr); r != CUDA_SUCCESS) {
    std::cerr << "fp8c: error: " << drv->errorMessage(r, "cuStreamSynchronize", "after run")
              << "\n";
    return false;
  }
  const NonFiniteReport nonFinite = E.nonFiniteReport();
  for (const std::string &line : E.gemmBackendLog())
    out << "// GEMM " << line << "\n";
  std::vector<HostTensor> results;
  for (size_t i = 0; i < outs.size(); ++i) {
    const DeviceTensor &t = bindings[outs[i].first];
    Expected<HostTensor> h = downloadTensor(owned[outIndex[i]], t.shape, t.dtype);
    if (!h) {
      std::cerr << "fp8c: error: output '" << outs[i].first << "': " << h.error() << "\n";
      return false;
    }
    results.push_back(h.take());
  }

  std::optional<std::vector<HostTensor>> ref;
  if (o.check) {
    std::vector<HostTensor> refInputs;
    for (unsigned i = 0; i < cg.numInputs(); ++i) {
      const std::string &name = cg.input(i)->name();
      bool found = false;
      for (unsigned j = 0; j < g.numInputs() && !found; ++j)
        if (g.input(j)->name() == name) {
          refInputs.push_back(inputs[j]);
          found = true;
        }
      if (!found) // a state input: zeros, as the executable's fresh state
        refInputs.push_back(HostTensor::make(cg.input(i)->type().shape(), cg.input(i)->type().dtype()));
    }
    Expected<std::vector<HostTensor>> r = interpret(cg, refInputs);
    if (!r) {
      std::cerr << "fp8c: error: --check: " << r.error() << "\n";
      return false;
    }
    ref = r.take();
  }
  for (size_t i = 0; i < results.size(); ++i) {
    TensorStats s = computeStats(results[i]);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "output '%s' %s: mean=%.6g std=%.6g absmax=%.6g nan=%lld inf=%lld\n",
                  outs[i].first.c_str(), TensorType(results[i].shape, results[i].dtype).str().c_str(),
                  s.mean, s.stddev, s.absMax, static_cast<long long>(s.nanCount),
                  static_cast<long long>(s.infCount));
    out << buf;
    if (ref) {
      const HostTensor &r = (*ref)[i];
      std::snprintf(buf, sizeof buf,
                    "  --check vs interpreter: relative Frobenius error %.3g, %lld of %lld "
                    "elements differ in bits\n",
                    relativeFrobeniusError(results[i], r),
                    static_cast<long long>(countBitMismatches(results[i], r)),
                    static_cast<long long>(r.data.size()));
      out << buf;
    }
  }

  const bool clean = reportNonFinite(nonFinite, o.check);
  E.setCountNonFinite(false); // (--bench times the runs alone)
  if (o.bench) {
    Expected<std::string> report = benchRuns(*drv, E, bindings, o.profile);
    if (!report) {
      std::cerr << "fp8c: error: --bench: " << report.error() << "\n";
      return false;
    }
    out << *report;
  }
  return clean;
}

} // namespace fp8c::cli
