// Executable: JIT-compiles a LaunchPlan's kernels, allocates its arena once, and runs its
// steps on a stream without synchronizing or allocating. FP8 GEMM steps run on cuBLASLt or on
// the generated Hopper GEMM (GemmStep::backend): the generated kernels a step can pick are
// compiled and loaded by load(), never by run(). With LoadOptions::autotune on a Hopper
// GPU, load() also times tile configs of the generated GEMM and, for backend auto, the
// generated GEMM against cuBLASLt, on scratch buffers (GemmSm90Autotune.h); run() only looks
// the choices up. The GEMM preparation and autotuning are in ExecutableGemmChoice.cpp, how a
// GEMM step runs in ExecutableGemmRun.cpp; the state the files share, Executable::Impl, is
// declared in ExecutableImpl.h.
#include "runtime/Executable.h"
#include "runtime/ExecutableImpl.h"

#include "runtime/StepProfiler.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/cuda/LoadedModules.h"
#include "runtime/jit/KernelCache.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace fp8c {

namespace {

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

} // namespace

Status Executable::Impl::compileKernels(const std::vector<Step> &steps) {
  for (const GeneratedLaunch *g : launchesOf(steps)) {
    if (launches.count(g->kernelName))
      continue;
    NvrtcRequest req;
    req.kernelName = g->kernelName;
    req.source = g->source;
    req.extraOptions = g->nvrtcOptions;
    req.arch = arch;
    Expected<std::shared_ptr<const CachedKernel>> k = KernelCache::global().get(req);
    if (!k)
      return Error(k.error());
    jitSeconds += (*k)->seconds;
    coldCompiles += !(*k)->fromDisk && !(*k)->fromMemory;
    Expected<CUfunction> fn = LoadedModules::global().function(**k, g->entry);
    if (!fn)
      return Error(fn.error());
    // Dynamic shared memory beside the static: the opt-in once the sum may pass 48 KiB.
    if (g->sharedBytes > 0)
      if (Status st = setMaxDynamicSharedBytes(*fn, g->sharedBytes, g->kernelName); !st)
        return st;
    Expected<int> perSm = maxActiveBlocksPerSM(*fn, g->blockThreads, g->sharedBytes);
    if (!perSm)
      return Error(perSm.error());
    if (*perSm < 1)
      return Error("kernel '" + g->kernelName + "' cannot be resident on an SM (" +
                   std::to_string(g->blockThreads) + " threads, " +
                   std::to_string(g->sharedBytes) + " bytes of shared memory)");
    launches[g->kernelName] = {*fn, *perSm * device.smCount};
  }
  return Status::ok();
}

