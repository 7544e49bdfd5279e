// RAII device memory: cuMemAlloc on creation (in the current context), cuMemFree on
// destruction. Move-only. A zero-byte buffer holds no allocation.
#pragma once

#include "runtime/cuda/CudaDriver.h"

#include <cstddef>

namespace fp8c {

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// `bytes` of device memory in the current context (CudaDriver::makeCurrent first).
  static Expected<DeviceBuffer> allocate(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&o) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  void *data() const { return reinterpret_cast<void *>(ptr_); }
  size_t bytes() const { return bytes_; }
  explicit operator bool() const { return ptr_ != 0; }

  /// Synchronous copies (they wait for the legacy default stream).
  Status upload(const void *host, size_t bytes, size_t offset = 0);
  Status download(void *host, size_t bytes, size_t offset = 0) const;
  /// Every byte set to `value`, asynchronously on `stream`.
  Status fill(unsigned char value, CUstream stream = nullptr);

private:
  void reset();
  CudaDriver *drv_ = nullptr;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

} // namespace fp8c
