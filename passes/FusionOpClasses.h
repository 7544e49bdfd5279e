// The op classes the fusion planner (FusionPlanner.cpp) reasons with: which ops anchor a GEMM
// kernel, which may join a GEMM epilogue, which chain as pointwise code, which compute scales.
#pragma once

#include "ir/IR.h"

namespace fp8c::fusion {

inline bool isGemm(const Op *op) {
  return op->kind() == OpKind::ScaledMatmul || op->kind() == OpKind::Linear ||
         op->kind() == OpKind::Matmul;
}

// The classes below are Ops.def's flags (kEpilogue, kActivationGrad, kPointwise, kScaleOp).

inline bool isEpiloguePointwise(const Op *op) { return op->info().has(kEpilogue); }

inline bool isActivationGrad(const Op *op) { return op->info().has(kActivationGrad); }

// Activation derivatives (training) and dequant chain with other pointwise ops; they do not join
// GEMM epilogues (codegen's GEMM epilogues take one operand).
inline bool isPointwise(const Op *op) { return op->info().has(kPointwise); }

inline bool isScaleOp(const Op *op) { return op->info().has(kScaleOp); }

} // namespace fp8c::fusion
