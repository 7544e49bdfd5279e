// The measured GEMM choice of compile(): for every GEMM step that may run on the generated
// Hopper GEMM, the tile configs it can pick are compiled and loaded (prepareGemms), and with
// CompileOptions::autotune on a Hopper GPU the generated GEMM's tile configs, and for backend
// auto the generated GEMM against cuBLASLt, are timed on scratch buffers (tuneGemm,
// GemmSm90Autotune.h). run() (Executable.cpp) only looks the choices up.
#include "runtime/ExecutableImpl.h"

#include "passes/GemmCapabilities.h"
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

Expected<GemmScratch> makeGemmScratch(const GemmStep &g, const LaunchPlan &plan, int64_t m,
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
                g.gateD, g.upD, g.blockScaleOut, g.blockInvOut, g.pushHistory, g.pushCounter})
    add(i, Fill::Zero);
  for (const auto *fallbacks : {&g.biasFallback, &g.auxFallback, &g.transFallback, &g.epiFallback,
                                &g.dualFallback, &g.side})
    for (const GeneratedLaunch &l : *fallbacks)
      for (int i : l.buffers)
        add(i, Fill::Zero);
  constexpr size_t kPatternBytes = size_t(4) << 20; // a multiple of every element size
  for (auto [i, fill] : want) {
    const BufferDesc &d = plan.buffers[static_cast<size_t>(i)];
    // (A history's slot ends in its skip counter, MemoryPlan.h's kStateCounterBytes.)
    const int64_t counter = d.role == BufferRole::State ? kStateCounterBytes : 0;
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(d.bytes(m) + counter, 256));
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

// Compiles (or finds in the caches) and loads each of `ks`, counting the JIT time and the cold
// compiles.
Status Executable::Impl::prepareSm90(const std::vector<GemmSm90Spec> &ks) {
  for (const GemmSm90Spec &k : ks) {
    Expected<std::shared_ptr<const CachedKernel>> ck = sm90->prepare(k);
    if (!ck)
      return Error(ck.error());
    jitSeconds += (*ck)->seconds;
    coldCompiles += !(*ck)->fromDisk && !(*ck)->fromMemory;
  }
  return Status::ok();
}

