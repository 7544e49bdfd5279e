// The board's power, SM clock and energy counter as NVML reports them, for the benches that
// time sustained work: under the H200's 700 W cap a training step's time follows its energy,
// so a sustained comparison reports joules per step beside the times. NVML is loaded with
// dlopen (libnvidia-ml.so.1 ships with the driver; nothing links it), and the NVML device is
// the CUDA device's by PCI bus id. Every NVML call is checked.
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"

#include <cstdint>
#include <memory>
#include <string>

namespace fp8c::bench {

struct PowerSample {
  double watts = 0;
  double smMhz = 0;
  bool powerCapped = false; ///< a software or hardware power cap holds the clocks down
};

class PowerMonitor {
public:
  /// NVML for CUDA device `ordinal`; an Error where NVML cannot be loaded or does not know the
  /// device (the caller reports it and goes on without energies).
  static Expected<std::unique_ptr<PowerMonitor>> open(CudaDriver *drv, int ordinal);
  ~PowerMonitor();

  /// The board's energy counter in millijoules (since the driver loaded).
  Expected<uint64_t> energyMj();
  /// Power draw, SM clock and the power-cap throttle reasons now.
  Expected<PowerSample> sample();
  /// The power limit the board enforces, in watts.
  Expected<double> powerLimitWatts();
  /// The NVIDIA driver's version (e.g. 580.159.04).
  Expected<std::string> driverVersion();

  struct Api;

private:
  PowerMonitor() = default;
  std::unique_ptr<Api> api_;
  void *device_ = nullptr;
};

} // namespace fp8c::bench
