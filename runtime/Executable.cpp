// Executable: JIT-compiles a LaunchPlan's kernels, allocates its arena once, and runs its
// steps on a stream without synchronizing or allocating. FP8 GEMM steps run on cuBLASLt or on
// the generated Hopper GEMM (CublasLtGemm::backend): the generated kernels a step can pick are
// compiled and loaded by compile(), never by run(). With CompileOptions::autotune on a Hopper
// GPU, compile() also times tile configs of the generated GEMM and, for backend auto, the
// generated GEMM against cuBLASLt, on scratch buffers (GemmSm90Autotune.h); run() only looks
// the choices up.
#include "runtime/Executable.h"

#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/cuda/LoadedModules.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/StepProfiler.h"
#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/gpu/GemmSm90Step.h"
#include "runtime/jit/KernelCache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

namespace fp8c {

// What cuBLASLt gets for one GEMM step at one M, with the plan's fallbacks applied.
struct CublasCall {
  CublasLtGemmConfig config;
  CublasLtGemmPointers pointers;
  bool padRows = false;      ///< Block128 at M % 4 != 0: run with M rounded up to 4
  bool addBiasAfter = false; ///< no outer-vector algorithm with the bias: a launch adds it
  std::string refused;       ///< set (when asked to check) where cuBLASLt cannot take it
};

struct LoadedLaunch {
  CUfunction fn = nullptr;
  int maxBlocks = 1; ///< co-resident blocks on the whole device (persistent / cooperative cap)
};

struct Executable::Impl {
  CompiledGraph compiled;
  MemoryPlan memory;
  CudaDriver *drv = nullptr;
  Device device;
  DeviceBuffer arena;
  std::unique_ptr<CublasLtRunner> cublas;
  std::unique_ptr<GemmSm90Runner> sm90;              ///< created when a step may use it
  std::map<std::string, GemmSm90Kernel> sm90Kernels; ///< by step name: the step's config
  /// By step name: the autotuned generated kernel for M in `bucket` (gemmSm90TuneBucket).
  struct TunedGemm {
    GemmSm90Kernel kernel;
    int64_t bucket = 0;
    std::string note; ///< for the log: how it was chosen
  };
  std::map<std::string, TunedGemm> sm90Tuned;
  /// By step name (backend auto): who measured faster for M in `bucket`, and the times.
  struct AutoChoice {
    bool generated = false;
    int64_t bucket = 0;
    std::string why; ///< "auto: measured ..."
  };
  std::map<std::string, AutoChoice> autoChoice;
  bool autotune = true; ///< CompileOptions::autotune
  std::map<std::string, std::string> gemmLog;        ///< by step name: who ran it last
  std::map<std::string, LoadedLaunch> launches; ///< by kernelName
  std::vector<CUdeviceptr> loadedParams;        ///< parameter pointers the constants match
  std::string arch; ///< the NVRTC target the kernels were compiled for
  double jitSeconds = 0;
  int coldCompiles = 0;
  std::unique_ptr<StepProfiler> profiler; ///< set while profiling (setProfiling)

