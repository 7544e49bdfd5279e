// Sustained timing: one step run back to back for a block of about blockMs, as a training run
// runs it, timed with an event after every step; the first third of the block settles the
// clocks and power under the board's cap and is left out. With a PowerMonitor, the block also
// gives the energy per step (NVML's energy counter over the kept steps) and the mean power and
// SM clock sampled while the kept steps ran. Short interleaved samples (Timing.h) start every
// recipe from the clocks the previous one left; a block measures the state a recipe settles in.
#pragma once

#include "bench/PowerMonitor.h"
#include "bench/Timing.h"

namespace fp8c::bench {

struct SustainedOptions {
  double blockMs = 2000; ///< the block's length, the settling third included
  int maxSteps = 4000;   ///< at most this many steps (events) per block
  double aheadMs = 10;   ///< the host keeps about twice this much work queued
};

struct SustainedBlock {
  Stats kept;               ///< per-step times of the kept steps (the last two thirds)
  int steps = 0;            ///< steps in the block, settling included
  double joulesPerStep = 0; ///< 0 without a monitor
  double meanWatts = 0;     ///< the energy over the kept steps' event time
  double sampledSmMhz = 0;  ///< the mean SM clock of the samples taken during them
  double cappedFraction = 0; ///< the share of those samples under a power cap
  int samples = 0;
};

/// Runs `step` (enqueue only) for one block; `stepUs` is an estimate of one step's time.
/// `monitor` may be null (no energy then).
Expected<SustainedBlock> timeSustained(CudaDriver *drv, CUstream stream, const RunFn &step,
                                       double stepUs, const SustainedOptions &opts,
                                       PowerMonitor *monitor);

} // namespace fp8c::bench
