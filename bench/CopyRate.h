// The device-to-device copy rate, the memory-bound ceiling the benches hold launches against:
// cuMemcpyDtoDAsync of one buffer into another, bytes read plus written over the median time
// (bench/Timing.h). fp8c-bench's ceilings and fp8c-train-bench --profile's copy-speed floor.
#pragma once

#include "bench/Timing.h"

#include <cstddef>

namespace fp8c::bench {

struct CopyRate {
  Stats stats;      ///< one copy's time
  double gbs = 0;   ///< 2 * bytes over the median time, in GB/s
  size_t bytes = 0; ///< the copy's size
};

/// Times copies of `bytes` (a random-filled source, so the data is never all zero) on `stream`.
Expected<CopyRate> measureCopyRate(CudaDriver *drv, CUstream stream, size_t bytes,
                                   const TimingOptions &t);

} // namespace fp8c::bench
