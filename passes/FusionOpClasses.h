// The op classes the fusion planner (FusionPlanner.cpp) reasons with: which ops anchor a GEMM
// kernel, which may join a GEMM epilogue, which chain as pointwise code, which compute scales.
#pragma once

#include "ir/IR.h"

namespace fp8c::fusion {

inline bool isGemm(const Op *op) {
  return op->kind() == OpKind::ScaledMatmul || op->kind() == OpKind::Linear ||
         op->kind() == OpKind::Matmul;
}

inline bool isEpiloguePointwise(const Op *op) {
  switch (op->kind()) {
  case OpKind::Relu:
  case OpKind::Gelu:
  case OpKind::Silu:
  case OpKind::Add:
  case OpKind::Mul:
  case OpKind::Swiglu:
  case OpKind::Convert:
    return true;
  default:
    return false;
  }
}

inline bool isActivationGrad(const Op *op) {
  return op->kind() == OpKind::ReluGrad || op->kind() == OpKind::GeluGrad ||
         op->kind() == OpKind::SiluGrad || op->kind() == OpKind::SwigluGrad;
}

// Activation derivatives (training) chain with other pointwise ops; they do not join GEMM
// epilogues yet (codegen's GEMM epilogues take one operand).
inline bool isPointwise(const Op *op) {
  switch (op->kind()) {
  case OpKind::Dequant:
  case OpKind::ReluGrad:
  case OpKind::GeluGrad:
  case OpKind::SiluGrad:
  case OpKind::SwigluGrad:
    return true;
  default:
    return isEpiloguePointwise(op);
  }
}

inline bool isScaleOp(const Op *op) {
  return op->kind() == OpKind::Scale || op->kind() == OpKind::HistoryScale;
}

} // namespace fp8c::fusion