  const LaunchPlan &plan() const { return compiled.plan; }
  Status compileKernels(const std::vector<Step> &steps);
  Status runSteps(const std::vector<Step> &steps, const std::vector<CUdeviceptr> &ptrs,
                  int64_t m, CUstream stream);
  Expected<std::vector<CUdeviceptr>> bind(const Bindings &b, int64_t *m);
  Status launch(const GeneratedLaunch &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                CUstream stream);
  Status runGemm(const CublasLtGemm &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                 CUstream stream);
  Expected<CublasCall> cublasCall(const CublasLtGemm &g, const std::vector<CUdeviceptr> &ptrs,
                                  int64_t m, bool checkSupport);
  Status runCublas(const CublasLtGemm &g, const CublasCall &call,
                   const std::vector<CUdeviceptr> &ptrs, int64_t m, CUstream stream);
  Status runSm90(const CublasLtGemm &g, const std::vector<CUdeviceptr> &ptrs, int64_t m,
                 CUstream stream, const std::string &why);
  Status prepareGemms(const std::vector<Step> &steps, int64_t maxM);
  Status tuneGemm(const CublasLtGemm &g, const GemmSm90Kernel &base, int64_t maxM,
                  bool compareCublasLt, bool *generatedWins);
};

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
    if (g->sharedBytes > 48 * 1024)
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
    if (d.ld != 0 && d.type.rank() == 2 && d.ld != d.type.dim(1))
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
  std::vector<bool> zeroed(plan().buffers.size(), false);
  for (const Step &s : steps) {
    for (int b : buffersOf(s)) {
      const BufferDesc &d = plan().buffers[b];
      if (!d.zeroInit || zeroed[b])
        continue;
      zeroed[b] = true;
      FP8C_CU_TRY(drv, cuMemsetD8Async, ptrs[b], 0, static_cast<size_t>(d.bytes(m)), stream);
    }
    if (const auto *g = std::get_if<GeneratedLaunch>(&s)) {
      if (Status st = launch(*g, ptrs, m, stream); !st)
        return st;
      if (profiler)
        if (Status st = profiler->mark(stream, g->kernelName, g->description); !st)
          return st;
    } else {
      const auto &c = std::get<CublasLtGemm>(s);
      if (c.m.eval(m) <= 0)
        continue;
      if (Status st = runGemm(c, ptrs, m, stream); !st)
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
                                int64_t m, CUstream stream) {
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
  return drv->launch(ll.fn, static_cast<unsigned>(blocks), static_cast<unsigned>(g.blockThreads),
                     static_cast<unsigned>(g.sharedBytes), stream, params, g.grid.cooperative,
                     g.kernelName);
}

// Step `g` as cuBLASLt would run it at M, with the plan's fallbacks where cuBLASLt refuses it
// (CublasLtGemm's comment in codegen/LaunchPlan.h): M rounded up to 4 for 128-block scales,
// and the bias added by a generated launch where no outer-vector algorithm takes it. With
// `checkSupport`, `refused` says why cuBLASLt cannot take what is left.
Expected<CublasCall> Executable::Impl::cublasCall(const CublasLtGemm &g,
                                                  const std::vector<CUdeviceptr> &ptrs,
                                                  int64_t m, bool checkSupport) {
  auto call = cublasLtCall(g, plan(), m, ptrs);
  if (!call)
    return Error(call.error());
  CublasCall out;
  out.config = call->first;
  out.pointers = call->second;
  CublasLtGemmConfig &config = out.config;
  const int64_t rows = config.m;
  out.padRows = g.scaleMode == GemmScaleMode::Block128 && rows % 4 != 0;
  if (out.padRows) {
    config.m = (rows + 3) / 4 * 4;
    if (g.aPadded >= 0) { // the caller's A has no pad rows: a copy that has (runGemm)
      out.pointers.a = reinterpret_cast<const void *>(ptrs[g.aPadded]);
      config.alignA = std::min(config.alignA, alignmentOf(ptrs[g.aPadded]));
    } else if (plan().buffers[g.a].rowsAlignM % 4 != 0) {
      return Error("internal error: the A operand %" + plan().buffers[g.a].name +
                   " of a 128-block-scaled GEMM has no pad rows (M = " + std::to_string(rows) +
                   ")");
    }
    if (g.dPadded >= 0) {
      out.pointers.d = reinterpret_cast<void *>(ptrs[g.dPadded]);
      config.alignD = std::min(config.alignD, alignmentOf(ptrs[g.dPadded]));
    }
  }
  if (!g.biasFallback.empty()) {
    Expected<bool> ok = cublas->supports(config, out.pointers);
    if (!ok && !checkSupport)
      return Error(ok.error());
    if (ok && !*ok) { // no outer-vector algorithm with a bias at this shape: add it afterwards
      config.epilogue = GemmEpilogue::Default;
      config.biasType.reset();
      out.pointers.bias = nullptr;
      out.addBiasAfter = true;
    }
  }
  if (checkSupport) {
    if (Status st = checkCublasLtConfig(config, device.ccMajor, device.ccMinor); !st) {
      out.refused = st.message();
      return out;
    }
    Expected<bool> ok = cublas->supports(config, out.pointers);
    if (!ok)
      return Error(ok.error());
    if (!*ok)
      out.refused = "cuBLASLt has no algorithm for " + config.str();
  }
  return out;
}

// One GEMM step: on the generated GEMM (backend generated, auto where compile() measured it
// faster at this M's bucket, or auto where cuBLASLt refuses the configuration), else on
// cuBLASLt with the plan's fallbacks.
Status Executable::Impl::runGemm(const CublasLtGemm &g, const std::vector<CUdeviceptr> &ptrs,
                                 int64_t m, CUstream stream) {
  if (g.backend == GemmBackend::Generated)
    return runSm90(g, ptrs, m, stream, "");
  const AutoChoice *choice = nullptr;
  if (g.backend == GemmBackend::Auto)
    if (auto it = autoChoice.find(g.name);
        it != autoChoice.end() && gemmSm90TuneBucket(g.m.eval(m)) == it->second.bucket)
      choice = &it->second;
  if (choice && choice->generated)
    return runSm90(g, ptrs, m, stream, choice->why);
  // auto asks cuBLASLt first (its answers are cached per configuration); on a Hopper GPU a
  // refusal goes to the generated GEMM.
  const bool autoFallback =
      g.backend == GemmBackend::Auto && device.ccMajor == 9 && device.ccMinor == 0;
  Expected<CublasCall> callOr = cublasCall(g, ptrs, m, autoFallback);
  if (!callOr)
    return Error(callOr.error());
  CublasCall &call = *callOr;
  if (!call.refused.empty())
    return runSm90(g, ptrs, m, stream, "auto: " + call.refused);
  if (Status st = runCublas(g, call, ptrs, m, stream); !st)
    return st;
  std::vector<std::string> notes;
  if (call.padRows)
    notes.push_back("M rounded up to 4");
  if (call.addBiasAfter)
    notes.push_back("bias added by a launch");
  if (choice)
    notes.push_back(choice->why);
  std::string log = "cublaslt";
  for (size_t i = 0; i < notes.size(); ++i)
    log += (i ? "; " : " (") + notes[i] + (i + 1 == notes.size() ? ")" : "");
  gemmLog[g.name] = log;
  return Status::ok();
}

// cuBLASLt's part of runGemm for a call cublasCall() prepared: A copied to its padded buffer
// and D out of its padded one where M was rounded up, the bias added after where the
// epilogue could not.
Status Executable::Impl::runCublas(const CublasLtGemm &g, const CublasCall &call,
                                   const std::vector<CUdeviceptr> &ptrs, int64_t m,
                                   CUstream stream) {
  if (call.padRows && g.aPadded >= 0)
    FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, ptrs[g.aPadded], ptrs[g.a],
                static_cast<size_t>(plan().buffers[g.a].bytes(m)), stream);
  if (Status st = cublas->run(call.config, call.pointers, stream); !st)
    return st;
  if (call.padRows && g.dPadded >= 0) {
    const BufferDesc &d = plan().buffers[g.d];
    FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, ptrs[g.d], ptrs[g.dPadded],
                static_cast<size_t>(d.bytes(m)), stream);
  }
  if (call.addBiasAfter)
    return launch(g.biasFallback.front(), ptrs, m, stream);
  return Status::ok();
}