// Measures step `g` at its largest M (maxM) on scratch buffers. With `tuneTiles`, autotunes
// the generated GEMM's tile configs: the winner for that M's bucket (sm90Tuned); otherwise
// (a step of fewer than kGemmSm90TuneMinRows rows: decode) the heuristic's config, which run()
// uses there, is the generated side. With `compareCublasLt` (backend auto) that kernel is timed
// against cuBLASLt (with the launches its form needs) side by side (autoChoice; *generatedWins
// when the generated GEMM is at least 1 % faster). Times come from the tune cache where it has
// them for this key and cuBLASLt version. Any failure is an error naming the step: nothing
// falls back silently.
Status Executable::Impl::tuneGemm(const GemmStep &g, const GemmSm90Spec &base,
                                  int64_t maxM, bool tuneTiles, bool compareCublasLt,
                                  bool *generatedWins) {
  *generatedWins = false;
  const std::string what = "GEMM '" + g.name + "' (" + g.description + "): autotune: ";
  const std::string hint =
      " (CompileOptions::autotune = false, fp8c --autotune=off, skips the measurement)";
  Expected<GemmScratch> scratch = makeGemmScratch(g, plan(), maxM, drv);
  if (!scratch)
    return Error(what + scratch.error() + hint);
  const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan(), maxM);
  const GemmSm90Pointers p = gemmSm90PointersOf(g, scratch->ptrs, maxM);
  GemmSm90TuneCache &cache = GemmSm90TuneCache::global();
  const int64_t bucket = gemmSm90TuneBucket(prob.m);
  GemmSm90Spec winner;
  GemmSm90TuneEntry e;
  if (tuneTiles) {
    Expected<GemmSm90TuneResult> r = autotuneGemmSm90(*sm90, base, prob, p, nullptr, cache);
    if (!r)
      return Error(what + r.error() + hint);
    jitSeconds += r->jitSeconds;
    coldCompiles += r->coldCompiles;
    e = r->entry;
    winner = r->winner;
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
    sm90Tuned[g.name] = {winner, bucket, note};
  } else {
    // The heuristic's config alone (no tile tuning below kGemmSm90TuneMinRows rows), under its
    // own key so that it never stands in for a tuned entry of the same bucket.
    winner = chooseGemmSm90Tiles(base, prob, device);
    if (Status st = prepareSm90({winner}); !st)
      return Error(what + st.message() + hint);
    const std::string key = gemmSm90TuneKey(base, device, prob) + "|untuned";
    if (std::optional<GemmSm90TuneEntry> hit = cache.lookUp(key, base);
        hit && hit->winner.name() == winner.name()) {
      e = *hit;
    } else {
      e.key = key;
      e.winner = winner;
    }
  }
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
  // The unfused form (the plain GEMM on the generated kernel, then the epilogue launches that
  // follow cuBLASLt), where the step has one: its kernel tuned like the fused one's.
  std::optional<GemmStep> u = unfusedGemmOf(g);
  GemmSm90Spec uWinner;
  GemmSm90Problem uProb;
  GemmSm90Pointers uP;
  if (u) {
    Expected<GemmSm90Spec> uBase = gemmSm90KernelOf(*u, plan());
    if (!uBase) {
      u.reset(); // the generated GEMM cannot write that result: two candidates
    } else {
      uProb = gemmSm90ProblemOf(*u, plan(), maxM);
      uP = gemmSm90PointersOf(*u, scratch->ptrs, maxM);
      if (tuneTiles) {
        Expected<GemmSm90TuneResult> ur = autotuneGemmSm90(*sm90, *uBase, uProb, uP, nullptr, cache);
        if (!ur)
          return Error(what + "the unfused form: " + ur.error() + hint);
        jitSeconds += ur->jitSeconds;
        coldCompiles += ur->coldCompiles;
        uWinner = ur->winner;
      } else {
        uWinner = chooseGemmSm90Tiles(*uBase, uProb, device);
        if (Status st = prepareSm90({uWinner}); !st)
          return Error(what + "the unfused form: " + st.message() + hint);
      }
    }
  }
  const int64_t ltVersion = static_cast<int64_t>(cublasLtGetVersion());
  GemmSm90BackendTimes times;
  bool cached = false;
  std::string notCached;
  if (e.backends && e.backends->cublasLtVersion == ltVersion &&
      (e.backends->unfusedUs > 0) == u.has_value()) {
    times = *e.backends;
    cached = true;
  } else {
    // The backends under a sustained load, batches alternating (as the candidates were
    // tuned): the clock a training step's GEMMs run at, not a short burst's.
    times.cublasLtVersion = ltVersion;
    std::vector<std::function<Status()>> calls{
        [&] { return runCublas(g, *call, scratch->ptrs, maxM, nullptr); },
        [&] { return sm90->run(winner, prob, p, nullptr); }};
    if (u)
      calls.push_back([&]() -> Status {
        if (Status st = sm90->run(uWinner, uProb, uP, nullptr); !st)
          return st;
        for (const GeneratedLaunch &l : g.epiFallback)
          if (Status st = launch(l, scratch->ptrs, maxM, nullptr); !st)
            return st;
        return Status::ok();
      });
    Expected<std::vector<double>> both = timeGpuCallsSustainedUs(calls, nullptr);
    if (!both)
      return Error(what + "timing cuBLASLt against " + winner.name() + ": " + both.error() +
                   hint);
    times.cublasLtUs = (*both)[0];
    times.generatedUs = (*both)[1];
    if (u)
      times.unfusedUs = (*both)[2];
    GemmSm90TuneEntry updated = e;
    updated.backends = times;
    if (!tuneTiles) {
      updated.winnerUs = updated.heuristicUs = times.generatedUs;
      updated.candidates = {{winner.name(), times.generatedUs}};
    }
    if (Status st = cache.store(updated); !st)
      notCached = "; not cached: " + st.message();
  }
  // The generated GEMM (either form) must be 1 % faster than cuBLASLt; between its forms the
  // faster one.
  const bool useUnfused = u && times.unfusedUs > 0 && times.unfusedUs < times.generatedUs;
  const double genUs = useUnfused ? times.unfusedUs : times.generatedUs;
  *generatedWins = genUs < 0.99 * times.cublasLtUs;
  const std::string suffix =
      fmt::format(" at M={}{}{}", prob.m, cached ? ", from the cache" : "", notCached);
  AutoChoice choice;
  choice.generated = *generatedWins;
  choice.unfused = *generatedWins && useUnfused;
  choice.bucket = bucket;
  const std::string kernelNote = tuneTiles ? "" : " (the heuristic's " + winner.name() + ")";
  const std::string formNote =
      u ? fmt::format("; fused {:.1f} us, unfused {:.1f} us (the plain GEMM, then launches)",
                      times.generatedUs, times.unfusedUs)
        : "";
  if (*generatedWins)
    choice.why = fmt::format("auto: measured {:.1f} us vs cuBLASLt {:.1f} us{}{}{}", genUs,
                             times.cublasLtUs, suffix, kernelNote, formNote);
  else
    choice.why = fmt::format("auto: measured {:.1f} us vs generated {:.1f} us{}{}{}{}",
                             times.cublasLtUs, genUs, suffix, kernelNote, formNote,
                             genUs < times.cublasLtUs ? " (the generated GEMM must be 1 % faster)"
                                                      : "");
  autoChoice[g.name] = choice;
  if (choice.unfused) {
    // run() takes the unfused form: its kernels, under its own name, tuned for this bucket.
    unfusedSteps[g.name] = *u;
    if (tuneTiles)
      sm90Tuned[u->name] = {uWinner, bucket, "the unfused form, autotuned"};
  }
  return done();
}

