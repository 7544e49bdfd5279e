// Step 2 of the fusion planner (FusionPlanner.cpp): growing a GEMM kernel's epilogue from its
// result: amax observers, FP8 casts whose scale is known when the tile is written, the tanh GELU
// written beside a saved pre-activation (GELU_AUX), and the chain of single pointwise users.
#include "passes/FusionPlannerImpl.h"

#include "ir/TypeRules.h"

#include <algorithm>

namespace fp8c::fusion {

bool Planner::tryEpilogueCast(size_t k, Op *cast, Value *tail) {
  Value *s = cast->operand(1);
  Granularity gran = parseGranularity(cast->strAttr("granularity")).value_or(Granularity::Tensor);
  Op *sdef = s->definingOp();
  if (!dependsOn(s, k)) {
    if (wouldCycle(cast, k)) {
      reject(cast, k, "epilogue", "another op the kernel needs is computed from it");
      return false;
    }
    add(k, cast, OpRole::Epilogue);
    // Known before the kernel starts (e.g. history_scale): computed at its start, unless
    // something the kernel needs is computed from it too (then it runs before the kernel).
    if (topLevel(sdef) && !planned(sdef) && isScaleOp(sdef))
      addIfAcyclic(k, sdef, OpRole::Prologue);
    return true;
  }
  Op *amax = sdef && sdef->kind() == OpKind::Scale ? sdef->operand(0)->definingOp() : nullptr;
  if (gran == Granularity::Block1x128 && amax && inKernel(amax, k) && amax->operand(0) == tail &&
      amax->strAttr("granularity") == "block_1x128" && topLevel(sdef) && !planned(sdef) &&
      addIfAcyclic(k, sdef, OpRole::Epilogue)) {
    if (addIfAcyclic(k, cast, OpRole::Epilogue))
      return true;
    reject(cast, k, "epilogue", "another op the kernel needs is computed from it");
    return false;
  }
  std::string why;
  if (gran == Granularity::Tensor)
    why = "its scale needs the whole-tensor amax of " + nameOf(tail) +
          ", known only after the kernel finishes";
  else if (gran == Granularity::Row)
    why = "its scale needs the amax of whole rows of " + nameOf(tail) +
          ", which span several output tiles";
  else
    why = "its scale depends on the kernel's own output through ops outside it";
  reject(cast, k, "epilogue", why);
  return false;
}

// The GEMM result `tail` is returned (a pre-activation the training step saves) and a tanh
// GELU of it is its one other user: cuBLASLt writes the GELU input as an aux matrix beside
// its output (GELU_AUX), so for an unquantized GEMM the GELU joins the epilogue (no launch
// reads the result back to write the bf16 GELU). codegen lowers it so (analyzeGemm).
Op *Planner::auxGelu(size_t k, Value *tail, const std::vector<Op *> &others, bool *refused) {
  if (others.size() != 2)
    return nullptr;
  Op *ret = others[0]->info().has(kTerminator) ? others[0] : others[1];
  Op *gelu = ret == others[0] ? others[1] : others[0];
  if (!ret->info().has(kTerminator) || !topLevel(gelu) || planned(gelu) ||
      gelu->kind() != OpKind::Gelu || gelu->strAttr("approximate") != "tanh")
    return nullptr;
  Op *main = tail->definingOp();
  if (!main || !inKernel(main, k) || plan_.kernels[k].roles[main] != OpRole::Main)
    return nullptr;
  if (main->kind() == OpKind::ScaledMatmul) {
    // Measured on an H200 (bench/NOTES.md, eighth session), the delayed MLP's first GEMM:
    // with GELU_AUX and the FP8 cast in its epilogue 919.5 us, plus 136.8 us for the FP8
    // transpose of its output, against 790.3 + 249.9 us for the plain GEMM and the GELU
    // cast-transpose reading h back. The FP8 path therefore keeps the cast-transpose.
    reject(gelu, k, "epilogue",
           nameOf(tail) +
               " is also an output: an FP8 GEMM writing it as GELU_AUX beside the "
               "FP8 GELU, plus the transpose of that, was measured slower than the "
               "GELU cast-transpose reading " +
               nameOf(tail) + " back");
    *refused = true;
    return nullptr;
  }
  return gelu;
}

void Planner::growEpilogue(size_t k) {
  Value *tail = tails_[k];
  while (true) {
    for (Op *u : tail->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::Amax)
        addIfAcyclic(k, u, OpRole::Epilogue);
    for (Op *u : tail->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::Cast && u->operand(0) == tail)
        tryEpilogueCast(k, u, tail);
    std::vector<Op *> others;
    for (Op *u : tail->users())
      if (!inKernel(u, k) && std::find(others.begin(), others.end(), u) == others.end())
        others.push_back(u);
    bool refused = false;
    if (Op *gelu = auxGelu(k, tail, others, &refused)) {
      if (!addIfAcyclic(k, gelu, OpRole::Epilogue))
        return;
      tail = gelu->result();
      continue;
    }
    if (refused)
      return;
    if (others.size() != 1) {
      for (Op *u : others)
        if (topLevel(u) && !planned(u) && isEpiloguePointwise(u))
          reject(u, k, "epilogue",
                 nameOf(tail) + " has " + std::to_string(others.size()) +
                     " users outside the kernel, so it is written out and " +
                     std::string(u->name()) + " reads it back");
      return;
    }
    Op *u = others[0];
    if (!topLevel(u) || planned(u) || !isEpiloguePointwise(u))
      return;
    if (u->kind() == OpKind::Convert && isFloat8(u->result()->type().dtype())) {
      reject(u, k, "epilogue",
             "a GEMM epilogue stores f32, f16 or bf16, and FP8 only through a scaled fp8.cast; "
             "an unscaled convert to " +
                 std::string(dtypeName(u->result()->type().dtype())) +
                 " is left to a pointwise kernel");
      return;
    }
    if (!otherOperandsIndependent(u, tail, k)) {
      reject(u, k, "epilogue", "another operand of it is computed from this kernel's output");
      return;
    }
    if (!addIfAcyclic(k, u, OpRole::Epilogue)) {
      reject(u, k, "epilogue", "another op the kernel needs is computed from it");
      return;
    }
    tail = u->result();
  }
}

} // namespace fp8c::fusion
