// Random device data for the benchmark, made fast: one host block of seeded normal values
// (interp/RandomInputs.h) rounded to the dtype, uploaded once and repeated through the
// buffer by device-to-device copies that double the filled prefix. Values repeat with the
// block's period (1 Mi elements), which changes nothing a timing depends on; they are never
// all zeros.
#pragma once

#include "ir/DType.h"
#include "ir/Status.h"
#include "runtime/cuda/DeviceBuffer.h"

#include <cstdint>

namespace fp8c::bench {

/// Fills the first `elems` elements of `buf` with N(0, stddev^2) values rounded to `dtype`,
/// from a block chosen by `seed` (a few distinct seeds are cached on the host). Synchronous.
Status fillRandom(DeviceBuffer &buf, int64_t elems, DType dtype, double stddev, uint64_t seed);
/// Fills `count` f32 values with `value`, asynchronously on `stream`.
Status fillF32(DeviceBuffer &buf, int64_t count, float value, CUstream stream);
/// A new buffer of `bytes` (rounded up to 256), or an Error naming `what`.
Expected<DeviceBuffer> allocateFor(size_t bytes, const std::string &what);

} // namespace fp8c::bench
