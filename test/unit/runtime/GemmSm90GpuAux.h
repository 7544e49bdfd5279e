// The pre-activation output's part of the generated GEMM's GPU check (GemmSm90GpuCase.cpp):
// the bf16 pre-activation (auxOut) or its e4m3 copy (auxFp8) against the reference.
#pragma once

#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"

#include <functional>
#include <vector>

namespace fp8c::sm90test {

/// Checks (gtest expectations) the aux output [M, ldAux] of a run (with a spare row, poisoned
/// with 0xFF before it) against the f64 pre-activation `pre` [M, N]: within its rounding (bf16,
/// then e4m3 for the copy) plus `tol` in relative Frobenius norm, its largest element within
/// the rounding plus the accumulation's tail (Compare.h), NaN-free, nothing written
/// outside [M, N]. With bf16, replaces each ref[i, j] by act of the stored value (the kernel
/// activates the rounded pre-activation, as the graph does); the e4m3 copy is not what the
/// kernel activates, so `ref` stays the f64 one.
void checkPreActivation(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                        const std::vector<double> &pre, const std::function<double(double)> &act,
                        DeviceBuffer &aux, double tol, std::vector<double> &ref);

} // namespace fp8c::sm90test
