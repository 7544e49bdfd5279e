// CUDA-event timing: see Timing.h.
#include "bench/Timing.h"

#include "runtime/cuda/CudaEvents.h"

#include <algorithm>
#include <cmath>

namespace fp8c::bench {
namespace {

/// Runs `step(i)` for i in [0, n) with an event before the first and after each; returns the
/// per-step times in microseconds divided by `divisor`.
Expected<std::vector<double>> timeSteps(CudaDriver *drv, CUstream stream,
                                        const std::function<Status(int)> &step, int n,
                                        double divisor) {
  Expected<CudaEvents> events = CudaEvents::create(drv, static_cast<size_t>(n) + 1);
  if (!events)
    return Error(events.error());
  const CudaEvents &ev = *events;
  FP8C_CU_TRY(drv, cuEventRecord, ev[0], stream);
  for (int i = 0; i < n; ++i) {
    if (Status s = step(i); !s)
      return Error(s.message());
    FP8C_CU_TRY(drv, cuEventRecord, ev[i + 1], stream);
  }
  FP8C_CU_TRY(drv, cuEventSynchronize, ev[n]);
  std::vector<double> us;
  for (int i = 0; i < n; ++i) {
    Expected<float> ms = ev.elapsedMs(size_t(i), size_t(i) + 1);
    if (!ms)
      return Error(ms.error());
    us.push_back(*ms * 1e3 / divisor);
  }
  return us;
}

/// Warm-up: at least 3 steps and warmupMs; returns the estimated time of one step in ms.
Expected<double> warmUp(CudaDriver *drv, CUstream stream, const std::function<Status(int)> &step,
                        double warmupMs) {
  double total = 0;
  int done = 0;
  int batch = 3;
  while (done < 3 || total < warmupMs) {
    Expected<std::vector<double>> t = timeSteps(drv, stream, step, batch, 1.0);
    if (!t)
      return Error(t.error());
    for (double us : *t)
      total += us / 1e3;
    done += batch;
    if (done > 2000)
      break;
    batch = std::min(batch * 2, 64);
  }
  // The last samples are the warm ones; their mean is the estimate.
  Expected<std::vector<double>> t = timeSteps(drv, stream, step, 3, 1.0);
  if (!t)
    return Error(t.error());
  return ((*t)[0] + (*t)[1] + (*t)[2]) / 3e3;
}

int repsFor(double stepMs, const TimingOptions &o) {
  double r = stepMs > 0 ? o.targetMs / stepMs : o.maxReps;
  return std::clamp(static_cast<int>(r), o.minReps, o.maxReps);
}

} // namespace

Stats statsOf(std::vector<double> s) {
  Stats st;
  if (s.empty())
    return st;
  std::sort(s.begin(), s.end());
  auto at = [&](double q) {
    double pos = q * double(s.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
  };
  st.medianUs = at(0.5);
  st.p10Us = at(0.1);
  st.p90Us = at(0.9);
  st.minUs = s.front();
  st.maxUs = s.back();
  st.reps = static_cast<int>(s.size());
  return st;
}

Expected<Stats> timeRuns(CudaDriver *drv, CUstream stream, const RunFn &run, int sets,
                         bool cudaGraph, const TimingOptions &opts) {
  sets = std::max(sets, 1);
  if (!cudaGraph) {
    auto step = [&](int i) { return run(i % sets); };
    Expected<double> est = warmUp(drv, stream, step, opts.warmupMs);
    if (!est)
      return Error(est.error());
    Expected<std::vector<double>> t = timeSteps(drv, stream, step, repsFor(*est, opts), 1.0);
    if (!t)
      return Error(t.error());
    return statsOf(t.take());
  }

  // Eager warm-up first: handles, heuristics and load-time steps stay out of the capture.
  for (int i = 0; i < 2 * sets; ++i)
    if (Status s = run(i % sets); !s)
      return Error(s.message());
  FP8C_CU_TRY(drv, cuStreamSynchronize, stream);
  int perGraph = sets * std::max(1, (opts.runsPerGraph + sets - 1) / sets);
  FP8C_CU_TRY(drv, cuStreamBeginCapture, stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
  Status captured;
  for (int i = 0; i < perGraph && captured; ++i)
    captured = run(i % sets);
  CUgraph graph = nullptr;
  CUresult end = drv->cuStreamEndCapture(stream, &graph);
  if (!captured) {
    if (graph)
      drv->cuGraphDestroy(graph);
    return Error("during CUDA-graph capture: " + captured.message());
  }
  if (end != CUDA_SUCCESS)
    return Error(drv->errorMessage(end, "cuStreamEndCapture"));
  CUgraphExec exec = nullptr;
  CUresult inst = drv->cuGraphInstantiateWithFlags(&exec, graph, 0);
  drv->cuGraphDestroy(graph);
  if (inst != CUDA_SUCCESS)
    return Error(drv->errorMessage(inst, "cuGraphInstantiateWithFlags"));
  auto step = [&](int) -> Status {
    FP8C_CU_TRY(drv, cuGraphLaunch, exec, stream);
    return Status::ok();
  };
  Expected<Stats> out = Error("unset");
  Expected<double> est = warmUp(drv, stream, step, opts.warmupMs);
  if (!est) {
    out = Error(est.error());
  } else {
    Expected<std::vector<double>> t =
        timeSteps(drv, stream, step, repsFor(*est, opts), static_cast<double>(perGraph));
    if (!t) {
      out = Error(t.error());
    } else {
      Stats st = statsOf(t.take());
      st.cudaGraph = true;
      out = st;
    }
  }
  drv->cuGraphExecDestroy(exec);
  return out;
}

} // namespace fp8c::bench
