// fp8c-cublaslt-support --backward (CublasLtSupportBackward.cpp): cuBLASLt's backward GELU
// epilogues on FP8 dgrad GEMMs and on the bf16 step's, their support and, where they run, their
// time.
#pragma once

#include "runtime/gpu/CublasLtGemm.h"

namespace fp8c {

/// Device buffers large enough for M 8192, N and K up to 14336 with bf16 operands (zero-filled).
struct BackwardBuffers {
  const void *a = nullptr, *b = nullptr;
  void *d = nullptr, *bias = nullptr, *aux = nullptr;
  const float *scale = nullptr;
  float *amax = nullptr;
};

/// Prints a support line per (epilogue, D type, N, K) and the timings; returns the exit status.
int probeBackwardGelu(CudaDriver *drv, CublasLtRunner &runner, const BackwardBuffers &buf);

} // namespace fp8c
