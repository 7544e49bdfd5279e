// CublasLtRunner (CublasLtGemm.h): one cuBLASLt handle per device, a workspace per runner,
// descriptors and the heuristic's algorithm cached per config, cublasLtMatmul per call.
#include "runtime/gpu/CublasLtCheck.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <map>

namespace fp8c {

struct CublasLtRunner::Entry {
  std::unique_ptr<CublasLtDescriptors> desc;
  cublasLtMatmulAlgo_t algo;
  size_t workspaceBytes = 0;
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

  cublasLtMatmulHeuristicResult_t result = {};
  int returned = 0;
  const CublasLtDescriptors &d = *entry->desc;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(handle_, d.op, d.a, d.b, d.c, d.d,
                                                           pref.pref, 1, &result, &returned);
  if (hs != CUBLAS_STATUS_SUCCESS && hs != CUBLAS_STATUS_NOT_SUPPORTED)
    return Error(cublasLtErrorMessage(hs, "cublasLtMatmulAlgoGetHeuristic", key));
  if (hs == CUBLAS_STATUS_NOT_SUPPORTED || returned == 0 ||
      result.state != CUBLAS_STATUS_SUCCESS) {
    std::string why = "cuBLASLt has no algorithm for this GEMM on " + device_.str() + " [" + key +
                      "]: unsupported configuration";
    refused_[key] = why;
    return Error(why);
  }
  entry->algo = result.algo;
  entry->workspaceBytes = result.workspaceSize;
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
  const float one = 1.0f, zero = 0.0f;
  // FP8 D: C is unused (beta = 0) and has the bias type, so no pointer.
  const void *cPtr = isFloat8(c.dType) ? nullptr : p.d;
  const CublasLtDescriptors &d = *e->desc;
  FP8C_CUBLASLT_TRY(cublasLtMatmul(handle_, d.op, &one, p.b, d.a, p.a, d.b, &zero, cPtr, d.c, p.d,
                                   d.d, &e->algo, workspace_.data(), workspace_.bytes(),
                                   reinterpret_cast<cudaStream_t>(stream)),
                    c.str());
  return Status::ok();
}

Status CublasLtRunner::run(const CublasLtGemm &g, const LaunchPlan &plan, int64_t m,
                           std::span<const CUdeviceptr> buffers, CUstream stream) {
  auto call = cublasLtCall(g, plan, m, buffers);
  if (!call)
    return Error(call.error());
  if (Status s = run(call->first, call->second, stream); !s)
    return Error("cuBLASLt GEMM '" + g.name + "': " + s.message());
  return Status::ok();
}

} // namespace fp8c
