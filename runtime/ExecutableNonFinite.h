// The output checks of an Executable (CompileOptions::countNonFinite, docs/numerics.md): the
// CUDA source of the kernels that count a tensor's NaN and +-inf elements
// (codegen/kernels/nonfinite.cuh), one entry point per element type. compile() builds it with
// NVRTC; tests compile it without a GPU.
#pragma once

#include "ir/DType.h"

#include <string>

namespace fp8c {

/// The source: `extern "C"` entries (const void *data, long long n, unsigned long long *count)
/// for f32, f16, bf16, e4m3 and e5m2, each adding the NaN / +-inf elements of data[0, n) to
/// *count. 256 threads per block, any grid (grid-stride).
std::string nonFiniteCountSource();
/// The entry point for `dt` ("fp8c_count_nonfinite_bf16"), or "" for a dtype without one (i32).
std::string nonFiniteCountEntry(DType dt);

} // namespace fp8c
