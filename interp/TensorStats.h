// Summary statistics of host tensors and the error metric the GPU-vs-interpreter tests use
// (docs/numerics.md: relative Frobenius error).
#pragma once

#include "interp/HostTensor.h"

#include <cstdint>

namespace fp8c {

/// Statistics over the finite elements (NaN and inf are only counted). With no finite element,
/// mean / stddev / min / max / absMax are NaN.
struct TensorStats {
  int64_t count = 0; ///< all elements
  int64_t nanCount = 0;
  int64_t infCount = 0;
  double mean = 0.0;
  double stddev = 0.0; ///< population standard deviation
  double min = 0.0;
  double max = 0.0;
  double absMax = 0.0;
};

TensorStats computeStats(const HostTensor &t);

/// ||got - ref||_F / ||ref||_F computed in double. NaN when either holds a NaN or the shapes
/// differ; 0 when both are all zero; inf when only ref is all zero. Infinities follow double
/// arithmetic (an inf in got against a finite ref gives inf; inf against inf gives NaN).
double relativeFrobeniusError(const HostTensor &got, const HostTensor &ref);

/// Index of the first element whose bit patterns differ (NaN matches any NaN), or -1 when the
/// two have equal shapes, dtypes and bits. Different shapes or dtypes give 0.
int64_t firstBitMismatch(const HostTensor &a, const HostTensor &b);
/// How many elements differ in bits (NaN matches any NaN); elements only one side has count.
int64_t countBitMismatches(const HostTensor &a, const HostTensor &b);

} // namespace fp8c
