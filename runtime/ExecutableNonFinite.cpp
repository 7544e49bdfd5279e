// Executable's non-finite reporting (Executable.h: CompileOptions::countNonFinite,
// enqueueNonFiniteReport, nonFiniteReport; docs/numerics.md, "Reporting"). The histories count
// their skipped amaxes themselves (codegen/kernels/common.cuh, historySkipCounter: a u32 after
// each State buffer's bytes); the outputs are counted after the run's steps by one launch each
// (codegen/kernels/nonfinite.cuh) into a u64 per output, zeroed by one memset per run. The
// report copies both into pinned host memory on the caller's stream: no synchronization here.
#include "runtime/ExecutableNonFinite.h"
#include "runtime/Executable.h"
#include "runtime/ExecutableImpl.h"

#include "runtime/cuda/LoadedModules.h"
#include "runtime/jit/KernelCache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fp8c {
namespace {

constexpr int kCountThreads = 256;

struct CountedType {
  DType dtype;
  const char *dt;   // codegen/kernels' Dt
  const char *name; // the entry's suffix
};
constexpr CountedType kCounted[] = {{DType::F32, "F32", "f32"},
                                    {DType::F16, "F16", "f16"},
                                    {DType::BF16, "BF16", "bf16"},
                                    {DType::F8E4M3FN, "E4M3", "e4m3"},
                                    {DType::F8E5M2, "E5M2", "e5m2"}};

} // namespace

std::string nonFiniteCountSource() {
  std::string s = "// The output checks of an Executable: NaN / inf elements per dtype.\n"
                  "#include \"fp8c/nonfinite.cuh\"\n";
  for (const CountedType &c : kCounted)
    s += std::string("\nextern \"C\" __global__ void __launch_bounds__(") +
         std::to_string(kCountThreads) + ") fp8c_count_nonfinite_" + c.name +
         "(const void *data, long long n, unsigned long long *count) {\n"
         "  fp8c::countNonFinite<fp8c::Dt::" +
         c.dt + ">(data, n, count);\n}\n";
  return s;
}

std::string nonFiniteCountEntry(DType dt) {
  for (const CountedType &c : kCounted)
    if (c.dtype == dt)
      return std::string("fp8c_count_nonfinite_") + c.name;
  return "";
}

Expected<PinnedHostBuffer> PinnedHostBuffer::allocate(CudaDriver *drv, size_t bytes) {
  PinnedHostBuffer b;
  b.drv_ = drv;
  FP8C_CU_TRY(drv, cuMemAllocHost, &b.ptr_, std::max<size_t>(bytes, 16));
  std::memset(b.ptr_, 0, std::max<size_t>(bytes, 16));
  return b;
}

PinnedHostBuffer::~PinnedHostBuffer() {
  if (ptr_)
    drv_->cuMemFreeHost(ptr_);
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer &&o) noexcept : drv_(o.drv_), ptr_(o.ptr_) {
  o.ptr_ = nullptr;
}

PinnedHostBuffer &PinnedHostBuffer::operator=(PinnedHostBuffer &&o) noexcept {
  if (this != &o) {
    if (ptr_)
      drv_->cuMemFreeHost(ptr_);
    drv_ = o.drv_;
    ptr_ = o.ptr_;
    o.ptr_ = nullptr;
  }
  return *this;
}

Status Executable::Impl::prepareNonFinite(bool countOutputs) {
  canCount = countNonFinite = countOutputs;
  for (size_t i = 0; i < plan().buffers.size(); ++i) {
    if (plan().buffers[i].role == BufferRole::Output)
      outputBuffers.push_back(static_cast<int>(i));
    else if (plan().buffers[i].role == BufferRole::State)
      stateBuffers.push_back(static_cast<int>(i));
  }
  Expected<PinnedHostBuffer> host =
      PinnedHostBuffer::allocate(drv, outputBuffers.size() * 8 + stateBuffers.size() * 4);
  if (!host)
    return Error(host.error());
  report = host.take();
  if (!countNonFinite || outputBuffers.empty())
    return Status::ok();
  Expected<DeviceBuffer> counts = DeviceBuffer::allocate(outputBuffers.size() * 8);
  if (!counts)
    return Error(counts.error());
  outputCounts = counts.take();
  FP8C_CU_TRY(drv, cuMemsetD8Async, outputCounts.ptr(), 0, outputCounts.bytes(), nullptr);
  NvrtcRequest req;
  req.kernelName = "fp8c_count_nonfinite";
  req.source = nonFiniteCountSource();
  req.arch = arch;
  Expected<std::shared_ptr<const CachedKernel>> k = KernelCache::global().get(req);
  if (!k)
    return Error(k.error());
  jitSeconds += (*k)->seconds;
  coldCompiles += !(*k)->fromDisk && !(*k)->fromMemory;
  for (int b : outputBuffers) {
    const DType dt = plan().buffers[static_cast<size_t>(b)].type.dtype();
    const std::string entry = nonFiniteCountEntry(dt);
    if (entry.empty() || countKernels.count(dt))
      continue;
    Expected<CUfunction> fn = LoadedModules::global().function(**k, entry);
    if (!fn)
      return Error(fn.error());
    Expected<int> perSm = maxActiveBlocksPerSM(*fn, kCountThreads, 0);
    if (!perSm)
      return Error(perSm.error());
    countKernels[dt] = {*fn, std::max(*perSm, 1) * device.smCount};
  }
  return Status::ok();
}

