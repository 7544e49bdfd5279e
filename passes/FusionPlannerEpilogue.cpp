// Step 2 of the fusion planner (FusionPlanner.cpp): growing a GEMM kernel's epilogue from its
// result: amax observers, FP8 casts whose scale is known when the tile is written (and the
// transpose of such a cast, for the generated GEMM), the tanh GELU written beside a saved
// pre-activation (GELU_AUX), the backward's gelu_grad reading that saved input (generated GEMM),
// and the chain of single pointwise users.
#include "passes/FusionPlannerImpl.h"

#include "ir/TypeRules.h"

#include <algorithm>
#include <functional>

namespace fp8c::fusion {

bool Planner::tryEpilogueCast(size_t k, Op *cast, Value *tail) {
  Value *s = cast->operand(1);
  Granularity gran = parseGranularity(cast->strAttr("granularity")).value_or(Granularity::Tensor);
  Op *sdef = s->definingOp();
  if (std::string why = groupConflict(k, cast); !why.empty()) {
    reject(cast, k, "epilogue", why);
    return false;
  }
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

namespace {

// A tensor-scale FP8 cast of `v` (a GELU of the GEMM result) whose scale the kernel does not
// compute (delayed scaling's history scale): the cast the epilogue can write.
bool castKnownBefore(const Value *v, const std::function<bool(const Value *)> &fromKernel) {
  for (Op *u : v->users())
    if (u->kind() == OpKind::Cast && u->operand(0) == v &&
        u->strAttr("granularity") == "tensor" && !fromKernel(u->operand(1)))
      return true;
  return false;
}

// The tensor amax of `v`, if one of its users is: with current scaling, the GELU's FP8 cast
// takes its scale from it.
bool tensorAmaxOf(const Value *v) {
  for (const Op *u : v->users())
    if (u->kind() == OpKind::Amax && u->operand(0) == v && u->strAttr("granularity") == "tensor")
      return true;
  return false;
}

} // namespace

// The transpose of an FP8 cast the epilogue writes (the weight-gradient GEMM's operand, as
// Hopper's FP8 GEMMs read K-major only) joins the epilogue as a third output of the generated
// GEMM (D^T staged in shared memory and stored by TMA): no launch reads the FP8 D back.
void Planner::epilogueTranspose(size_t k, Op *cast) {
  if (cast->strAttr("granularity") != "tensor")
    return;
  for (Op *u : cast->result()->users()) {
    if (!topLevel(u) || planned(u) || u->kind() != OpKind::Transpose)
      continue;
    if (!generatedGemm_)
      reject(u, k, "epilogue",
             "cuBLASLt writes no transposed output (--backend=cublaslt): a cast-transpose "
             "launch reads " + nameOf(cast->result()) + " back");
    else if (const int64_t n = cast->result()->type().dim(cast->result()->type().rank() - 1);
             n % 16 != 0)
      reject(u, k, "epilogue",
             "the generated GEMM writes D transposed in whole 16-byte units of N; " +
                 nameOf(cast->result()) + " has " + std::to_string(n) + " columns");
    else if (!addIfAcyclic(k, u, OpRole::Epilogue))
      reject(u, k, "epilogue", "another op the kernel needs is computed from it");
  }
}

// The GEMM result `tail` is returned (a pre-activation the training step saves) and a tanh
// GELU of it is its one other user: cuBLASLt writes the GELU input as an aux matrix beside
// its output (GELU_AUX), so for an unquantized GEMM the GELU joins the epilogue (no launch
// reads the result back to write the bf16 GELU). codegen lowers it so (analyzeGemm).
// With current scaling (the GELU's FP8 cast takes its scale from the GELU's tensor amax) the
// generated GEMM writes the bf16 GELU beside the pre-activation and takes its amax, so the
// cast-transpose that follows reads the GELU once, knowing its scale, instead of reading the
// pre-activation twice (amax, then cast) in a cooperative launch.
// With gelu_saved=e4m3 the saved tensor is an unscaled e4m3 convert of `tail` instead of
// `tail` itself (*auxCopy): only the generated GEMM writes that (an FP8 aux matrix).
Op *Planner::auxGelu(size_t k, Value *tail, const std::vector<Op *> &others, Op **auxCopy,
                     bool *refused) {
  *auxCopy = nullptr;
  if (others.size() != 2)
    return nullptr;
  auto isE4m3Copy = [&](const Op *op) {
    return op->kind() == OpKind::Convert && op->operand(0) == tail &&
           op->result()->type().dtype() == DType::F8E4M3FN;
  };
  Op *ret = others[0]->info().has(kTerminator) || isE4m3Copy(others[0]) ? others[0] : others[1];
  Op *gelu = ret == others[0] ? others[1] : others[0];
  const bool fp8Copy = isE4m3Copy(ret);
  if (!(ret->info().has(kTerminator) || (fp8Copy && topLevel(ret) && !planned(ret))) ||
      !topLevel(gelu) || planned(gelu) || gelu->kind() != OpKind::Gelu ||
      gelu->strAttr("approximate") != "tanh")
    return nullptr;
  Op *main = tail->definingOp();
  if (!main || !inKernel(main, k) || plan_.kernels[k].roles[main] != OpRole::Main)
    return nullptr;
  if (fp8Copy && main->kind() != OpKind::ScaledMatmul)
    return nullptr; // an unquantized GEMM's GELU_AUX is bf16: the copy is a launch's
  if (main->kind() == OpKind::ScaledMatmul) {
    // The generated GEMM writes the pre-activation, the FP8 GELU and its transpose from one
    // epilogue (gemm_sm90_store_aux.cuh). cuBLASLt alone was measured slower so (H200, the
    // delayed MLP training step's first GEMM: GELU_AUX with the FP8 cast 919.5 us plus 136.8 us
    // for the transpose, against 790.3 + 249.9 us for the plain GEMM and the GELU
    // cast-transpose reading the pre-activation back).
    std::string why;
    auto fromKernel = [&](const Value *v) { return dependsOn(v, k); };
    if (!generatedGemm_ && fp8Copy)
      why = "only the generated GEMM writes the e4m3 copy " + nameOf(ret->result()) +
            " of the GELU's input as an aux matrix (cuBLASLt forced, or not sm_90a): " +
            nameOf(tail) + " is written out, and the GELU cast-transpose reads it back and "
            "writes the copy";
    else if (!generatedGemm_)
      why = nameOf(tail) +
            " is also an output: cuBLASLt writing it as GELU_AUX beside the FP8 GELU, plus the "
            "transpose of that, was measured slower than the GELU cast-transpose reading " +
            nameOf(tail) + " back (--backend=cublaslt)";
    else if (main->operand(2)->type().rank() != 0)
      why = "the GEMM has row or block scales; the pre-activation output takes tensor scales";
    else if (!castKnownBefore(gelu->result(), fromKernel) &&
             (fp8Copy || !tensorAmaxOf(gelu->result())))
      why = fp8Copy ? "its FP8 cast needs a scale computed after the kernel (current scaling), "
                      "and the generated GEMM writes the e4m3 copy " +
                          nameOf(ret->result()) +
                          " beside an FP8 GELU only: the GELU cast-transpose reads " +
                          nameOf(tail) + " back"
                    : "its FP8 cast needs a scale computed after the kernel (current scaling), "
                      "so the GELU cast-transpose reads " +
                          nameOf(tail) + " back";
    else if (tail->type().dim(tail->type().rank() - 1) % 16 != 0)
      why = "the generated GEMM writes the pre-activation in whole 16-byte units of N";
    if (!why.empty()) {
      reject(gelu, k, "epilogue", why);
      if (fp8Copy)
        reject(ret, k, "epilogue", why);
      *refused = true;
      return nullptr;
    }
  }
  if (fp8Copy)
    *auxCopy = ret;
  return gelu;
}

// The backward's tanh gelu_grad of the GEMM result `tail` (an MLP's second-layer dgrad GEMM),
// dh = gelu_grad(dy, h) with h the GELU's saved input: the generated GEMM reads h in its
// epilogue and writes dh's FP8 cast, amax, column sums (the bias gradient) and transpose
// (gemm_sm90_store_aux.cuh), so neither dy nor dh is written in bf16 and no launch reads them
// back. Only when nothing else needs dh in bf16 and its cast's scale is known before the kernel
// (delayed scaling); codegen lowers it so (analyzeGemm), with the GEMM on cuBLASLt plus the
// cast-transpose launch as auto's other choice, which the runtime measures against it. With
// gelu_saved=e4m3, h is the convert of the saved e4m3 copy: that convert joins the kernel too
// (`*savedConvert`) as a prologue op (it reads a kernel input, not the GEMM's result), and the
// epilogue reads the copy (its derivative from tables).
Op *Planner::gradEpilogue(size_t k, Value *tail, const std::vector<Op *> &others, bool *refused,
                          Op **savedConvert) {
  if (others.size() != 1)
    return nullptr;
  Op *gg = others[0];
  if (!topLevel(gg) || planned(gg) || gg->kind() != OpKind::GeluGrad ||
      gg->strAttr("approximate") != "tanh" || gg->operand(0) != tail || gg->operand(1) == tail)
    return nullptr;
  Op *main = tail->definingOp();
  if (!main || !inKernel(main, k) || plan_.kernels[k].roles[main] != OpRole::Main ||
      main->kind() != OpKind::ScaledMatmul)
    return nullptr;
  auto fromKernel = [&](const Value *v) { return dependsOn(v, k); };
  const Value *dh = gg->result(), *h = gg->operand(1);
  std::string why;
  std::string otherUser;
  for (const Op *u : dh->users()) {
    if (u->kind() == OpKind::ColSum)
      continue;
    const bool tensorGran = (u->kind() == OpKind::Amax || u->kind() == OpKind::Cast) &&
                            u->strAttr("granularity") == "tensor";
    if (!((u->kind() == OpKind::Amax && tensorGran) ||
          (u->kind() == OpKind::Cast && tensorGran && u->operand(0) == dh)))
      otherUser = u->info().has(kTerminator) ? "the return" : std::string(u->name());
  }
  if (!gradEpilogue_)
    why = "the fuse pass's grad-epilogue=off (side launches: its cast-transpose runs beside the "
          "next GEMM)";
  else if (!generatedGemm_)
    why = "only the generated GEMM reads the GELU's saved input " + nameOf(h) +
          " in its epilogue (cuBLASLt forced, or not sm_90a): a launch reads " + nameOf(tail) +
          " back";
  else if (main->operand(2)->type().rank() != 0)
    why = "the GEMM has row or block scales; the gelu_grad epilogue takes tensor scales";
  else if (!castKnownBefore(dh, fromKernel))
    why = "its FP8 cast needs a scale computed after the kernel (current scaling), so a launch "
          "reads " + nameOf(tail) + " back";
  else if (!otherUser.empty())
    why = nameOf(dh) + " is also used by " + otherUser + ", which needs it in bf16";
  else if (tail->type().rank() != 2 || tail->type().dim(1) % 16 != 0)
    why = "the generated GEMM writes the gelu_grad epilogue's outputs in whole 16-byte units of N";
  else if (h->type().dtype() != DType::BF16)
    why = "the epilogue reads the GELU's saved input in bf16; " + nameOf(h) + " is " +
          std::string(dtypeName(h->type().dtype()));
  else if (Op *w = h->definingOp();
           w && w->kind() == OpKind::Convert && isFloat8(w->operand(0)->type().dtype())) {
    // The saved FP8 copy (gelu_saved=e4m3): its convert joins the kernel, read by the epilogue.
    const Value *copy = w->operand(0);
    if (copy->type().dtype() != DType::F8E4M3FN)
      why = "the epilogue reads the GELU's saved input in bf16 or as an e4m3 copy; " +
            nameOf(copy) + " is " + std::string(dtypeName(copy->type().dtype()));
    else if (!topLevel(w) || planned(w) || h->numUses() != 1)
      why = "the convert " + nameOf(h) + " of the saved copy " + nameOf(copy) +
            " has other users or is in another kernel";
    else if (dependsOn(copy, k))
      why = "the GELU's saved input is computed from this kernel's output";
    else
      *savedConvert = w;
  }
  if (why.empty() && !otherOperandsIndependent(gg, tail, k))
    why = "the GELU's saved input is computed from this kernel's output";
  if (!why.empty()) {
    reject(gg, k, "epilogue", why);
    *refused = true;
    return nullptr;
  }
  return gg;
}

void Planner::growEpilogue(size_t k) {
  Value *tail = tails_[k];
  while (true) {
    for (Op *u : tail->users()) {
      if (!topLevel(u) || planned(u) || u->kind() != OpKind::Amax)
        continue;
      if (std::string why = groupConflict(k, u); !why.empty())
        reject(u, k, "epilogue", why);
      else if (!wouldCycle(u, k))
        add(k, u, OpRole::Epilogue);
    }
    for (Op *u : tail->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::Cast && u->operand(0) == tail &&
          tryEpilogueCast(k, u, tail))
        epilogueTranspose(k, u);
    std::vector<Op *> others;
    for (Op *u : tail->users())
      if (!inKernel(u, k) && std::find(others.begin(), others.end(), u) == others.end())
        others.push_back(u);
    bool refused = false;
    Op *auxCopy = nullptr;
    if (Op *gelu = auxGelu(k, tail, others, &auxCopy, &refused)) {
      if (auxCopy && !addIfAcyclic(k, auxCopy, OpRole::Epilogue))
        return;
      if (!addIfAcyclic(k, gelu, OpRole::Epilogue))
        return;
      tail = gelu->result();
      continue;
    }
    if (refused)
      return;
    Op *savedConvert = nullptr;
    if (Op *gg = gradEpilogue(k, tail, others, &refused, &savedConvert)) {
      if (savedConvert && !addIfAcyclic(k, savedConvert, OpRole::Prologue))
        return;
      if (!addIfAcyclic(k, gg, OpRole::Epilogue))
        return;
      tail = gg->result();
      // Its column sums (the bias gradient) join too; its amax, cast and transpose next turn.
      for (Op *u : tail->users())
        if (topLevel(u) && !planned(u) && u->kind() == OpKind::ColSum &&
            !addIfAcyclic(k, u, OpRole::Epilogue))
          reject(u, k, "epilogue", "another op the kernel needs is computed from it");
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
