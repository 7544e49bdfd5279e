// Cast-ahead A's part of the generated GEMM's GPU check (GemmSm90GpuCase.cpp): the FP8 copy of
// A and the ready counters a castAhead run left behind.
#pragma once

#include "runtime/cuda/DeviceBuffer.h"

#include <cstdint>
#include <vector>

namespace fp8c::sm90test {

/// Checks (gtest expectations) the FP8 copy `aCast` ([M + 1, lda] bytes, poisoned with 0xFF
/// before the run) against the host quantization `aBytes` ([M, lda]) within [M, K], and
/// untouched elsewhere; and the `counters` ready counters in `ready` zero after the run, the
/// spare one after them (poisoned 0xFFFFFFFF) untouched.
void checkCastAhead(DeviceBuffer &aCast, DeviceBuffer &ready, const std::vector<uint8_t> &aBytes,
                    int64_t m, int64_t k, int64_t lda, int64_t counters);

} // namespace fp8c::sm90test
