// Host tensors to and from device memory, in the dtype's storage format (bf16 bits, FP8
// bytes, ...). Used by `fp8c --run=gpu` and the GPU tests.
#pragma once

#include "ir/Status.h"
#include "interp/HostTensor.h"
#include "runtime/cuda/DeviceBuffer.h"

namespace fp8c {

/// A device copy of `t` (synchronous).
Expected<DeviceBuffer> uploadTensor(const HostTensor &t);
/// The first numElements(shape) elements of `buf`, decoded as `dtype` (synchronous).
Expected<HostTensor> downloadTensor(const DeviceBuffer &buf, std::vector<int64_t> shape,
                                    DType dtype);
/// Storage bytes of a host tensor, and back.
std::vector<unsigned char> encodeTensor(const HostTensor &t);
HostTensor decodeTensor(const std::vector<unsigned char> &bytes, std::vector<int64_t> shape,
                        DType dtype);

} // namespace fp8c
