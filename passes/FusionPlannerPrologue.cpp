// Step 3 of the fusion planner (FusionPlanner.cpp): growing a GEMM kernel's prologue: the
// transposes an unquantized GEMM reads in place, the FP8 cast of A with its scale when that is
// tensor or row granular and known before the kernel starts, and the amax of A taken while
// loading it.
#include "passes/FusionPlannerImpl.h"

#include <set>

namespace fp8c::fusion {
namespace {

// True when `v` is computed (transitively) from `target`.
bool dependsOnOp(const Value *v, const Op *target) {
  std::set<const Op *> seen;
  std::vector<const Value *> work = {v};
  while (!work.empty()) {
    const Op *def = work.back()->definingOp();
    work.pop_back();
    if (!def || !seen.insert(def).second)
      continue;
    if (def == target)
      return true;
    for (Value *o : def->operands())
      work.push_back(o);
  }
  return false;
}

// The amax of the cast's input that its scale is computed from (current scaling: fp8.scale of
// fp8.amax of the same tensor), or null (a delayed scale from a history, a scale given as an
// input).
const Op *currentAmaxOf(const Op *cast) {
  const Op *scale = cast->operand(1)->definingOp();
  if (!scale || scale->kind() != OpKind::Scale)
    return nullptr;
  const Op *amax = scale->operand(0)->definingOp();
  if (!amax || amax->kind() != OpKind::Amax || amax->operand(0) != cast->operand(0))
    return nullptr;
  return amax;
}

} // namespace

// An unquantized GEMM (bf16 / f16 operands, run by cuBLASLt) reads an operand that is a
// transpose in place, in the other layout (cuBLASLt's TRANSA / TRANSB): the transpose joins
// the kernel and no transposed copy is written. FP8 operands must be K-major (Hopper's FP8
// GEMMs are TN only): those transposes stay cast-transposes.
void Planner::absorbOperandTransposes(size_t k) {
  for (Op *main : std::vector<Op *>(plan_.kernels[k].ops)) {
    if (plan_.kernels[k].roles[main] != OpRole::Main ||
        (main->kind() != OpKind::Linear && main->kind() != OpKind::Matmul))
      continue;
    for (int i = 0; i < 2; ++i) {
      Value *v = main->operand(i);
      Op *t = v->definingOp();
      if (!topLevel(t) || planned(t) || t->kind() != OpKind::Transpose)
        continue;
      if (v->numUses() != 1 || (i == 1 && main->operand(0) == v)) {
        reject(t, k, "prologue",
               nameOf(v) + " has other users: it is written once for all of them");
        continue;
      }
      const TensorType &src = t->operand(0)->type();
      if (src.rank() != 2 || src.isDynamicDim(1)) {
        reject(t, k, "prologue",
               "a transposed operand is read in place only with a static row length (" +
                   nameOf(t->operand(0)) + " is " + src.str() + ")");
        continue;
      }
      addIfAcyclic(k, t, OpRole::Prologue);
    }
  }
}

void Planner::growPrologue(size_t k) {
  absorbOperandTransposes(k);
  std::vector<Op *> mains;
  for (Op *op : plan_.kernels[k].ops)
    if (plan_.kernels[k].roles[op] == OpRole::Main && op->kind() == OpKind::ScaledMatmul)
      mains.push_back(op);
  if (mains.empty())
    return;
  Value *a8 = mains[0]->operand(0);
  Op *cast = a8->definingOp();
  if (!topLevel(cast) || planned(cast) || cast->kind() != OpKind::Cast)
    return;
  std::string gran = cast->strAttr("granularity");
  if (gran != "tensor" && gran != "row") {
    reject(cast, k, "prologue",
           "a " + gran + " cast is not done in a GEMM prologue (tensor and row scales only)");
    return;
  }
  for (Op *u : a8->users())
    if (!inKernel(u, k)) {
      reject(cast, k, "prologue", nameOf(a8) + " is also used outside the kernel");
      return;
    }
  if (const Op *t = cast->operand(0)->definingOp(); t && t->kind() == OpKind::Transpose) {
    reject(cast, k, "prologue",
           "the cast of a transpose is done by its cast-transpose kernel (one read of " +
               nameOf(t->operand(0)) + ", no unquantized transpose written)");
    return;
  }
  // Current scaling: the scale comes from an amax of A itself, which must be complete before
  // any element is cast. Neither GEMM backend casts bf16 A inside the GEMM in a plan (the
  // bf16-A prologue measured slower than a separate cast, docs/gemm.md), so a
  // prologue here would be a launch of its own after the amax's: a second read of A. Left to
  // a reduce kernel, amax, scale and cast are one launch (one pass per row for row scales, a
  // cooperative two-phase launch for a tensor scale).
  if (const Op *amax = currentAmaxOf(cast); amax && topLevel(amax) && !planned(amax)) {
    reject(cast, k, "prologue",
           "its scale needs " + nameOf(amax->result()) + ", the amax of " +
               nameOf(cast->operand(0)) +
               ", first: the amax, scale and cast are one launch of their own");
    return;
  }
  if (dependsOn(cast->operand(0), k) || dependsOn(cast->operand(1), k) ||
      !addIfAcyclic(k, cast, OpRole::Prologue))
    return;
  Op *sdef = cast->operand(1)->definingOp();
  if (topLevel(sdef) && !planned(sdef) && isScaleOp(sdef) && allUsersIn(sdef->result(), k))
    addIfAcyclic(k, sdef, OpRole::Prologue);
  // The amax of A, taken while loading it, where the kernel does not need it itself.
  for (Op *u : cast->operand(0)->users()) {
    if (!topLevel(u) || planned(u) || u->kind() != OpKind::Amax)
      continue;
    bool feedsKernel = false;
    for (Op *op : plan_.kernels[k].ops)
      for (Value *o : op->operands())
        feedsKernel |= dependsOnOp(o, u);
    if (!feedsKernel)
      addIfAcyclic(k, u, OpRole::Prologue);
  }
}

} // namespace fp8c::fusion
