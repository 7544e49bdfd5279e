// openBenchDevice (BenchDevice.h).
#include "bench/BenchDevice.h"

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

} // namespace fp8c::bench
