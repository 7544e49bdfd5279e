// StepProfiler: CUDA events between the steps of one Executable::run, for a per-step time
// breakdown (fp8c-train-bench --profile, fp8c --bench --profile). Recording an event per step
// adds a few microseconds per launch and breaks nothing else (no host synchronization until
// times() is asked for); timings are of the launches as enqueued, so a step's time includes
// any gap before it.
#pragma once

#include "ir/Status.h"
#include "runtime/Executable.h"
#include "runtime/cuda/CudaDriver.h"

#include <string>
#include <vector>

namespace fp8c {

class StepProfiler {
public:
  explicit StepProfiler(CudaDriver *drv) : drv_(drv) {}
  ~StepProfiler();
  StepProfiler(const StepProfiler &) = delete;
  StepProfiler &operator=(const StepProfiler &) = delete;

  /// Starts a new run on `stream`: forgets the previous one's marks and records the first.
  Status begin(CUstream stream);
  /// Marks the end of one step (recorded on `stream`); `bytes` as StepTime::bytes.
  Status mark(CUstream stream, std::string name, std::string what, int64_t bytes = 0);
  /// Waits for the last mark and returns each step's time, in order.
  Expected<std::vector<StepTime>> times();

private:
  Expected<CUevent> eventAt(size_t i);
  CudaDriver *drv_;
  std::vector<CUevent> events_; ///< reused across runs; grown on demand
  std::vector<StepTime> steps_;
  size_t used_ = 0;
};

/// Runs `e` `runs` times with profiling on (off again after) and returns each step's median
/// time, with the step's name and what it ran from the first run. For fp8c --bench --profile
/// and fp8c-bench --profile.
Expected<std::vector<StepTime>> medianStepTimes(Executable &e, const Bindings &bindings, int runs,
                                                CUstream stream);

} // namespace fp8c
