// The backward's tanh gelu_grad of a GEMM result in the generated GEMM's epilogue (an MLP's
// second-layer dgrad GEMM), dh = gelu_grad(dy, h) with the GELU's saved input h: the generated
// GEMM reads h and writes the FP8 cast of dh (with a scale known before the GEMM), its amax, its
// column sums (the bias gradient) and its transpose, so the bf16 dy and dh are never written
// (FusionPlanner's gradEpilogue). h is a bf16 input, or (gelu_saved=e4m3) the kernel's convert of
// the saved e4m3 copy, which the epilogue then reads itself (gemm_sm90_offload.cuh's tables).
#include "codegen/LowerInternal.h"

#include <algorithm>

namespace fp8c::codegen {

const Value *analyzeGeluGradEpilogue(const Op &kernel, const std::set<const Op *> &mains,
                                     const Value *tail, GemmAnalysis &a,
                                     std::set<const Op *> &fused) {
  Op *gg = tail->users().front();
  // Only a two-operand tanh gelu_grad of the tail qualifies; check the kind before reading
  // operand 1 (silu, convert or an exact GELU have one operand).
  if (gg->kind() != OpKind::GeluGrad || gg->numOperands() != 2)
    return tail;
  Op *savedConvert = nullptr; // h = convert(the e4m3 copy), in the kernel
  if (Op *w = gg->operand(1)->definingOp(); w && w->kind() == OpKind::Convert &&
                                            w->parentOp() == &kernel &&
                                            w->operand(0)->type().dtype() == DType::F8E4M3FN &&
                                            w->result()->numUses() == 1 && !isYielded(w->result()))
    savedConvert = w;
  if (gg->kind() != OpKind::GeluGrad || gg->strAttr("approximate") != "tanh" ||
      gg->operand(0) != tail || gg->operand(1) == tail ||
      gg->operand(1)->type().dtype() != DType::BF16 || dependsOnAny(gg->operand(1), mains) ||
      (!savedConvert && gg->operand(1)->definingOp() &&
       gg->operand(1)->definingOp()->parentOp() == &kernel) ||
      gg->parentOp() != &kernel || isYielded(gg->result()))
    return tail;
  Op *castD = nullptr, *amaxD = nullptr, *colSum = nullptr;
  for (Op *u : gg->result()->users()) {
    if (u->kind() == OpKind::Amax && u->strAttr("granularity") == "tensor" && !amaxD)
      amaxD = u;
    else if (u->kind() == OpKind::Cast && u->operand(0) == gg->result() && !castD &&
             u->strAttr("granularity") == "tensor" && !dependsOnAny(u->operand(1), mains))
      castD = u;
    else if (u->kind() == OpKind::ColSum && !colSum)
      colSum = u;
    else
      return tail; // another user needs dh in bf16
  }
  if (!castD)
    return tail;
  a.geluGrad = gg;
  a.epiIn = savedConvert ? savedConvert->operand(0) : gg->operand(1);
  a.epiResult = tail;
  a.epiFirst = savedConvert ? savedConvert : gg;
  a.castD = castD;
  a.amaxD = amaxD;
  a.colSum = colSum;
  if (savedConvert) { // read by the epilogue (or the fallback launch), not a prologue
    a.pre.erase(std::remove(a.pre.begin(), a.pre.end(), savedConvert), a.pre.end());
    fused.insert(savedConvert);
    a.fused.push_back(savedConvert);
  }
  for (Op *f : {gg, amaxD, castD, colSum})
    if (f) {
      fused.insert(f);
      a.fused.push_back(f);
    }
  tail = castD->result();
  for (Op *u : tail->users())
    if (u->kind() == OpKind::Transpose && !a.transD && u->parentOp() == &kernel) {
      a.transD = u;
      fused.insert(u);
      a.fused.push_back(u);
    }
  return tail;
}

} // namespace fp8c::codegen
