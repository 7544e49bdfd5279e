// Shared by the cuBLASLt tests (CublasLtGemmTest.cpp on the CPU, CublasLtGpuTest.cpp on a
// GPU): the FP8 GEMM config they start from.
#pragma once

#include "runtime/gpu/CublasLtGemm.h"

namespace fp8c::cublasTest {

inline CublasLtGemmConfig fp8Config(int64_t m = 64, int64_t n = 256, int64_t k = 384) {
  CublasLtGemmConfig c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lda = k;
  c.ldb = k;
  c.ldd = n;
  return c;
}

} // namespace fp8c::cublasTest
