// The promotion-interval probe: FP8 GEMM operands whose f32 product shows how often a GEMM
// promotes its tensor-core partial sums into f32. A is all ones; row n of B holds 448 at
// k = 32 n and 2^-7 elsewhere (e4m3, unit scales, K 4096). A 2^-7 product added after 448 within
// one promotion interval is lost to the tensor cores' ~14-bit accumulation, while the products
// of later intervals start from zero and reach the f32 result whole; so with interval P column n
// loses P - 1 - (32 n mod P) products (P = K: nothing promoted), and D[0, n] =
// 448 + (K - 1 - lost) 2^-7 exactly. Used by fp8c-gemm-bench --accum-probe
// (GemmSm90AccumProbe.cpp) and its GPU test (GemmSm90PromotionIntervalTest.cpp).
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstdint>
#include <vector>

namespace fp8c::bench {

struct PromotionProbe {
  static constexpr int64_t kM = 128, kN = 128, kK = 4096;
  DeviceBuffer a, b, d, one; ///< A, B (e4m3), D (f32 [kM, kN]), the unit scale

  /// Uploads the operands (needs a current CUDA context).
  static Expected<PromotionProbe> create();
  /// cuBLASLt's e4m3 x e4m3 -> f32 call on the probe, with or without fast accumulation.
  CublasLtGemmConfig cublasConfig(bool fastAccum) const;
  CublasLtGemmPointers cublasPointers() const;
  /// The generated GEMM's problem and pointers (its kernel must have an f32 D).
  GemmSm90Problem problem() const;
  GemmSm90Pointers sm90Pointers() const;
  /// Zeroes D (before a run, so a GEMM that writes nothing cannot pass).
  Status clear();
  /// After a run: each column's lost products, from row 0 of D (synchronizes the context).
  Expected<std::vector<double>> lostProducts() const;
  /// The lost products of column n under promotion interval p (kK: none).
  static double expectedLost(int64_t p, int64_t n) { return double(p - 1 - (32 * n) % p); }
};

} // namespace fp8c::bench