// One GEMM step on the generated Hopper GEMM; `why` says why it is not cuBLASLt's (auto).
Status Executable::Impl::runSm90(const CublasLtGemm &g, const std::vector<CUdeviceptr> &ptrs,
                                 int64_t m, CUstream stream, const std::string &why) {
  auto it = sm90Kernels.find(g.name);
  std::string note;
  if (it == sm90Kernels.end()) {
    if (g.backend == GemmBackend::Generated)
      return Error("internal error: GEMM '" + g.name + "' was not prepared for the generated " +
                   "sm90 GEMM at compile()");
    // auto, refused by cuBLASLt at an M that compile()'s probes did not meet: the kernel is
    // compiled and loaded here, once (this run is then not capturable in a CUDA graph).
    if (!sm90) {
      Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
      if (!r)
        return Error(why + "; the generated GEMM: " + r.error());
      sm90 = r.take();
    }
    Expected<GemmSm90Kernel> base = gemmSm90KernelOf(g, plan());
    if (!base)
      return Error(why + "; " + base.error());
    it = sm90Kernels.emplace(g.name, *base).first;
    note = ", compiled in run()";
  }
  const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan(), m);
  // The autotuned winner in its bucket of M, the heuristic elsewhere (both prepared).
  GemmSm90Kernel k;
  std::string tuned;
  if (auto t = sm90Tuned.find(g.name);
      t != sm90Tuned.end() && gemmSm90TuneBucket(prob.m) == t->second.bucket) {
    k = t->second.kernel;
    tuned = t->second.note;
  } else {
    k = chooseGemmSm90Tiles(it->second, prob, sm90->device());
  }
  if (Status st = sm90->run(k, prob, gemmSm90PointersOf(g, ptrs), stream); !st)
    return st;
  std::string &log = gemmLog[g.name];
  log = "generated sm90 " + k.name();
  std::string notes = why + note;
  if (!tuned.empty())
    notes += (notes.empty() ? "" : "; ") + tuned;
  if (!notes.empty())
    log += " (" + notes + ")";
  return Status::ok();
}

