// CublasLtRunner (CublasLtGemm.h): one cuBLASLt handle per device, a workspace per runner,
// descriptors and an algorithm cached per config (the heuristic's candidates, timed on the
// config's first call outside a stream capture), cublasLtMatmul per call.
#include "runtime/cuda/CudaEvents.h"
#include "runtime/gpu/CublasLtCheck.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90Autotune.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

namespace fp8c {

struct CublasLtRunner::Entry {
  std::unique_ptr<CublasLtDescriptors> desc;
  cublasLtMatmulAlgo_t algo;
  size_t workspaceBytes = 0;
  std::vector<cublasLtMatmulAlgo_t> candidates; ///< the heuristic's, its first choice first
  bool tuned = false;
  TuneResult tune;
};

namespace {

// One handle per device, created on first use and kept for the life of the process (every
// runner of the device shares it; a cuBLASLt handle is not tied to a context).
Expected<cublasLtHandle_t> handleForDevice(int ordinal) {
  static std::mutex mu;
  static std::map<int, cublasLtHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = handles.find(ordinal); it != handles.end())
    return it->second;
  cublasLtHandle_t h = nullptr;
  FP8C_CUBLASLT_TRY(cublasLtCreate(&h), "device " + std::to_string(ordinal));
  handles[ordinal] = h;
  return h;
}

struct PreferenceGuard {
  cublasLtMatmulPreference_t pref = nullptr;
  ~PreferenceGuard() {
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
  }
};

} // namespace

Expected<std::unique_ptr<CublasLtRunner>> CublasLtRunner::create() {
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr)
    return Error(drvOr.error());
  std::unique_ptr<CublasLtRunner> runner(new CublasLtRunner());
  Expected<Device> device = (*drvOr)->currentDevice("cuBLASLt");
  if (!device)
    return Error(device.error());
  runner->device_ = *device;
  Expected<cublasLtHandle_t> handle = handleForDevice(device->ordinal);
  if (!handle)
    return Error(handle.error());
  runner->handle_ = *handle;
  Expected<DeviceBuffer> workspace = DeviceBuffer::allocate(kWorkspaceBytes);
  if (!workspace)
    return Error("cuBLASLt workspace: " + workspace.error());
  runner->workspace_ = workspace.take();
  if (const char *env = std::getenv("FP8C_CUBLASLT_AUTOTUNE"); env && std::strcmp(env, "1") == 0)
    runner->autotune_ = true;
  return runner;
}

CublasLtRunner::~CublasLtRunner() = default;

size_t CublasLtRunner::cachedConfigs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

Expected<CublasLtRunner::Entry *> CublasLtRunner::entryFor(const CublasLtGemmConfig &c,
                                                           const CublasLtGemmPointers &p) {
  const std::string key = c.str();
  if (auto it = entries_.find(key); it != entries_.end())
    return it->second.get();
  if (auto it = refused_.find(key); it != refused_.end())
    return Error(it->second);
  if (Status s = checkCublasLtConfig(c, device_.ccMajor, device_.ccMinor); !s)
    return Error(s.message());
  auto entry = std::make_unique<Entry>();
  Expected<std::unique_ptr<CublasLtDescriptors>> desc = CublasLtDescriptors::create(c);
  if (!desc)
    return Error(desc.error());
  entry->desc = desc.take();
  // The heuristic looks at the pointers' alignment, so it sees this call's pointers.
  if (Status s = entry->desc->setPointers(p); !s)
    return Error(s.message());

  PreferenceGuard pref;
  FP8C_CUBLASLT_TRY(cublasLtMatmulPreferenceCreate(&pref.pref), key);
  uint64_t workspace = kWorkspaceBytes;
  FP8C_CUBLASLT_TRY(cublasLtMatmulPreferenceSetAttribute(pref.pref,
                                                         CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &workspace, sizeof workspace),
                    key);
  // cuBLASLt's A is our B and its B our A (cublasLtLayout).
  const uint32_t align[4] = {static_cast<uint32_t>(c.alignB), static_cast<uint32_t>(c.alignA),
                             static_cast<uint32_t>(c.alignD), static_cast<uint32_t>(c.alignD)};
  const cublasLtMatmulPreferenceAttributes_t alignAttr[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i)
    FP8C_CUBLASLT_TRY(
        cublasLtMatmulPreferenceSetAttribute(pref.pref, alignAttr[i], &align[i], sizeof align[i]),
        key);

  cublasLtMatmulHeuristicResult_t results[kTuneCandidates] = {};
  int returned = 0;
  const CublasLtDescriptors &d = *entry->desc;
  const cublasStatus_t hs =
      cublasLtMatmulAlgoGetHeuristic(handle_, d.op, d.a, d.b, d.c, d.d, pref.pref,
                                     autotune_ ? kTuneCandidates : 1, results, &returned);
  if (hs != CUBLAS_STATUS_SUCCESS && hs != CUBLAS_STATUS_NOT_SUPPORTED)
    return Error(cublasLtErrorMessage(hs, "cublasLtMatmulAlgoGetHeuristic", key));
  if (hs == CUBLAS_STATUS_NOT_SUPPORTED || returned == 0 ||
      results[0].state != CUBLAS_STATUS_SUCCESS) {
    std::string why = "cuBLASLt has no algorithm for this GEMM on " + device_.str() + " [" + key +
                      "]: unsupported configuration";
    refused_[key] = why;
    return Error(why);
  }
  entry->algo = results[0].algo;
  entry->workspaceBytes = results[0].workspaceSize;
  for (int i = 0; i < returned; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS || results[i].workspaceSize > kWorkspaceBytes)
      continue;
    uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_NONE;
    size_t written = 0;
    if (i > 0 && cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo,
                                                      CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                                      &scheme, sizeof scheme, &written) !=
                     CUBLAS_STATUS_SUCCESS)
      continue;
    if (scheme == CUBLASLT_REDUCTION_SCHEME_INPLACE)
      continue; // split-K partials added into D with atomics: not deterministic
    entry->candidates.push_back(results[i].algo);
  }
  entry->tuned = entry->candidates.size() <= 1;
  Entry *raw = entry.get();
  entries_.emplace(key, std::move(entry));
  return raw;
}

