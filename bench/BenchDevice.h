// The device a bench main measures on: GPU 0 made current, its description, and a
// non-blocking stream (shared by fp8c-bench and fp8c-train-bench); and the record of a run that
// every bench's JSON carries beside its rows: the device, its driver and power limit, the date
// and the command line.
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"

#include <string>

namespace fp8c::bench {

struct BenchDevice {
  CudaDriver *drv = nullptr;
  Device dev;
  CUstream stream = nullptr;
};

/// Loads the driver, makes device 0 current and creates a non-blocking stream on it.
Expected<BenchDevice> openBenchDevice();

/// What a run was measured on, when and by which command.
struct RunRecord {
  std::string device;     ///< the CUDA device's name ("NVIDIA H200")
  std::string deviceInfo; ///< Device::str(): architecture, SMs, memory, CUDA driver API
  std::string driver;     ///< the NVIDIA driver's version from NVML; empty where unknown
  double powerLimitW = 0; ///< the enforced power limit from NVML; 0 where unknown
  std::string date;       ///< UTC, YYYY-MM-DD
  std::string command;    ///< argv joined by spaces
};

/// The record of this run on `dev` (NVML's answers where it loads; the rest without it).
RunRecord recordRun(CudaDriver *drv, const Device &dev, int argc, char **argv);

/// Today's date in UTC, YYYY-MM-DD.
std::string todayUtc();

} // namespace fp8c::bench