namespace {

// Device buffers standing in for one GEMM step's operands at M rows (autotuning): A and B (and
// A's padded copy) hold pseudo-random finite values, scale buffers 1.0, the rest (D, amaxD,
// bias) zeros. Indexed like plan.buffers; buffers the step does not touch stay 0.
struct GemmScratch {
  std::vector<DeviceBuffer> owned;
  std::vector<CUdeviceptr> ptrs;
};

// `bytes` of pseudo-random elements of `elemBytes` bytes, each with the second-highest bit of
// its top byte cleared: |x| < 2 and never inf or NaN in e4m3, e5m2, bf16, f16 and f32.
std::vector<unsigned char> finitePattern(size_t bytes, size_t elemBytes, uint64_t seed) {
  std::vector<unsigned char> out(bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < bytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<unsigned char>(x >> 24);
    if (i % elemBytes == elemBytes - 1)
      out[i] &= 0xBF;
  }
  return out;
}

Expected<GemmScratch> makeGemmScratch(const CublasLtGemm &g, const LaunchPlan &plan, int64_t m,
                                      CudaDriver *drv) {
  GemmScratch s;
  s.ptrs.assign(plan.buffers.size(), 0);
  enum class Fill { Random, One, Zero };
  std::map<int, Fill> want;
  auto add = [&](int i, Fill f) {
    if (i >= 0 && static_cast<size_t>(i) < plan.buffers.size())
      want.emplace(i, f); // the first role named wins
  };
  add(g.a, Fill::Random);
  add(g.b, Fill::Random);
  add(g.aPadded, Fill::Random);
  add(g.invScaleA, Fill::One);
  add(g.invScaleB, Fill::One);
  add(g.scaleD, Fill::One);
  for (int i : {g.d, g.dPadded, g.bias, g.amaxD})
    add(i, Fill::Zero);
  for (const GeneratedLaunch &l : g.biasFallback)
    for (int i : l.buffers)
      add(i, Fill::Zero);
  constexpr size_t kPatternBytes = size_t(4) << 20; // a multiple of every element size
  for (auto [i, fill] : want) {
    const BufferDesc &d = plan.buffers[static_cast<size_t>(i)];
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(d.bytes(m), 256));
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(bytes);
    if (!buf)
      return Error("scratch for %" + d.name + " (" + std::to_string(bytes) +
                   " bytes): " + buf.error());
    if (fill == Fill::One && d.type.dtype() != DType::F32)
      fill = Fill::Random;
    if (fill == Fill::Zero) {
      FP8C_CU_TRY(drv, cuMemsetD8Async, buf->ptr(), 0, bytes, nullptr);
    } else if (fill == Fill::One) {
      FP8C_CU_TRY(drv, cuMemsetD32Async, buf->ptr(), 0x3F800000u, bytes / 4, nullptr);
    } else {
      const std::vector<unsigned char> pat = finitePattern(
          std::min(bytes, kPatternBytes), std::max<size_t>(dtypeBytes(d.type.dtype()), 1),
          static_cast<uint64_t>(i) + 1);
      for (size_t off = 0; off < bytes; off += pat.size())
        if (Status st = buf->upload(pat.data(), std::min(pat.size(), bytes - off), off); !st)
          return Error("scratch for %" + d.name + ": " + st.message());
    }
    s.ptrs[static_cast<size_t>(i)] = buf->ptr();
    s.owned.push_back(buf.take());
  }
  FP8C_CU_TRY(drv, cuStreamSynchronize, nullptr);
  return s;
}

} // namespace