// Compiles and loads, for every GEMM step that may run on the generated GEMM, each tile config
// it can pick over M in [1, maxM]: every FP8 step with backend generated (a step the kernel
// cannot take is an error naming it), and with auto the steps cuBLASLt refuses at a probe M
// (256-byte aligned addresses stand in for the buffers) or that compile() measured faster on
// the generated GEMM. An auto step that cuBLASLt refuses only at another M (or for a caller's
// less aligned pointer) gets its kernel in run(). With autotune on a Hopper GPU, steps with at
// least kGemmSm90TuneMinRows rows at maxM are tuned (tuneGemm), and every auto step is timed
// against cuBLASLt at maxM: smaller ones (decode) with the heuristic's tile config, which is
// what run() uses at such M. (Before, steps below kGemmSm90TuneMinRows kept cuBLASLt by rule:
// the rowwise decode Linear, M 1 and 16, ran 3 us slower than the generated GEMM, H200.)
Status Executable::Impl::prepareGemms(const std::vector<Step> &steps, int64_t maxM) {
  const bool hopper = GemmCapabilities::generatedRunsOn(device.ccMajor, device.ccMinor);
  for (const Step &s : steps) {
    const auto *g = std::get_if<GemmStep>(&s);
    if (!g || g->backend == GemmBackend::CublasLt || sm90Kernels.count(g->name) ||
        sm90Tuned.count(g->name))
      continue;
    const bool generated = g->backend == GemmBackend::Generated;
    Expected<GemmSm90Spec> base = gemmSm90KernelOf(*g, plan());
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
    const int64_t rows = g->m.eval(maxM);
    const bool tuneTiles = autotune && hopper && rows >= kGemmSm90TuneMinRows;
    const bool measure = tuneTiles || (autotune && hopper && !generated && !refused && rows >= 1);
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
    Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(*g, plan(), maxM, device);
    if (!ks) {
      if (generated)
        return Error("--backend=generated: " + ks.error());
      // auto: the generated GEMM cannot take the step's pitches; cuBLASLt's alone, and the
      // log says why nothing was measured.
      if (measure)
        autoChoice[g->name] = {false, false, gemmSm90TuneBucket(g->m.eval(maxM)),
                               "auto: not measured: " + ks.error()};
      continue;
    }
    auto prepareAll = [&]() -> Status {
      if (Status st = prepareSm90(*ks); !st)
        return Error("GEMM '" + g->name + "': " + st.message());
      sm90Kernels[g->name] = *base;
      return Status::ok();
    };
    if (generated || refused)
      if (Status st = prepareAll(); !st)
        return st;
    if (!measure)
      continue;
    bool generatedWins = false;
    if (Status st = tuneGemm(*g, *base, maxM, tuneTiles, !generated, &generatedWins); !st)
      return st;
    if (auto uc = unfusedSteps.find(g->name); uc != unfusedSteps.end() && generatedWins) {
      // The unfused form won: its kernels over M in [1, maxM] (the fused ones are not needed).
      const GemmStep &u = uc->second;
      Expected<GemmSm90Spec> uBase = gemmSm90KernelOf(u, plan());
      Expected<std::vector<GemmSm90Spec>> uks =
          uBase ? gemmSm90KernelsFor(u, plan(), maxM, device)
                : Expected<std::vector<GemmSm90Spec>>(Error(uBase.error()));
      if (!uks)
        return Error("GEMM '" + g->name + "': the unfused form: " + uks.error());
      if (Status st = prepareSm90(*uks); !st)
        return Error("GEMM '" + g->name + "': the unfused form: " + st.message());
      sm90Kernels[u.name] = *uBase;
      continue;
    }
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
      const auto *g = std::get_if<GemmStep>(&s);
      if (!g || g->backend != GemmBackend::Auto || g->m.perM <= 0 || steps == &p.loadSteps)
        continue;
      auto it = autoChoice.find(g->name);
      // (The unfused form writes and reads what cuBLASLt's does.)
      if (it == autoChoice.end() || !it->second.generated || it->second.unfused)
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
