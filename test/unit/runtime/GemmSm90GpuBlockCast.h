// The 1x128-block cast's part of the generated GEMM's GPU check (GemmSm90GpuCase.cpp): the
// scales and inverses a block-cast kernel wrote, against the reference.
#pragma once

#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"

#include <functional>
#include <vector>

namespace fp8c::sm90test {

/// Checks (gtest expectations) the scales [M, ldBlockScale] and inverses [N/128, ldBlockInv]
/// of a block-cast run (each with a spare column / row, poisoned with 0xFF before the run)
/// against the reference: v = bf16(act(bf16(pre))) per element, each 1x128 block's scale
/// fp8.scale(amax) with the problem's margin and power-of-two rounding. Replaces each ref[i, j]
/// by v times the kernel's scale of its block: what the FP8 D must then hold.
void checkBlockCast(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                    const std::vector<double> &pre, const std::function<double(double)> &act,
                    DeviceBuffer &scales, DeviceBuffer &inverses, std::vector<double> &ref);

} // namespace fp8c::sm90test