Expected<std::vector<CUdeviceptr>> Executable::Impl::bind(const Bindings &b, int64_t *mOut) {
  const Graph &g = *compiled.graph;
  std::vector<Value *> outs = g.outputs();
  std::optional<int64_t> m;
  std::vector<CUdeviceptr> ptrs(plan().buffers.size(), 0);
  for (size_t i = 0; i < plan().buffers.size(); ++i) {
    const BufferDesc &d = plan().buffers[i];
    if (d.role != BufferRole::Input && d.role != BufferRole::Param && d.role != BufferRole::Output) {
      const BufferSlot &slot = memory.slots[i];
      ptrs[i] = arena.ptr() + static_cast<CUdeviceptr>(slot.offset);
      continue;
    }
    auto it = b.find(d.name);
    if (it == b.end())
      return Error("run @" + g.name() + ": no binding for " +
                   (d.role == BufferRole::Output ? "output '" : "input '") + d.name + "'");
    const DeviceTensor &t = it->second;
    if (!t.data)
      return Error("run @" + g.name() + ": binding '" + d.name + "' has a null pointer");
    if (t.dtype != d.type.dtype())
      return Error("run @" + g.name() + ": '" + d.name + "' has dtype " +
                   std::string(dtypeName(t.dtype)) + ", expected " +
                   std::string(dtypeName(d.type.dtype())));
    if (static_cast<int64_t>(t.shape.size()) != d.type.rank())
      return Error("run @" + g.name() + ": '" + d.name + "' has shape " + shapeStr(t.shape) +
                   ", expected " + d.type.str());
    for (int64_t k = 0; k < d.type.rank(); ++k) {
      if (d.type.isDynamicDim(k) && d.mDivisor > 1) {
        continue; // ceil(M / mDivisor) rows: checked once M is known, below
      } else if (d.type.isDynamicDim(k)) {
        if (m && *m != t.shape[k])
          return Error("run @" + g.name() + ": '" + d.name + "' has " + std::to_string(t.shape[k]) +
                       " rows but another binding has " + std::to_string(*m));
        m = t.shape[k];
      } else if (t.shape[k] != d.type.dim(k)) {
        return Error("run @" + g.name() + ": '" + d.name + "' has shape " + shapeStr(t.shape) +
                     ", expected " + d.type.str());
      }
    }
    if (d.ld != 0 && d.type.rank() >= 2 && d.ld != d.type.dim(d.type.rank() - 1))
      return Error("internal error: caller buffer '" + d.name + "' planned with a padded pitch");
    ptrs[i] = reinterpret_cast<CUdeviceptr>(t.data);
  }
  int64_t rows = m.value_or(0);
  for (const BufferDesc &d : plan().buffers) {
    if (d.mDivisor <= 1 || (d.role != BufferRole::Input && d.role != BufferRole::Output))
      continue;
    const DeviceTensor &t = b.at(d.name);
    for (int64_t k = 0; k < d.type.rank(); ++k)
      if (d.type.isDynamicDim(k) && t.shape[k] != (rows + d.mDivisor - 1) / d.mDivisor)
        return Error("run @" + g.name() + ": '" + d.name + "' has " + std::to_string(t.shape[k]) +
                     " rows; with M = " + std::to_string(rows) + " it needs ceil(M/" +
                     std::to_string(d.mDivisor) + ") = " +
                     std::to_string((rows + d.mDivisor - 1) / d.mDivisor));
  }
  if (rows > memory.maxM)
    return Error("run @" + g.name() + ": " + std::to_string(rows) +
                 " rows exceed the compiled maximum of " + std::to_string(memory.maxM) +
                 " (CompileOptions::maxTokens)");
  *mOut = rows;
  return ptrs;
}

Status Executable::Impl::runSteps(const std::vector<Step> &steps,
                                  const std::vector<CUdeviceptr> &ptrs, int64_t m,
                                  CUstream stream) {
  // zeroInit buffers are zeroed once per run, before the first step that touches them: that
  // step accumulates into them (atomic amax, grid barriers) and later steps read the result.
  // Constant buffers were zeroed and written by the load steps: the per-run steps only read
  // them (a weight's copy with zero pad rows, GemmStep::nPadded).
  // The small ones (MemoryPlan's zero region, at the arena's start) are zeroed together by one
  // memset before the first step.
  const bool loadSteps = &steps == &plan().loadSteps;
  std::vector<bool> zeroed(plan().buffers.size(), false);
  afterLaunch = false;
  if (!loadSteps && memory.zeroRegionBytes > 0)
    FP8C_CU_TRY(drv, cuMemsetD8Async, arena.ptr(), 0, static_cast<size_t>(memory.zeroRegionBytes),
                stream);
  for (const Step &s : steps) {
    for (int b : buffersOf(s)) {
      const BufferDesc &d = plan().buffers[b];
      if (!d.zeroInit || zeroed[b] ||
          (!loadSteps && (d.role == BufferRole::Constant || memory.slots[b].zeroRegion)))
        continue;
      zeroed[b] = true;
      // A buffer sized below this M (cublasOnlyRowsCap) is not touched at it.
      if (memory.slots[b].arena && d.bytes(m) > memory.slots[b].bytes)
        continue;
      FP8C_CU_TRY(drv, cuMemsetD8Async, ptrs[b], 0, static_cast<size_t>(d.bytes(m)), stream);
      afterLaunch = false;
    }
    if (const auto *g = std::get_if<GeneratedLaunch>(&s)) {
      if (Status st = launch(*g, ptrs, m, stream, afterLaunch); !st)
        return st;
      // (The profiler's events between steps would stand between the two kernels.)
      afterLaunch = !profiler;
      if (profiler)
        if (Status st = profiler->mark(stream, g->kernelName, g->description,
                                       bytesTouched(plan().buffers, *g, m));
            !st)
          return st;
    } else {
      const auto &c = std::get<GemmStep>(s);
      if (c.m.eval(m) <= 0) { // no GEMM at this M; its side launch (its own work) still runs,
        // and the history push it would have made
        for (const auto *ls : {&c.side, &c.pushFallback})
          for (const GeneratedLaunch &l : *ls)
            if (Status st = launch(l, ptrs, m, stream); !st)
              return st;
        continue;
      }
      const Status st = runGemm(c, ptrs, m, stream);
      afterLaunch = false;
      if (!st)
        return Error(std::string(c.backend == GemmBackend::Generated ? "generated" : "cuBLASLt") +
                     " GEMM '" + c.name + "': " + st.message());
      if (profiler)
        if (Status st = profiler->mark(stream, c.name, "gemm: " + gemmLog[c.name]); !st)
          return st;
    }
  }
  return Status::ok();
}

