// timeSustained (SustainedTiming.h).
#include "bench/SustainedTiming.h"

#include "runtime/cuda/CudaEvents.h"

#include <algorithm>
#include <cmath>

namespace fp8c::bench {

Expected<SustainedBlock> timeSustained(CudaDriver *drv, CUstream stream, const RunFn &step,
                                       double stepUs, const SustainedOptions &opts,
                                       PowerMonitor *monitor) {
  stepUs = std::max(stepUs, 1.0);
  const int n = std::clamp(static_cast<int>(opts.blockMs * 1e3 / stepUs), 9, opts.maxSteps);
  const int settle = n / 3;
  // Steps per chunk: the host waits for the end of the chunk two chunks back before it enqueues
  // more, so the GPU always has work and the host is free to sample between chunks.
  const int chunk =
      std::clamp(static_cast<int>(opts.aheadMs * 1e3 / stepUs), 1, std::max(1, (n - settle) / 6));
  Expected<CudaEvents> events = CudaEvents::create(drv, static_cast<size_t>(n) + 1);
  if (!events)
    return Error(events.error());
  const CudaEvents &ev = *events;

  SustainedBlock out;
  out.steps = n;
  uint64_t e0 = 0;
  int s0 = -1; // the event at which e0 was read
  double mhz = 0;
  int capped = 0;
  FP8C_CU_TRY(drv, cuEventRecord, ev[0], stream);
  int waited = 0;
  for (int i = 0; i < n; ++i) {
    if (Status s = step(i); !s)
      return Error(s.message());
    FP8C_CU_TRY(drv, cuEventRecord, ev[size_t(i) + 1], stream);
    const int target = i + 1 - 2 * chunk;
    if (target <= 0 || target < waited + chunk)
      continue;
    FP8C_CU_TRY(drv, cuEventSynchronize, ev[size_t(target)]);
    waited = target;
    if (!monitor || target < settle)
      continue;
    if (s0 < 0) {
      Expected<uint64_t> e = monitor->energyMj();
      if (!e)
        return Error(e.error());
      e0 = *e;
      s0 = target;
      continue;
    }
    Expected<PowerSample> ps = monitor->sample();
    if (!ps)
      return Error(ps.error());
    mhz += ps->smMhz;
    capped += ps->powerCapped ? 1 : 0;
    ++out.samples;
  }
  FP8C_CU_TRY(drv, cuEventSynchronize, ev[size_t(n)]);
  if (monitor && s0 >= 0) {
    Expected<uint64_t> e1 = monitor->energyMj();
    if (!e1)
      return Error(e1.error());
    Expected<float> ms = ev.elapsedMs(size_t(s0), size_t(n));
    if (!ms)
      return Error(ms.error());
    const double joules = double(*e1 - e0) / 1e3;
    out.joulesPerStep = joules / double(n - s0);
    out.meanWatts = *ms > 0 ? joules / (*ms / 1e3) : 0;
  }
  if (out.samples > 0) {
    out.sampledSmMhz = mhz / out.samples;
    out.cappedFraction = double(capped) / out.samples;
  }
  std::vector<double> us;
  for (int i = settle; i < n; ++i) {
    Expected<float> ms = ev.elapsedMs(size_t(i), size_t(i) + 1);
    if (!ms)
      return Error(ms.error());
    us.push_back(*ms * 1e3);
  }
  out.kept = statsOf(std::move(us));
  return out;
}

} // namespace fp8c::bench
