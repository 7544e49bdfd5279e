// The device a bench main measures on: GPU 0 made current, its description, and a
// non-blocking stream (shared by fp8c-bench and fp8c-train-bench).
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"

namespace fp8c::bench {

struct BenchDevice {
  CudaDriver *drv = nullptr;
  Device dev;
  CUstream stream = nullptr;
};

/// Loads the driver, makes device 0 current and creates a non-blocking stream on it.
Expected<BenchDevice> openBenchDevice();

} // namespace fp8c::bench
