// DeviceBuffer (DeviceBuffer.h).
#include "runtime/cuda/DeviceBuffer.h"

#include <utility>

namespace fp8c {

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  DeviceBuffer b;
  b.drv_ = *drv;
  if (bytes == 0)
    return b;
  CUresult r = b.drv_->cuMemAlloc(&b.ptr_, bytes);
  if (r != CUDA_SUCCESS)
    return Error(b.drv_->errorMessage(r, "cuMemAlloc", std::to_string(bytes) + " bytes"));
  b.bytes_ = bytes;
  return b;
}

void DeviceBuffer::reset() {
  if (ptr_ && drv_)
    drv_->cuMemFree(ptr_); // nothing to report from a destructor
  ptr_ = 0;
  bytes_ = 0;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&o) noexcept
    : drv_(o.drv_), ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  if (this != &o) {
    reset();
    drv_ = o.drv_;
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

static Status rangeError(const char *what, size_t offset, size_t bytes, size_t size) {
  return Error(std::string("DeviceBuffer::") + what + ": bytes [" + std::to_string(offset) + ", " +
               std::to_string(offset + bytes) + ") outside a buffer of " + std::to_string(size));
}

Status DeviceBuffer::upload(const void *host, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_)
    return rangeError("upload", offset, bytes, bytes_);
  if (bytes == 0)
    return Status::ok();
  FP8C_CU_TRY(drv_, cuMemcpyHtoD, ptr_ + offset, host, bytes);
  return Status::ok();
}

Status DeviceBuffer::download(void *host, size_t bytes, size_t offset) const {
  if (offset + bytes > bytes_)
    return rangeError("download", offset, bytes, bytes_);
  if (bytes == 0)
    return Status::ok();
  FP8C_CU_TRY(drv_, cuMemcpyDtoH, host, ptr_ + offset, bytes);
  return Status::ok();
}

Status DeviceBuffer::fill(unsigned char value, CUstream stream) {
  if (bytes_ == 0)
    return Status::ok();
  FP8C_CU_TRY(drv_, cuMemsetD8Async, ptr_, value, bytes_, stream);
  return Status::ok();
}

} // namespace fp8c
