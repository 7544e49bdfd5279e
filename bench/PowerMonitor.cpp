// PowerMonitor (PowerMonitor.h): NVML through dlopen, its handful of entry points declared here
// with the ABI of nvml.h (every result an int, 0 success; a device handle an opaque pointer).
#include "bench/PowerMonitor.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace fp8c::bench {

struct PowerMonitor::Api {
  void *lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char *(*errorString)(int) = nullptr;
  int (*byBusId)(const char *, void **) = nullptr;
  int (*energy)(void *, unsigned long long *) = nullptr;
  int (*power)(void *, unsigned int *) = nullptr;
  int (*clock)(void *, int, unsigned int *) = nullptr;
  int (*reasons)(void *, unsigned long long *) = nullptr;
  int (*powerLimit)(void *, unsigned int *) = nullptr;   ///< optional
  int (*driverVersion)(char *, unsigned int) = nullptr; ///< optional

  std::string failure(int r, const char *call) const {
    return std::string("NVML ") + call +
           " failed: " + (errorString ? errorString(r) : "error " + std::to_string(r));
  }
};

namespace {
constexpr int kNvmlClockSm = 1;                    // NVML_CLOCK_SM
constexpr unsigned long long kSwPowerCap = 0x4;    // clocks event reason: SW power cap
constexpr unsigned long long kHwPowerBrake = 0x80; // HW power brake slowdown
} // namespace

Expected<std::unique_ptr<PowerMonitor>> PowerMonitor::open(CudaDriver *drv, int ordinal) {
  auto api = std::make_unique<Api>();
  api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib)
    return Error(std::string("cannot load libnvidia-ml.so.1: ") + dlerror());
  auto sym = [&](const char *name, auto &fn) -> bool {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api->lib, name));
    return fn != nullptr;
  };
  if (!sym("nvmlInit_v2", api->init) || !sym("nvmlShutdown", api->shutdown) ||
      !sym("nvmlErrorString", api->errorString) ||
      !sym("nvmlDeviceGetHandleByPciBusId_v2", api->byBusId) ||
      !sym("nvmlDeviceGetTotalEnergyConsumption", api->energy) ||
      !sym("nvmlDeviceGetPowerUsage", api->power) || !sym("nvmlDeviceGetClockInfo", api->clock)) {
    dlclose(api->lib);
    return Error("libnvidia-ml.so.1 lacks an entry point fp8c needs");
  }
  sym("nvmlDeviceGetEnforcedPowerLimit", api->powerLimit);
  sym("nvmlSystemGetDriverVersion", api->driverVersion);
  // The newer name first; the older one is the same call.
  if (!sym("nvmlDeviceGetCurrentClocksEventReasons", api->reasons))
    sym("nvmlDeviceGetCurrentClocksThrottleReasons", api->reasons);
  if (int r = api->init(); r != 0) {
    std::string msg = api->failure(r, "nvmlInit_v2");
    dlclose(api->lib);
    return Error(msg);
  }
  std::unique_ptr<PowerMonitor> m(new PowerMonitor);
  m->api_ = std::move(api);
  CUdevice dev = 0;
  char busId[64] = {};
  FP8C_CU_TRY(drv, cuDeviceGet, &dev, ordinal);
  FP8C_CU_TRY(drv, cuDeviceGetPCIBusId, busId, int(sizeof busId - 1), dev);
  if (int r = m->api_->byBusId(busId, &m->device_); r != 0)
    return Error(m->api_->failure(r, "nvmlDeviceGetHandleByPciBusId_v2") + " for " + busId);
  return m;
}

PowerMonitor::~PowerMonitor() {
  if (api_ && api_->lib) {
    api_->shutdown();
    dlclose(api_->lib);
  }
}

Expected<uint64_t> PowerMonitor::energyMj() {
  unsigned long long mj = 0;
  if (int r = api_->energy(device_, &mj); r != 0)
    return Error(api_->failure(r, "nvmlDeviceGetTotalEnergyConsumption"));
  return static_cast<uint64_t>(mj);
}

Expected<PowerSample> PowerMonitor::sample() {
  unsigned int mw = 0, mhz = 0;
  if (int r = api_->power(device_, &mw); r != 0)
    return Error(api_->failure(r, "nvmlDeviceGetPowerUsage"));
  if (int r = api_->clock(device_, kNvmlClockSm, &mhz); r != 0)
    return Error(api_->failure(r, "nvmlDeviceGetClockInfo"));
  PowerSample s;
  s.watts = mw / 1000.0;
  s.smMhz = mhz;
  if (api_->reasons) {
    unsigned long long why = 0;
    if (int r = api_->reasons(device_, &why); r != 0)
      return Error(api_->failure(r, "nvmlDeviceGetCurrentClocksEventReasons"));
    s.powerCapped = (why & (kSwPowerCap | kHwPowerBrake)) != 0;
  }
  return s;
}

Expected<double> PowerMonitor::powerLimitWatts() {
  if (!api_->powerLimit)
    return Error("libnvidia-ml.so.1 lacks nvmlDeviceGetEnforcedPowerLimit");
  unsigned int mw = 0;
  if (int r = api_->powerLimit(device_, &mw); r != 0)
    return Error(api_->failure(r, "nvmlDeviceGetEnforcedPowerLimit"));
  return mw / 1000.0;
}

Expected<std::string> PowerMonitor::driverVersion() {
  if (!api_->driverVersion)
    return Error("libnvidia-ml.so.1 lacks nvmlSystemGetDriverVersion");
  char buf[96] = {};
  if (int r = api_->driverVersion(buf, sizeof buf - 1); r != 0)
    return Error(api_->failure(r, "nvmlSystemGetDriverVersion"));
  return std::string(buf);
}

} // namespace fp8c::bench