// Autotunes step `g` at its largest M (maxM) on scratch buffers: the generated GEMM's winner
// for that M's bucket (sm90Tuned), and with `compareCublasLt` (backend auto) the winner timed
// against cuBLASLt side by side (autoChoice; *generatedWins when the generated GEMM is at
// least 1 % faster). Times come from the tune cache where it has them for this key and
// cuBLASLt version. Any failure is an error naming the step: nothing falls back silently.
Status Executable::Impl::tuneGemm(const CublasLtGemm &g, const GemmSm90Kernel &base,
                                  int64_t maxM, bool compareCublasLt, bool *generatedWins) {
  *generatedWins = false;
  const std::string what = "GEMM '" + g.name + "' (" + g.description + "): autotune: ";
  const std::string hint =
      " (CompileOptions::autotune = false, fp8c --autotune=off, skips the measurement)";
  Expected<GemmScratch> scratch = makeGemmScratch(g, plan(), maxM, drv);
  if (!scratch)
    return Error(what + scratch.error() + hint);
  const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan(), maxM);
  const GemmSm90Pointers p = gemmSm90PointersOf(g, scratch->ptrs);
  GemmSm90TuneCache &cache = GemmSm90TuneCache::global();
  Expected<GemmSm90TuneResult> r = autotuneGemmSm90(*sm90, base, prob, p, nullptr, cache);
  if (!r)
    return Error(what + r.error() + hint);
  jitSeconds += r->jitSeconds;
  coldCompiles += r->coldCompiles;
  const int64_t bucket = gemmSm90TuneBucket(prob.m);
  const GemmSm90TuneEntry &e = r->entry;
  std::string note =
      r->fromCache
          ? fmt::format("autotuned for M bucket {}: from the cache, {:.1f} us", bucket, e.winnerUs)
          : fmt::format("autotuned at M={}: fastest of {} configs, {:.1f} us vs the heuristic's "
                        "{}",
                        prob.m, e.candidates.size(), e.winnerUs,
                        e.heuristicUs > 0 ? fmt::format("{:.1f} us", e.heuristicUs)
                                          : std::string("pick, which does not take it"));
  if (!r->cacheWriteError.empty())
    note += "; not cached: " + r->cacheWriteError;
  sm90Tuned[g.name] = {r->winner, bucket, note};
  // Nothing may still run on the scratch buffers when they are freed (on every return below).
  auto done = [&]() -> Status {
    FP8C_CU_TRY(drv, cuStreamSynchronize, nullptr);
    return Status::ok();
  };
  if (!compareCublasLt)
    return done();

  Expected<CublasCall> call = cublasCall(g, scratch->ptrs, maxM, true);
  if (!call)
    return Error(what + call.error() + hint);
  if (!call->refused.empty())
    return done(); // cuBLASLt cannot run it here: runGemm's refusal path takes it
  const int64_t ltVersion = static_cast<int64_t>(cublasLtGetVersion());
  GemmSm90BackendTimes times;
  bool cached = false;
  std::string notCached;
  if (e.backends && e.backends->cublasLtVersion == ltVersion) {
    times = *e.backends;
    cached = true;
  } else {
    // Each backend twice, alternating (clocks drift), the faster median of the two kept.
    GemmSm90TimingOptions o;
    o.callsPerBatch = gemmSm90CallsPerBatch(prob);
    times.cublasLtVersion = ltVersion;
    times.generatedUs = times.cublasLtUs = 1e300;
    for (int round = 0; round < 2; ++round) {
      Expected<double> lt = timeGpuCallsUs(
          [&] { return runCublas(g, *call, scratch->ptrs, maxM, nullptr); }, nullptr, o);
      if (!lt)
        return Error(what + "timing cuBLASLt: " + lt.error() + hint);
      Expected<double> gen = timeGpuCallsUs(
          [&] { return sm90->run(r->winner, prob, p, nullptr); }, nullptr, o);
      if (!gen)
        return Error(what + "timing " + r->winner.name() + ": " + gen.error() + hint);
      times.cublasLtUs = std::min(times.cublasLtUs, *lt);
      times.generatedUs = std::min(times.generatedUs, *gen);
    }
    GemmSm90TuneEntry updated = e;
    updated.backends = times;
    if (Status st = cache.store(updated); !st)
      notCached = "; not cached: " + st.message();
  }
  *generatedWins = times.generatedUs < 0.99 * times.cublasLtUs;
  const std::string suffix =
      fmt::format(" at M={}{}{}", prob.m, cached ? ", from the cache" : "", notCached);
  AutoChoice choice;
  choice.generated = *generatedWins;
  choice.bucket = bucket;
  if (*generatedWins)
    choice.why = fmt::format("auto: measured {:.1f} us vs cuBLASLt {:.1f} us{}", times.generatedUs,
                             times.cublasLtUs, suffix);
  else
    choice.why = fmt::format("auto: measured {:.1f} us vs generated {:.1f} us{}{}",
                             times.cublasLtUs, times.generatedUs, suffix,
                             times.generatedUs < times.cublasLtUs
                                 ? " (the generated GEMM must be 1 % faster)"
                                 : "");
  autoChoice[g.name] = choice;
  return done();
}

