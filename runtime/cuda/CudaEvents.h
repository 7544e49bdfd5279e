// A fixed set of CUDA events for timing: created together (every creation checked), destroyed
// with the object. Used by the autotuner's sustained timing and by the benches.
#pragma once

#include "runtime/cuda/CudaDriver.h"

#include <vector>

namespace fp8c {

class CudaEvents {
public:
  /// `n` events in the current context, or an Error naming the failing creation.
  static Expected<CudaEvents> create(CudaDriver *drv, size_t n) {
    CudaEvents e(drv, n);
    for (CUevent &ev : e.ev_)
      FP8C_CU_TRY(drv, cuEventCreate, &ev, CU_EVENT_DEFAULT);
    return e;
  }
  ~CudaEvents() {
    for (CUevent e : ev_)
      if (e)
        drv_->cuEventDestroy(e);
  }
  CudaEvents(CudaEvents &&o) noexcept : drv_(o.drv_), ev_(std::move(o.ev_)) { o.ev_.clear(); }
  CudaEvents &operator=(CudaEvents &&) = delete;
  CudaEvents(const CudaEvents &) = delete;
  CudaEvents &operator=(const CudaEvents &) = delete;

  CUevent operator[](size_t i) const { return ev_[i]; }
  size_t size() const { return ev_.size(); }
  /// Milliseconds between two recorded (and completed) events.
  Expected<float> elapsedMs(size_t from, size_t to) const {
    float ms = 0;
    FP8C_CU_TRY(drv_, cuEventElapsedTime, &ms, ev_[from], ev_[to]);
    return ms;
  }

private:
  CudaEvents(CudaDriver *drv, size_t n) : drv_(drv), ev_(n, nullptr) {}
  CudaDriver *drv_;
  std::vector<CUevent> ev_;
};

} // namespace fp8c
