// Random device data: see DeviceFill.h.
#include "bench/DeviceFill.h"

#include "runtime/DeviceTensorIO.h"
#include "interp/RandomInputs.h"

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace fp8c::bench {
namespace {

constexpr int64_t kBlockElems = int64_t(1) << 20;

const std::vector<unsigned char> &hostBlock(DType dtype, double stddev, uint64_t seed) {
  static std::mutex mu;
  static std::map<std::tuple<int, double, uint64_t>, std::vector<unsigned char>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(static_cast<int>(dtype), stddev, seed % 4);
  auto it = cache.find(key);
  if (it == cache.end()) {
    HostTensor t = randomTensor({kBlockElems}, dtype, 1000 + seed % 4, stddev);
    for (float &v : t.data)
      if (v == 0)
        v = roundToDType(static_cast<float>(stddev) / 4, dtype);
    it = cache.emplace(key, encodeTensor(t)).first;
  }
  return it->second;
}

} // namespace

Status fillRandom(DeviceBuffer &buf, int64_t elems, DType dtype, double stddev, uint64_t seed) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  size_t eb = static_cast<size_t>(dtypeBytes(dtype));
  size_t total = static_cast<size_t>(elems) * eb;
  if (total > buf.bytes())
    return Error("fillRandom: buffer too small");
  const std::vector<unsigned char> &block = hostBlock(dtype, stddev, seed);
  size_t first = std::min(total, block.size());
  if (Status s = buf.upload(block.data(), first); !s)
    return s;
  size_t filled = first;
  while (filled < total) {
    size_t n = std::min(filled, total - filled);
    FP8C_CU_TRY(*drv, cuMemcpyDtoDAsync, buf.ptr() + filled, buf.ptr(), n, nullptr);
    filled += n;
  }
  FP8C_CU_TRY(*drv, cuCtxSynchronize);
  return Status::ok();
}

Status fillF32(DeviceBuffer &buf, int64_t count, float value, CUstream stream) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  unsigned bits;
  std::memcpy(&bits, &value, 4);
  FP8C_CU_TRY(*drv, cuMemsetD32Async, buf.ptr(), bits, static_cast<size_t>(count), stream);
  return Status::ok();
}

Expected<DeviceBuffer> allocateFor(size_t bytes, const std::string &what) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate((std::max<size_t>(bytes, 1) + 255) / 256 * 256);
  if (!b)
    return Error("allocating " + what + ": " + b.error());
  return b;
}

} // namespace fp8c::bench
