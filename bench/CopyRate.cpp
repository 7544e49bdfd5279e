// measureCopyRate (CopyRate.h).
#include "bench/CopyRate.h"

#include "bench/DeviceFill.h"
#include "ir/DType.h"
#include "runtime/cuda/DeviceBuffer.h"

namespace fp8c::bench {

Expected<CopyRate> measureCopyRate(CudaDriver *drv, CUstream stream, size_t bytes,
                                   const TimingOptions &t) {
  Expected<DeviceBuffer> src = allocateFor(bytes, "copy source");
  Expected<DeviceBuffer> dst = allocateFor(bytes, "copy destination");
  if (!src || !dst)
    return Error(!src ? src.error() : dst.error());
  if (Status s = fillRandom(*src, static_cast<int64_t>(bytes / 2), DType::BF16, 1.0, 1); !s)
    return Error(s.message());
  Expected<Stats> cs = timeRuns(
      drv, stream,
      [&](int) -> Status {
        FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, dst->ptr(), src->ptr(), bytes, stream);
        return Status::ok();
      },
      1, false, t);
  if (!cs)
    return Error(cs.error());
  CopyRate r;
  r.stats = *cs;
  r.bytes = bytes;
  r.gbs = 2.0 * double(bytes) / (cs->medianUs * 1e-6) / 1e9;
  return r;
}

} // namespace fp8c::bench
