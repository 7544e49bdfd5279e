// The names FusionPlan.h's enums print with (--print-fusion-plan).
#include "passes/FusionPlan.h"

namespace fp8c {

std::string_view kernelKindName(KernelKind k) {
  switch (k) {
  case KernelKind::Gemm:
    return "gemm";
  case KernelKind::Pointwise:
    return "pointwise";
  case KernelKind::Reduce:
    return "reduce";
  }
  return "?";
}

std::string_view opRoleName(OpRole r) {
  switch (r) {
  case OpRole::Prologue:
    return "prologue";
  case OpRole::Main:
    return "main";
  case OpRole::Epilogue:
    return "epilogue";
  case OpRole::Body:
    return "body";
  }
  return "?";
}

std::string_view kernelBackendName(KernelBackend b) {
  switch (b) {
  case KernelBackend::Generated:
    return "generated";
  case KernelBackend::CublasLt:
    return "cublaslt";
  }
  return "?";
}

} // namespace fp8c
