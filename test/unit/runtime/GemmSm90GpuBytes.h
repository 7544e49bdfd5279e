// Byte-level helpers of the generated GEMM's GPU check (GemmSm90GpuCase.cpp): uploads, a
// config's D against expected bytes, and A's transposed copy for A given MN-major.
#pragma once

#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace fp8c::sm90test {

/// A device buffer holding `bytes` bytes of `data` (at least 16 bytes allocated); a gtest
/// failure and an empty buffer when allocation fails.
DeviceBuffer upload(const void *data, size_t bytes);

/// Runs `k` into a fresh D poisoned with 0xFF (amaxD zeroed first) and expects D, padding
/// included, byte for byte equal to `expect`.
void sameBytes(GemmSm90Runner &runner, const GemmSm90Spec &k, const GemmSm90Problem &prob,
               GemmSm90Pointers p, int maxBlocks, size_t dBytes, DeviceBuffer &dAmax,
               const std::vector<uint8_t> &expect, const std::string &what);

/// A^T [K, ldaT] of the FP8 operand `a` ([M, lda] bytes): row j holds column j of A's first M
/// rows, then finite garbage (random, below 0x40) up to ldaT, which the kernel must not read.
std::vector<uint8_t> transposedOperand(const std::vector<uint8_t> &a, int64_t m, int64_t k,
                                       int64_t lda, int64_t ldaT, std::mt19937 &rng);

} // namespace fp8c::sm90test