Expected<bool> CublasLtRunner::supports(const CublasLtGemmConfig &c,
                                        const CublasLtGemmPointers &p) {
  std::lock_guard<std::mutex> lock(mu_);
  Expected<Entry *> e = entryFor(c, p);
  if (e)
    return true;
  if (refused_.count(c.str()))
    return false;
  return Error(e.error());
}

Status CublasLtRunner::matmul(const Entry &e, const cublasLtMatmulAlgo_t &algo,
                              const CublasLtGemmPointers &p, CUstream stream) {
  const float one = 1.0f, zero = 0.0f;
  const CublasLtDescriptors &d = *e.desc;
  // FP8 D: C is unused (beta = 0) and has the bias type, so no pointer.
  const void *cPtr = isFloat8(d.config.dType) ? nullptr : p.d;
  FP8C_CUBLASLT_TRY(cublasLtMatmul(handle_, d.op, &one, p.b, d.a, p.a, d.b, &zero, cPtr, d.c, p.d,
                                   d.d, &algo, workspace_.data(), workspace_.bytes(),
                                   reinterpret_cast<cudaStream_t>(stream)),
                    d.config.str());
  return Status::ok();
}

// Times each candidate on this call's operands (beta = 0: D, and amaxD where asked, are
// rewritten by the call that follows) under a sustained load, as the generated GEMM's autotuner
// does (timeGpuCallsSustainedUs: a soak, then rounds of a batch of each candidate in turn), and
// keeps the fastest.
Status CublasLtRunner::tune(Entry &e, const CublasLtGemmPointers &p, CUstream stream) {
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr)
    return Error(drvOr.error());
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  FP8C_CU_TRY(*drvOr, cuStreamIsCapturing, stream, &capture);
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return Status::ok(); // no timing inside a capture: tuned on a later call
  std::vector<std::function<Status()>> calls;
  for (const cublasLtMatmulAlgo_t &algo : e.candidates)
    calls.push_back([this, &e, &algo, &p, stream] { return matmul(e, algo, p, stream); });
  Expected<std::vector<double>> us = timeGpuCallsSustainedUs(calls, stream);
  if (!us)
    return Error(us.error());
  const size_t pick = static_cast<size_t>(std::min_element(us->begin(), us->end()) - us->begin());
  e.algo = e.candidates[pick];
  e.tune = {static_cast<int>(e.candidates.size()), (*us)[0], (*us)[pick], static_cast<int>(pick),
            *us};
  e.tuned = true;
  return Status::ok();
}

std::optional<CublasLtRunner::TuneResult>
CublasLtRunner::tuneResult(const CublasLtGemmConfig &c) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(c.str());
  if (it == entries_.end() || !it->second->tuned || it->second->tune.candidates == 0)
    return std::nullopt;
  return it->second->tune;
}

Status CublasLtRunner::run(const CublasLtGemmConfig &c, const CublasLtGemmPointers &p,
                           CUstream stream) {
  if (c.m == 0)
    return Status::ok(); // no rows this call: nothing to launch
  std::lock_guard<std::mutex> lock(mu_);
  Expected<Entry *> entryOr = entryFor(c, p);
  if (!entryOr)
    return Error(entryOr.error());
  Entry *e = *entryOr;
  if (Status s = e->desc->setPointers(p); !s)
    return s;
  if (!e->tuned && autotune_)
    if (Status s = tune(*e, p, stream); !s)
      return Error("cuBLASLt autotuning: " + s.message());
  return matmul(*e, e->algo, p, stream);
}

Status CublasLtRunner::run(const GemmStep &g, const LaunchPlan &plan, int64_t m,
                           std::span<const CUdeviceptr> buffers, CUstream stream) {
  auto call = cublasLtCall(g, plan, m, buffers);
  if (!call)
    return Error(call.error());
  if (Status s = run(call->first, call->second, stream); !s)
    return Error("cuBLASLt GEMM '" + g.name + "': " + s.message());
  return Status::ok();
}

} // namespace fp8c