Status Executable::Impl::launch(const GeneratedLaunch &g, const std::vector<CUdeviceptr> &ptrs,
                                int64_t m, CUstream stream, bool dependent) {
  const LoadedLaunch &ll = launches.at(g.kernelName);
  int64_t units = std::max<int64_t>(g.grid.work.eval(m), 0);
  int64_t blocks = (units + g.grid.perBlock - 1) / g.grid.perBlock;
  if (g.grid.persistent || g.grid.cooperative)
    blocks = std::min<int64_t>(blocks, ll.maxBlocks);
  blocks = std::max<int64_t>(blocks, 1);
  // The kernel's argument: struct { void *buffers[N]; long long m; } by value.
  std::vector<unsigned char> arg(g.buffers.size() * sizeof(void *) + sizeof(long long));
  for (size_t i = 0; i < g.buffers.size(); ++i) {
    void *p = reinterpret_cast<void *>(ptrs[g.buffers[i]]);
    std::memcpy(arg.data() + i * sizeof(void *), &p, sizeof(void *));
  }
  long long mm = m;
  std::memcpy(arg.data() + g.buffers.size() * sizeof(void *), &mm, sizeof mm);
  void *params[] = {arg.data()};
  // One block is co-resident with itself: a plain launch (a decode step's tensorwise cast at
  // M = 1) skips the cooperative launch's overhead.
  return drv->launch(ll.fn, static_cast<unsigned>(blocks), static_cast<unsigned>(g.blockThreads),
                     static_cast<unsigned>(g.sharedBytes), stream, params,
                     g.grid.cooperative && blocks > 1, g.kernelName, dependent);
}

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() {
  // The arena, modules and pinned memory go with the context they were made in.
  if (!impl_ || !impl_->drv)
    return;
  Expected<ScopedContext> scope = ScopedContext::enter(impl_->drv, impl_->device.ordinal);
  impl_.reset();
}
const Graph &Executable::graph() const { return *impl_->compiled.graph; }
const LaunchPlan &Executable::plan() const { return impl_->compiled.plan; }
const MemoryPlan &Executable::memoryPlan() const { return impl_->memory; }
double Executable::jitSeconds() const { return impl_->jitSeconds; }
int Executable::coldCompiles() const { return impl_->coldCompiles; }

namespace {
std::vector<std::string> namesWithRole(const LaunchPlan &p, std::initializer_list<BufferRole> roles) {
  std::vector<std::string> out;
  for (const BufferDesc &d : p.buffers)
    if (std::find(roles.begin(), roles.end(), d.role) != roles.end())
      out.push_back(d.name);
  return out;
}
} // namespace

