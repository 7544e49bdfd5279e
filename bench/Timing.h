// Timing with CUDA events (runtime/cuda/CudaDriver): warm-up runs excluded, then many runs,
// each between two events recorded back to back on one stream, so a sample is the time from
// one run's start to the next's (host launch gaps count where the host is the bottleneck, as
// they do for a user). Inputs rotate among `sets` buffer sets so repeated runs do not measure
// the L2 cache. In CUDA-graph mode the runs are captured into one graph (cycling through the
// sets) and each sample is one replay divided by the runs in it.
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"

#include <functional>
#include <vector>

namespace fp8c::bench {

struct TimingOptions {
  double warmupMs = 25;  ///< at least this long, and at least 3 runs
  double targetMs = 200; ///< measured time per variant, within minReps..maxReps
  int minReps = 15;
  int maxReps = 400;
  int runsPerGraph = 20; ///< CUDA-graph mode: runs captured in one graph
};

struct Stats {
  double medianUs = 0, p10Us = 0, p90Us = 0, minUs = 0, maxUs = 0;
  int reps = 0;
  bool cudaGraph = false;
};

/// One run on `stream` with input set `set` (0 <= set < sets); must only enqueue work.
using RunFn = std::function<Status(int set)>;

Expected<Stats> timeRuns(CudaDriver *drv, CUstream stream, const RunFn &run, int sets,
                         bool cudaGraph, const TimingOptions &opts);

/// Median, p10, p90, min and max of samples in microseconds.
Stats statsOf(std::vector<double> samplesUs);

} // namespace fp8c::bench
