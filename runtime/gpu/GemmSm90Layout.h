// GemmSm90's shared-memory budget and layout size (GemmSm90Tiles.cpp), for the host checks in
// GemmSm90.cpp.
#pragma once

#include "runtime/gpu/GemmSm90.h"

#include <cstdint>

namespace fp8c {

/// Dynamic shared memory one block may opt into on sm_90.
constexpr int64_t kGemmSm90MaxSharedBytes = 232448;

/// Dynamic shared memory of `k` with `epiBufs` TMA-store chunk buffers per consumer warpgroup
/// (or, with the offloaded epilogue, per epilogue warp).
int64_t gemmSm90SharedBytesWith(const GemmSm90Kernel &k, int epiBufs);

} // namespace fp8c