std::vector<std::string> Executable::inputNames() const {
  return namesWithRole(plan(), {BufferRole::Input, BufferRole::Param});
}
std::vector<std::string> Executable::parameterNames() const {
  return namesWithRole(plan(), {BufferRole::Param});
}
std::vector<std::string> Executable::outputNames() const {
  return namesWithRole(plan(), {BufferRole::Output});
}
std::vector<std::string> Executable::stateNames() const {
  return namesWithRole(plan(), {BufferRole::State});
}

std::vector<std::string> Executable::gemmBackendLog() const {
  std::vector<std::string> out;
  for (const auto *steps : {&impl_->plan().loadSteps, &impl_->plan().steps})
    for (const Step &s : *steps)
      if (const auto *g = std::get_if<GemmStep>(&s))
        if (auto it = impl_->gemmLog.find(g->name); it != impl_->gemmLog.end())
          out.push_back(g->name + ": " + it->second);
  return out;
}

Status Executable::run(const Bindings &bindings, CUstream stream) {
  Impl &I = *impl_;
  Expected<ScopedContext> scope = ScopedContext::enter(I.drv, I.device.ordinal);
  if (!scope)
    return Error(scope.error());
  int64_t m = 0;
  Expected<std::vector<CUdeviceptr>> ptrs = I.bind(bindings, &m);
  if (!ptrs)
    return Error(ptrs.error());
  if (I.profiler)
    if (Status st = I.profiler->begin(stream); !st)
      return st;
  if (!I.plan().loadSteps.empty()) {
    std::vector<CUdeviceptr> params;
    for (size_t i = 0; i < I.plan().buffers.size(); ++i)
      if (I.plan().buffers[i].role == BufferRole::Param)
        params.push_back((*ptrs)[i]);
    if (!I.paramsLoaded || params != I.loadedParams) {
      I.paramsLoaded = false; // until the load steps have been enqueued without an error
      if (Status st = I.runSteps(I.plan().loadSteps, *ptrs, m, stream); !st)
        return st;
      I.loadedParams = params;
      I.paramsLoaded = true;
    }
  }
  if (Status st = I.runSteps(I.plan().steps, *ptrs, m, stream); !st)
    return st;
  return I.countOutputs(*ptrs, m, stream);
}

void Executable::invalidateParameters() { impl_->paramsLoaded = false; }
bool Executable::hasLoadSteps() const { return !impl_->plan().loadSteps.empty(); }

void Executable::setProfiling(bool on) {
  // The profiler's events belong to the executable's context (a failure to enter it shows in
  // lastProfile's first event error).
  Expected<ScopedContext> scope = ScopedContext::enter(impl_->drv, impl_->device.ordinal);
  if (!on)
    impl_->profiler.reset();
  else if (!impl_->profiler)
    impl_->profiler = std::make_unique<StepProfiler>(impl_->drv);
}

Expected<std::vector<StepTime>> Executable::lastProfile() {
  if (!impl_->profiler)
    return Error("profiling is off (Executable::setProfiling)");
  Expected<ScopedContext> scope = ScopedContext::enter(impl_->drv, impl_->device.ordinal);
  if (!scope)
    return Error(scope.error());
  return impl_->profiler->times();
}

Status Executable::resetState(CUstream stream) {
  Impl &I = *impl_;
  Expected<ScopedContext> scope = ScopedContext::enter(I.drv, I.device.ordinal);
  if (!scope)
    return Error(scope.error());
  // State slots with their skip counters (MemoryPlan.h, kStateCounterBytes). Scratch too
  // (grid-barrier counters, a cooperative cast's own amax): its launches expect zeros and leave
  // zeros, so this is the only time it is cleared.
  for (size_t i = 0; i < I.plan().buffers.size(); ++i)
    if (I.plan().buffers[i].role == BufferRole::State ||
        I.plan().buffers[i].role == BufferRole::Scratch)
      FP8C_CU_TRY(I.drv, cuMemsetD8Async, I.arena.ptr() + I.memory.slots[i].offset, 0,
                  static_cast<size_t>(I.memory.slots[i].bytes), stream);
  return Status::ok();
}