Status Executable::Impl::countOutputs(const std::vector<CUdeviceptr> &ptrs, int64_t m,
                                      CUstream stream) {
  lastRunCounted = canCount && countNonFinite;
  if (!lastRunCounted || outputBuffers.empty())
    return Status::ok();
  FP8C_CU_TRY(drv, cuMemsetD8Async, outputCounts.ptr(), 0, outputCounts.bytes(), stream);
  for (size_t o = 0; o < outputBuffers.size(); ++o) {
    const BufferDesc &d = plan().buffers[static_cast<size_t>(outputBuffers[o])];
    auto k = countKernels.find(d.type.dtype());
    if (k == countKernels.end())
      continue; // (an i32 output: nothing to count)
    const int64_t elemBytes = dtypeBytes(d.type.dtype());
    long long n = d.bytes(m) / elemBytes; // an Output binding is compact
    if (n <= 0)
      continue;
    const int64_t perBlock = kCountThreads * (16 / elemBytes);
    const int64_t blocks =
        std::clamp<int64_t>((n + perBlock - 1) / perBlock, 1, k->second.maxBlocks);
    const void *data = reinterpret_cast<const void *>(ptrs[static_cast<size_t>(outputBuffers[o])]);
    CUdeviceptr count = outputCounts.ptr() + o * 8;
    void *args[] = {&data, &n, &count};
    if (Status st = drv->launch(k->second.fn, static_cast<unsigned>(blocks), kCountThreads, 0,
                                stream, args, false, "fp8c_count_nonfinite");
        !st)
      return st;
  }
  return Status::ok();
}

void Executable::setCountNonFinite(bool on) { impl_->countNonFinite = on; }

Status Executable::enqueueNonFiniteReport(CUstream stream) {
  Impl &I = *impl_;
  Expected<ScopedContext> scope = ScopedContext::enter(I.drv, I.device.ordinal);
  if (!scope)
    return Error(scope.error());
  unsigned char *host = I.report.data();
  I.reportCounted = I.lastRunCounted;
  if (I.canCount && !I.outputBuffers.empty())
    FP8C_CU_TRY(I.drv, cuMemcpyDtoHAsync, host, I.outputCounts.ptr(), I.outputCounts.bytes(),
                stream);
  unsigned char *counters = host + I.outputBuffers.size() * 8;
  for (size_t s = 0; s < I.stateBuffers.size(); ++s) {
    const size_t b = static_cast<size_t>(I.stateBuffers[s]);
    const CUdeviceptr counter = I.arena.ptr() + static_cast<CUdeviceptr>(I.memory.slots[b].offset) +
                                static_cast<CUdeviceptr>(I.plan().buffers[b].bytes(I.memory.maxM));
    FP8C_CU_TRY(I.drv, cuMemcpyDtoHAsync, counters + 4 * s, counter, 4, stream);
  }
  return Status::ok();
}

NonFiniteReport Executable::nonFiniteReport() const {
  const Impl &I = *impl_;
  NonFiniteReport r;
  const unsigned char *host = I.report.data();
  for (size_t o = 0; o < I.outputBuffers.size(); ++o) {
    unsigned long long n = 0;
    std::memcpy(&n, host + 8 * o, 8);
    r.outputs.push_back({I.plan().buffers[static_cast<size_t>(I.outputBuffers[o])].name,
                         I.reportCounted ? static_cast<int64_t>(n) : -1});
  }
  const unsigned char *counters = host + I.outputBuffers.size() * 8;
  for (size_t s = 0; s < I.stateBuffers.size(); ++s) {
    uint32_t n = 0;
    std::memcpy(&n, counters + 4 * s, 4);
    r.histories.push_back({I.plan().buffers[static_cast<size_t>(I.stateBuffers[s])].name, n});
  }
  return r;
}

} // namespace fp8c