// Compiles and loads, for every GEMM step that may run on the generated GEMM, each tile config
// it can pick over M in [1, maxM]: every FP8 step with backend generated (a step the kernel
// cannot take is an error naming it), and with auto the steps cuBLASLt refuses at a probe M
// (256-byte aligned addresses stand in for the buffers) or that compile() measured faster on
// the generated GEMM. An auto step that cuBLASLt refuses only at another M (or for a caller's
// less aligned pointer) gets its kernel in run(). With autotune on a Hopper GPU, steps with at
// least kGemmSm90TuneMinRows rows at maxM are tuned (tuneGemm).
Status Executable::Impl::prepareGemms(const std::vector<Step> &steps, int64_t maxM) {
  const bool hopper = device.ccMajor == 9 && device.ccMinor == 0;
  for (const Step &s : steps) {
    const auto *g = std::get_if<CublasLtGemm>(&s);
    if (!g || g->backend == GemmBackend::CublasLt || sm90Kernels.count(g->name) ||
        sm90Tuned.count(g->name))
      continue;
    const bool generated = g->backend == GemmBackend::Generated;
    Expected<GemmSm90Kernel> base = gemmSm90KernelOf(*g, plan());
    if (!base) {
      if (generated)
        return Error("--backend=generated: " + base.error());
      continue; // auto: cuBLASLt's alone (bf16, or a config the generated GEMM lacks)
    }
    bool refused = false;
    if (!generated) {
      if (!hopper)
        continue;
      std::vector<CUdeviceptr> fake(plan().buffers.size());
      for (size_t i = 0; i < fake.size(); ++i)
        fake[i] = CUdeviceptr(1) << 40 | CUdeviceptr(i) << 20;
      for (int64_t probe : {int64_t(1), int64_t(2), int64_t(3), int64_t(4), int64_t(37),
                            int64_t(64), int64_t(65), int64_t(128), int64_t(129), int64_t(1000),
                            maxM - 1, maxM}) {
        if (probe < 1 || probe > maxM || g->m.eval(probe) <= 0)
          continue;
        Expected<CublasCall> call = cublasCall(*g, fake, probe, true);
        if (!call)
          return Error("GEMM '" + g->name + "': " + call.error());
        if (!call->refused.empty()) {
          refused = true;
          break;
        }
      }
    }
    const bool measure = autotune && hopper && g->m.eval(maxM) >= kGemmSm90TuneMinRows;
    if (!generated && !refused && !measure)
      continue;
    if (!sm90) {
      Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
      if (!r) {
        if (generated)
          return Error("--backend=generated: GEMM '" + g->name + "': " + r.error());
        if (refused || !measure)
          continue;
        return Error("GEMM '" + g->name + "': autotune: " + r.error());
      }
      sm90 = r.take();
    }
    Expected<std::vector<GemmSm90Kernel>> ks = gemmSm90KernelsFor(*g, plan(), maxM, device);
    if (!ks) {
      if (generated)
        return Error("--backend=generated: " + ks.error());
      // auto: the generated GEMM cannot take the step's pitches; cuBLASLt's alone, and the
      // log says why nothing was measured.
      if (measure)
        autoChoice[g->name] = {false, gemmSm90TuneBucket(g->m.eval(maxM)),
                               "auto: not measured: " + ks.error()};
      continue;
    }
    auto prepareAll = [&]() -> Status {
      for (const GemmSm90Kernel &k : *ks) {
        Expected<std::shared_ptr<const CachedKernel>> ck = sm90->prepare(k);
        if (!ck)
          return Error("GEMM '" + g->name + "': " + ck.error());
        jitSeconds += (*ck)->seconds;
        coldCompiles += !(*ck)->fromDisk && !(*ck)->fromMemory;
      }
      sm90Kernels[g->name] = *base;
      return Status::ok();
    };
    if (generated || refused)
      if (Status st = prepareAll(); !st)
        return st;
    if (!measure)
      continue;
    bool generatedWins = false;
    if (Status st = tuneGemm(*g, *base, maxM, !generated, &generatedWins); !st)
      return st;
    if (generatedWins && !sm90Kernels.count(g->name))
      if (Status st = prepareAll(); !st)
        return st;
  }
  return Status::ok();
}

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;
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
      if (const auto *g = std::get_if<CublasLtGemm>(&s))
        if (auto it = impl_->gemmLog.find(g->name); it != impl_->gemmLog.end())
          out.push_back(g->name + ": " + it->second);
  return out;
}