Expected<std::vector<float>> Executable::readState(const std::string &key, CUstream stream) {
  Impl &I = *impl_;
  Expected<ScopedContext> scope = ScopedContext::enter(I.drv, I.device.ordinal);
  if (!scope)
    return Error(scope.error());
  for (size_t i = 0; i < I.plan().buffers.size(); ++i) {
    const BufferDesc &d = I.plan().buffers[i];
    if (d.role != BufferRole::State || d.name != key)
      continue;
    FP8C_CU_TRY(I.drv, cuStreamSynchronize, stream);
    // (The slot holds the history's skip counter after the buffer's bytes: not part of it.)
    std::vector<float> out(static_cast<size_t>(d.bytes(I.memory.maxM) / 4));
    if (Status st = I.arena.download(out.data(), out.size() * 4,
                                     static_cast<size_t>(I.memory.slots[i].offset));
        !st)
      return Error(st.message());
    return out;
  }
  return Error("no state buffer named '" + key + "'");
}

namespace {
/// LoadOptions::device as a device: -1 is the current context's, else 0.
Expected<Device> deviceNamed(CudaDriver *drv, int device) {
  if (device < 0) {
    Expected<int> current = drv->currentOrdinal();
    if (!current)
      return Error(current.error());
    device = std::max(*current, 0);
  }
  return drv->device(device);
}
} // namespace

Expected<TargetDevice> resolveDevice(int device) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  Expected<Device> dev = deviceNamed(*drv, device);
  if (!dev)
    return Error(dev.error());
  return TargetDevice{dev->ordinal, dev->arch};
}

Expected<std::unique_ptr<Executable>> Executable::load(CompiledGraph compiled,
                                                       const LoadOptions &opts) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  Expected<Device> dev = deviceNamed(*drv, opts.device);
  if (!dev)
    return Error(dev.error());
  Expected<ScopedContext> scope = ScopedContext::enter(*drv, dev->ordinal);
  if (!scope)
    return Error(scope.error());
  if (compiled.arch.empty())
    compiled.arch = dev->arch;
  auto impl = std::make_unique<Executable::Impl>();
  impl->drv = *drv;
  impl->device = *dev;
  impl->arch = compiled.arch;
  impl->compiled = std::move(compiled);
  impl->autotune = opts.autotune;
  if (Status st = impl->compileKernels(impl->compiled.plan.loadSteps); !st)
    return Error(st.message());
  if (Status st = impl->compileKernels(impl->compiled.plan.steps); !st)
    return Error(st.message());
  Expected<std::unique_ptr<CublasLtRunner>> runner = CublasLtRunner::create();
  if (!runner)
    return Error(runner.error());
  impl->cublas = runner.take();
  if (opts.cublasLtAutotune)
    impl->cublas->setAutotune(true);
  for (const auto *steps : {&impl->compiled.plan.loadSteps, &impl->compiled.plan.steps})
    if (Status st = impl->prepareGemms(*steps, std::max<int64_t>(opts.maxTokens, 1)); !st)
      return Error(st.message());
  // The arena once the GEMM choices are known (prepareGemms times on scratch buffers).
  impl->memory = planMemory(impl->compiled.plan, opts.maxTokens,
                            impl->cublasOnlyRowsCap(std::max<int64_t>(opts.maxTokens, 1)));
  Expected<DeviceBuffer> arena = DeviceBuffer::allocate(
      static_cast<size_t>(std::max<int64_t>(impl->memory.arenaBytes, 256)));
  if (!arena)
    return Error(arena.error());
  impl->arena = arena.take();
  if (Status st = impl->prepareNonFinite(opts.countNonFinite); !st)
    return Error(st.message());
  auto exe = std::unique_ptr<Executable>(new Executable(std::move(impl)));
  if (Status st = exe->resetState(nullptr); !st)
    return Error(st.message());
  FP8C_CU_TRY(exe->impl_->drv, cuStreamSynchronize, nullptr);
  return exe;
}
} // namespace fp8c
