// StepProfiler (StepProfiler.h).
#include "runtime/StepProfiler.h"

#include <algorithm>

namespace fp8c {

StepProfiler::~StepProfiler() {
  for (CUevent e : events_)
    drv_->cuEventDestroy(e);
}

Expected<CUevent> StepProfiler::eventAt(size_t i) {
  while (events_.size() <= i) {
    CUevent e = nullptr;
    FP8C_CU_TRY(drv_, cuEventCreate, &e, CU_EVENT_DEFAULT);
    events_.push_back(e);
  }
  return events_[i];
}

Status StepProfiler::begin(CUstream stream) {
  steps_.clear();
  used_ = 0;
  Expected<CUevent> e = eventAt(used_++);
  if (!e)
    return Error(e.error());
  FP8C_CU_TRY(drv_, cuEventRecord, *e, stream);
  return Status::ok();
}

Status StepProfiler::mark(CUstream stream, std::string name, std::string what, int64_t bytes) {
  if (used_ == 0)
    return Error("StepProfiler::mark before begin");
  Expected<CUevent> e = eventAt(used_++);
  if (!e)
    return Error(e.error());
  FP8C_CU_TRY(drv_, cuEventRecord, *e, stream);
  steps_.push_back({std::move(name), std::move(what), 0, bytes});
  return Status::ok();
}

Expected<std::vector<StepTime>> StepProfiler::times() {
  if (used_ == 0)
    return Error("no profiled run");
  FP8C_CU_TRY(drv_, cuEventSynchronize, events_[used_ - 1]);
  for (size_t i = 0; i < steps_.size(); ++i) {
    float ms = 0;
    FP8C_CU_TRY(drv_, cuEventElapsedTime, &ms, events_[i], events_[i + 1]);
    steps_[i].us = 1000.0 * ms;
  }
  return steps_;
}

Expected<std::vector<StepTime>> medianStepTimes(Executable &e, const Bindings &bindings, int runs,
                                                CUstream stream) {
  e.setProfiling(true);
  std::vector<std::vector<StepTime>> all;
  Status st = Status::ok();
  for (int r = 0; r < runs && st; ++r) {
    st = e.run(bindings, stream);
    if (!st)
      break;
    Expected<std::vector<StepTime>> t = e.lastProfile();
    if (!t)
      st = Error(t.error());
    else
      all.push_back(*t);
  }
  e.setProfiling(false);
  if (!st)
    return Error(st.message());
  if (all.empty())
    return std::vector<StepTime>{};
  std::vector<StepTime> out = all[0];
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> us;
    for (const auto &run : all)
      us.push_back(run[i].us);
    std::sort(us.begin(), us.end());
    out[i].us = us[us.size() / 2];
  }
  return out;
}

} // namespace fp8c
