// The measured GEMM choice of compile(): for every GEMM step that may run on the generated
// Hopper GEMM, the tile configs it can pick are compiled and loaded (prepareGemms), and with
// CompileOptions::autotune on a Hopper GPU the generated GEMM's tile configs, and for backend
// auto the generated GEMM against cuBLASLt, are timed on scratch buffers (tuneGemm,
// GemmSm90Autotune.h). run() (Executable.cpp) only looks the choices up.
#include "runtime/ExecutableImpl.h"

#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/gpu/GemmSm90Step.h"
#include "runtime/jit/KernelCache.h"

#include <fmt/format.h>

#include <algorithm>

namespace fp8c {

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
  add(g.epiIn, Fill::Random);
  add(g.b2, Fill::Random);
  add(g.invScaleB2, Fill::One);
  for (int i : {g.d, g.dPadded, g.bias, g.amaxD, g.aux, g.transD, g.colSum, g.colPartials, g.epiD,
                g.gateD, g.upD})
    add(i, Fill::Zero);
  for (const auto *fallbacks :
       {&g.biasFallback, &g.auxFallback, &g.transFallback, &g.epiFallback, &g.dualFallback})
    for (const GeneratedLaunch &l : *fallbacks)
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
    // Both backends under a sustained load, batches alternating (as the candidates were
    // tuned): the clock a training step's GEMMs run at, not a short burst's.
    times.cublasLtVersion = ltVersion;
    Expected<std::vector<double>> both = timeGpuCallsSustainedUs(
        {[&] { return runCublas(g, *call, scratch->ptrs, maxM, nullptr); },
         [&] { return sm90->run(r->winner, prob, p, nullptr); }},
        nullptr);
    if (!both)
      return Error(what + "timing cuBLASLt against " + r->winner.name() + ": " + both.error() +
                   hint);
    times.cublasLtUs = (*both)[0];
    times.generatedUs = (*both)[1];
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

std::vector<int64_t> Executable::Impl::cublasOnlyRowsCap(int64_t maxM) const {
  const LaunchPlan &p = plan();
  std::vector<int64_t> cap(p.buffers.size(), -1);
  // Per buffer: the steps that touch it, and the largest M below the generated bucket over
  // those that touch it only in their cuBLASLt form.
  std::vector<int> touching(p.buffers.size(), 0), onlyCublas(p.buffers.size(), 0);
  std::vector<int64_t> below(p.buffers.size(), 0);
  for (const auto *steps : {&p.loadSteps, &p.steps})
    for (const Step &s : *steps) {
      std::vector<int> all = buffersOf(s);
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      for (int b : all)
        ++touching[size_t(b)];
      const auto *g = std::get_if<CublasLtGemm>(&s);
      if (!g || g->backend != GemmBackend::Auto || g->m.perM <= 0 || steps == &p.loadSteps)
        continue;
      auto it = autoChoice.find(g->name);
      if (it == autoChoice.end() || !it->second.generated)
        continue;
      // Runs on cuBLASLt only where its M falls below the measured bucket: M * perM + fixed
      // <= bucket / 2.
      const int64_t lastBelow =
          std::clamp<int64_t>((it->second.bucket / 2 - g->m.fixed) / g->m.perM, 0, maxM);
      for (int b : cublasOnlyBuffersOf(*g)) {
        ++onlyCublas[size_t(b)];
        below[size_t(b)] = std::max(below[size_t(b)], lastBelow);
      }
    }
  for (size_t b = 0; b < p.buffers.size(); ++b)
    if (touching[b] > 0 && touching[b] == onlyCublas[b] && p.buffers[b].role == BufferRole::Temp)
      cap[b] = below[b];
  return cap;
}

} // namespace fp8c
