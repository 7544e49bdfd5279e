// openBenchDevice and recordRun (BenchDevice.h).
#include "bench/BenchDevice.h"

#include "bench/PowerMonitor.h"

#include <ctime>

namespace fp8c::bench {

Expected<BenchDevice> openBenchDevice() {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  BenchDevice b;
  b.drv = *drv;
  if (Status s = b.drv->makeCurrent(0); !s)
    return Error(s.message());
  Expected<Device> dev = b.drv->device(0);
  if (!dev)
    return Error(dev.error());
  b.dev = *dev;
  if (CUresult r = b.drv->cuStreamCreate(&b.stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS)
    return Error(b.drv->errorMessage(r, "cuStreamCreate"));
  return b;
}

std::string todayUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

RunRecord recordRun(CudaDriver *drv, const Device &dev, int argc, char **argv) {
  RunRecord r;
  r.device = dev.name;
  r.deviceInfo = dev.str();
  r.date = todayUtc();
  for (int i = 0; i < argc; ++i)
    r.command += (i ? " " : "") + std::string(argv[i]);
  // NVML is optional here: a run without it records no driver and no power limit.
  if (Expected<std::unique_ptr<PowerMonitor>> m = PowerMonitor::open(drv, dev.ordinal)) {
    if (Expected<double> w = (*m)->powerLimitWatts())
      r.powerLimitW = *w;
    if (Expected<std::string> v = (*m)->driverVersion())
      r.driver = *v;
  }
  return r;
}

} // namespace fp8c::bench
