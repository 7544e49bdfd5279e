// GemmCapabilities (GemmCapabilities.h): what cuBLASLt and the generated Hopper GEMM can run.
#include "passes/GemmCapabilities.h"

namespace fp8c {
namespace {

OpRole roleOf(const PlannedKernel &k, Op *op) {
  auto it = k.roles.find(op);
  return it == k.roles.end() ? OpRole{} : it->second;
}

} // namespace

std::string GemmCapabilities::cublasLtRefusal(const PlannedKernel &k, Op *op) {
  const OpRole role = roleOf(k, op);
  if (role == OpRole::Prologue && op->kind() == OpKind::Cast)
    return "casts A to FP8 in a prologue launch";
  if (role == OpRole::Main && op->kind() == OpKind::ScaledMatmul &&
      op->operand(2)->type().rank() > 0 && k.ops.back() != op &&
      roleOf(k, k.ops.back()) == OpRole::Epilogue)
    return "cuBLASLt's row and block scale modes allow no epilogue but bias";
  // The saved copy gelu_grad reads: a prologue op (it reads a kernel input), or an epilogue one
  // in a plan written by hand.
  if ((role == OpRole::Prologue || role == OpRole::Epilogue) && op->kind() == OpKind::Convert &&
      isFloat8(op->operand(0)->type().dtype()))
    return "gelu_grad reads the GELU's saved e4m3 copy in the generated GEMM's epilogue (after "
           "cuBLASLt, a cast-transpose launch from its bf16 result)";
  if (role != OpRole::Epilogue)
    return "";
  if (op->kind() == OpKind::Gelu && op->strAttr("approximate") != "tanh")
    return "cuBLASLt's GELU epilogue is the tanh form only";
  if (op->kind() == OpKind::Amax && op->strAttr("granularity") != "tensor")
    return "cuBLASLt reduces amax per tensor only";
  if (op->kind() == OpKind::Cast && op->strAttr("granularity") != "tensor")
    return "cuBLASLt writes FP8 with a per-tensor scale only";
  if (op->kind() == OpKind::GeluGrad || op->kind() == OpKind::ColSum)
    return "gelu_grad reads the GELU's saved input in the generated GEMM's epilogue (after "
           "cuBLASLt, a cast-transpose launch from its bf16 result)";
  if (op->kind() == OpKind::Transpose)
    return "the transposed FP8 output is written by the generated GEMM's epilogue (after "
           "cuBLASLt, by a transpose launch)";
  if (op->kind() == OpKind::Silu || op->kind() == OpKind::Swiglu || op->kind() == OpKind::Add ||
      op->kind() == OpKind::Mul || op->kind() == OpKind::Convert || op->kind() == OpKind::Scale)
    return "cuBLASLt has no " + std::string(op->name()) + " epilogue";
  return "";
}

bool GemmCapabilities::generatedOnly(const PlannedKernel &k, Op *op) {
  return roleOf(k, op) == OpRole::Epilogue && op->kind() == OpKind::Convert &&
         isFloat8(op->result()->type().dtype());
}

std::string GemmCapabilities::generatedOperands(DType a, DType b) {
  if (!isFloat8(a) || !isFloat8(b))
    return std::string("its operands are ") + std::string(dtypeName(a)) + " x " +
           std::string(dtypeName(b)) +
           "; it takes FP8 operands only (use --backend=cublaslt or auto)";
  if (a == DType::F8E5M2 && b == DType::F8E5M2)
    return "e5m2 x e5m2 operands are not supported; quantize one side to e4m3";
  return "";
}

std::string GemmCapabilities::generatedLayout(bool aKMajor, bool bKMajor) {
  if (!aKMajor || !bKMajor)
    return "an operand is not K-major (it takes A as [M, K] and B as [N, K])";
  return "";
}

std::string GemmCapabilities::generatedExtraOutputs(DType d, std::optional<DType> aux,
                                                    bool transD) {
  if (!aux && !transD)
    return "";
  const bool bf16D = d == DType::BF16;
  if (!isFloat8(d) && !(bf16D && !transD))
    return "it writes the GELU input or D transposed beside a " + std::string(dtypeName(d)) +
           " D; the generated GEMM does so for an FP8 D (beside a bf16 D, the GELU input alone)";
  const DType auxType = aux.value_or(DType::BF16);
  if (auxType != DType::BF16 && auxType != DType::F8E4M3FN)
    return "its GELU input is " + std::string(dtypeName(auxType)) +
           "; the generated GEMM writes it in bf16 or as its e4m3 copy";
  if (bf16D && auxType != DType::BF16)
    return "it writes the GELU input's e4m3 copy beside a " + std::string(dtypeName(d)) +
           " D; the generated GEMM writes that copy beside an FP8 D only";
  return "";
}

std::string GemmCapabilities::generatedEpilogueInput(bool residual, DType in) {
  // gelu_grad also reads the GELU input's e4m3 copy (gelu_saved=e4m3), on the offloaded
  // epilogue's warps.
  if (in == DType::BF16 || (!residual && in == DType::F8E4M3FN))
    return "";
  return std::string(residual ? "the residual" : "the GELU's saved input") + " is " +
         std::string(dtypeName(in)) + "; the generated GEMM's epilogue reads it in " +
         (residual ? "bf16" : "bf16 or as the e4m3 copy");
}

std::string GemmCapabilities::generatedGeluGradOrColSums(DType d) {
  if (isFloat8(d))
    return "";
  return "it takes gelu_grad or column sums in its epilogue beside a " +
         std::string(dtypeName(d)) + " D; the generated GEMM does so for an FP8 D";
}

std::string GemmCapabilities::generatedBlockCast(DType d) {
  if (isFloat8(d))
    return "";
  return "its 1x128-block cast writes a " + std::string(dtypeName(d)) +
         " D; the block cast writes FP8";
}

} // namespace fp8c