Status Executable::run(const Bindings &bindings, CUstream stream) {
  Impl &I = *impl_;
  if (Status st = I.drv->makeCurrent(I.device.ordinal); !st)
    return st;
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
    if (params != I.loadedParams) {
      if (Status st = I.runSteps(I.plan().loadSteps, *ptrs, m, stream); !st)
        return st;
      I.loadedParams = params;
    }
  }
  return I.runSteps(I.plan().steps, *ptrs, m, stream);
}

void Executable::setProfiling(bool on) {
  if (!on)
    impl_->profiler.reset();
  else if (!impl_->profiler)
    impl_->profiler = std::make_unique<StepProfiler>(impl_->drv);
}

Expected<std::vector<StepTime>> Executable::lastProfile() {
  if (!impl_->profiler)
    return Error("profiling is off (Executable::setProfiling)");
  return impl_->profiler->times();
}

Status Executable::resetState(CUstream stream) {
  Impl &I = *impl_;
  for (size_t i = 0; i < I.plan().buffers.size(); ++i)
    if (I.plan().buffers[i].role == BufferRole::State)
      FP8C_CU_TRY(I.drv, cuMemsetD8Async, I.arena.ptr() + I.memory.slots[i].offset, 0,
                  static_cast<size_t>(I.memory.slots[i].bytes), stream);
  return Status::ok();
}

Expected<std::vector<float>> Executable::readState(const std::string &key, CUstream stream) {
  Impl &I = *impl_;
  for (size_t i = 0; i < I.plan().buffers.size(); ++i) {
    const BufferDesc &d = I.plan().buffers[i];
    if (d.role != BufferRole::State || d.name != key)
      continue;
    FP8C_CU_TRY(I.drv, cuStreamSynchronize, stream);
    std::vector<float> out(static_cast<size_t>(I.memory.slots[i].bytes / 4));
    if (Status st = I.arena.download(out.data(), out.size() * 4,
                                     static_cast<size_t>(I.memory.slots[i].offset));
        !st)
      return Error(st.message());
    return out;
  }
  return Error("no state buffer named '" + key + "'");
}

Expected<std::unique_ptr<Executable>> compile(const Graph &g, const CompileOptions &opts) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  if (Status st = (*drv)->makeCurrent(0); !st)
    return Error(st.message());
  Expected<Device> dev = (*drv)->device(0);
  if (!dev)
    return Error(dev.error());
  CompileOptions o = opts;
  if (o.arch.empty())
    o.arch = dev->arch;
  Expected<CompiledGraph> cg = compileToPlan(g, o);
  if (!cg)
    return Error(cg.error());
  auto impl = std::make_unique<Executable::Impl>();
  impl->drv = *drv;
  impl->device = *dev;
  impl->compiled = cg.take();
  impl->arch = o.arch;
  impl->autotune = o.autotune;
  impl->memory = planMemory(impl->compiled.plan, o.maxTokens);
  if (Status st = impl->compileKernels(impl->compiled.plan.loadSteps); !st)
    return Error(st.message());
  if (Status st = impl->compileKernels(impl->compiled.plan.steps); !st)
    return Error(st.message());
  Expected<DeviceBuffer> arena = DeviceBuffer::allocate(
      static_cast<size_t>(std::max<int64_t>(impl->memory.arenaBytes, 256)));
  if (!arena)
    return Error(arena.error());
  impl->arena = arena.take();
  Expected<std::unique_ptr<CublasLtRunner>> runner = CublasLtRunner::create();
  if (!runner)
    return Error(runner.error());
  impl->cublas = runner.take();
  for (const auto *steps : {&impl->compiled.plan.loadSteps, &impl->compiled.plan.steps})
    if (Status st = impl->prepareGemms(*steps, std::max<int64_t>(o.maxTokens, 1)); !st)
      return Error(st.message());
  auto exe = std::unique_ptr<Executable>(new Executable(std::move(impl)));
  if (Status st = exe->resetState(nullptr); !st)
    return Error(st.message());
  FP8C_CU_TRY(exe->impl_->drv, cuStreamSynchronize, nullptr);
  return exe;
}

} // namespace fp8c
