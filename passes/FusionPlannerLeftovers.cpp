// Step 4 of the fusion planner (FusionPlanner.cpp): the ops no GEMM kernel took. Scale ops start
// their first consumer; amax + scale + cast of one tensor form one reduce kernel (with the
// cast-transpose, dbias and dact of training); pointwise chains are one kernel each; history
// updates share one trailing kernel.
#include "ir/TypeRules.h"
#include "passes/FusionPlannerImpl.h"

#include <optional>

namespace fp8c::fusion {

void Planner::planLeftovers() {
  std::vector<Op *> ops;
  for (const auto &op : g_.body().ops())
    if (topLevel(op.get()))
      ops.push_back(op.get());
  // Scale ops whose users are all planned start their first consumer.
  for (Op *op : ops)
    placeScaleOp(op);
  // Amax kernels first: one takes the transpose that feeds only it, which comes earlier in
  // block order than the amax and would otherwise become a kernel of its own.
  for (Op *op : ops)
    if (!planned(op) && op->kind() == OpKind::Amax)
      planAmaxKernel(op);
  std::optional<size_t> stateKernel;
  for (Op *op : ops) {
    if (planned(op) || isScaleOp(op))
      continue;
    if (op->kind() == OpKind::HistoryPush) {
      // One trailing kernel for the history updates (a new one where joining would cycle,
      // e.g. when a later op reads an updated history).
      if (!stateKernel || wouldCycle(op, *stateKernel))
        stateKernel = newKernel(KernelKind::Reduce);
      add(*stateKernel, op, OpRole::Body);
    } else if (isPointwise(op)) {
      planPointwiseChain(op);
    } else {
      size_t k = newKernel(KernelKind::Pointwise);
      add(k, op, OpRole::Body);
      takeCastTransposes(k);
    }
  }
  // The remaining scale ops start their first consumer now that it is planned (a cast that
  // is no GEMM's prologue: scale + cast is one single-pass kernel), else run on their own.
  for (Op *op : ops) {
    if (planned(op) || !isScaleOp(op) || placeScaleOp(op))
      continue;
    size_t k = newKernel(KernelKind::Reduce);
    add(k, op, OpRole::Body);
  }
}

// Puts an unplanned scale op at the start of its first consumer kernel (by block order) when
// all its users are planned and that makes no cycle. True when it did.
bool Planner::placeScaleOp(Op *op) {
  if (planned(op) || !isScaleOp(op))
    return false;
  std::optional<size_t> first;
  for (Op *u : op->result()->users()) {
    if (savedTensorScale(op, u))
      continue;
    if (!planned(u))
      return false;
    size_t k = plan_.kernelOf[u];
    if (!first || order_[plan_.kernels[k].ops.front()] < order_[plan_.kernels[*first].ops.front()])
      first = k;
  }
  return first && !dependsOn(op->operand(0), *first) && addIfAcyclic(*first, op, OpRole::Prologue);
}

// True when `user` is the graph's return and `scale` a tensor scale: a training step's forward
// saves it for the backward. The scale counts as planned there: the kernel computing it in its
// scalars writes it out from its leader block (per-row and per-block scales keep their own
// kernels).
bool Planner::savedTensorScale(const Op *scale, const Op *user) {
  return user->info().has(kTerminator) && scale->result()->type().rank() == 0;
}

// amax + scale + cast of one tensor as one kernel (the cast also when its scale comes from
// elsewhere, e.g. an amax history), with a transpose feeding only it.
void Planner::planAmaxKernel(Op *amax) {
  size_t k = newKernel(KernelKind::Reduce);
  Value *x = amax->operand(0);
  add(k, amax, OpRole::Body);
  for (Op *s : amax->result()->users()) {
    if (!topLevel(s) || planned(s) || s->kind() != OpKind::Scale ||
        !addIfAcyclic(k, s, OpRole::Body))
      continue;
    for (Op *c : s->result()->users())
      if (topLevel(c) && !planned(c) && c->kind() == OpKind::Cast && c->operand(0) == x)
        addIfAcyclic(k, c, OpRole::Body);
  }
  for (Op *c : x->users()) {
    if (!topLevel(c) || planned(c) || c->kind() != OpKind::Cast || c->operand(0) != x ||
        dependsOn(c->operand(1), k))
      continue;
    Op *sdef = c->operand(1)->definingOp();
    if (!addIfAcyclic(k, c, OpRole::Body))
      continue;
    if (topLevel(sdef) && !planned(sdef) && isScaleOp(sdef)) {
      bool othersPlanned = true;
      for (Op *u : sdef->result()->users())
        othersPlanned &= planned(u) || savedTensorScale(sdef, u);
      if (othersPlanned)
        addIfAcyclic(k, sdef, OpRole::Body);
    }
  }
  mergeTransposedPair(k, amax);
  // Training: the transposed FP8 copy that wgrad / dgrad read is written by the same kernel
  // (cast-transpose-amax), and the bias gradient col_sum(dY) is reduced while dY is read.
  std::vector<Op *> members = plan_.kernels[k].ops;
  for (Op *c : members)
    if (c->kind() == OpKind::Cast)
      for (Op *u : c->result()->users())
        if (topLevel(u) && !planned(u) && u->kind() == OpKind::Transpose)
          addIfAcyclic(k, u, OpRole::Body);
  // (Where x is also transposed into an amax of its own, the col_sum waits for that
  // kernel: its cast-transpose sums the columns while it reads x.)
  auto castTransposedLater = [&](const Value *v) {
    for (Op *u : v->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::Transpose)
        for (Op *a : u->result()->users())
          if (topLevel(a) && !planned(a) && a->kind() == OpKind::Amax)
            return true;
    return false;
  };
  if (!castTransposedLater(x))
    for (Op *u : x->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::ColSum)
        addIfAcyclic(k, u, OpRole::Body);
  // The producer of x when the kernel takes all its uses: a transpose, a pointwise op (an
  // activation no GEMM epilogue took, e.g. because training saves its input) or (training)
  // the activation derivative that makes dY of the layer below; the kernel computes it
  // while reading its operands, and x is never written.
  Op *t = x->definingOp();
  if (!topLevel(t) || planned(t) || !allUsersIn(x, k) ||
      !(t->kind() == OpKind::Transpose || isActivationGrad(t) || isPointwise(t)) ||
      !addIfAcyclic(k, t, OpRole::Body))
    return;
  if (t->kind() == OpKind::Transpose)
    for (Op *u : t->operand(0)->users())
      if (topLevel(u) && !planned(u) && u->kind() == OpKind::ColSum)
        addIfAcyclic(k, u, OpRole::Body);
  // An operand of that producer widened from an FP8 copy (gelu_saved=e4m3: the GELU's input
  // saved in e4m3) is widened while the kernel reads it: the wide copy is never written.
  // And the FP8 copy of an operand it reads (the forward's GELU input, saved in e4m3, where no
  // GEMM epilogue wrote it) is written by the kernel from the same read.
  for (Value *o : t->operands()) {
    if (Op *w = o->definingOp(); topLevel(w) && !planned(w) && w->kind() == OpKind::Convert &&
                                 isFloat8(w->operand(0)->type().dtype()) && allUsersIn(o, k))
      addIfAcyclic(k, w, OpRole::Body);
    if (!dependsOn(o, k))
      for (Op *c : o->users())
        if (topLevel(c) && !planned(c) && c->kind() == OpKind::Convert &&
            isFloat8(c->result()->type().dtype()))
          addIfAcyclic(k, c, OpRole::Body);
  }
}

// Training with per-row or 1x128-block scales (rowwise, blockwise): a tensor x is cast twice
// with scales of its own, along its rows for the GEMM that reads x and along its columns for
// the weight-gradient GEMM that reads x^T (amax(transpose(x)) per row of x^T). Both chains join
// the kernel of either amax, so one cooperative launch reduces both amaxes in one read of x
// and writes both copies in a second (transpose.cuh, kRowCast), instead of a launch per copy.
void Planner::mergeTransposedPair(size_t k, Op *amax) {
  auto rowish = [](const Op *a) {
    const auto g = parseGranularity(a->strAttr("granularity"));
    return g == Granularity::Row || g == Granularity::Block1x128;
  };
  if (!rowish(amax))
    return;
  auto open = [&](const Op *op) { return op && topLevel(op) && !planned(op); };
  Value *x = amax->operand(0);
  std::vector<std::pair<Op *, Op *>> partners; // (the transpose, the partner amax)
  if (Op *t = x->definingOp(); open(t) && t->kind() == OpKind::Transpose)
    for (Op *a : t->operand(0)->users())
      if (open(a) && a->kind() == OpKind::Amax && rowish(a))
        partners.push_back({t, a});
  for (Op *t : x->users())
    if (open(t) && t->kind() == OpKind::Transpose)
      for (Op *a : t->result()->users())
        if (open(a) && a->kind() == OpKind::Amax && rowish(a))
          partners.push_back({t, a});
  for (auto [t, a] : partners) {
    if (planned(a) || (!planned(t) && !addIfAcyclic(k, t, OpRole::Body)) ||
        !addIfAcyclic(k, a, OpRole::Body))
      continue;
    for (Op *s : a->result()->users()) {
      if (!open(s) || s->kind() != OpKind::Scale || !addIfAcyclic(k, s, OpRole::Body))
        continue;
      for (Op *c : s->result()->users())
        if (open(c) && c->kind() == OpKind::Cast && c->operand(0) == a->operand(0))
          addIfAcyclic(k, c, OpRole::Body);
    }
  }
}

// Training: the transposed FP8 copy of a cast in kernel k (the weight-gradient GEMM's operand)
// is written by the same launch, as planAmaxKernel's: e.g. the GELU's cast whose amax the first
// GEMM's epilogue took (current scaling), one pass over the GELU.
void Planner::takeCastTransposes(size_t k) {
  const std::vector<Op *> members = plan_.kernels[k].ops;
  for (Op *c : members)
    if (c->kind() == OpKind::Cast)
      for (Op *u : c->result()->users())
        if (topLevel(u) && !planned(u) && u->kind() == OpKind::Transpose)
          addIfAcyclic(k, u, OpRole::Body);
}

void Planner::planPointwiseChain(Op *op) {
  size_t k = newKernel(KernelKind::Pointwise);
  add(k, op, OpRole::Body);
  Value *tail = op->result();
  while (tail->numUses() == 1) {
    Op *u = tail->users()[0];
    if (!topLevel(u) || planned(u) || !isPointwise(u) || !otherOperandsIndependent(u, tail, k) ||
        !addIfAcyclic(k, u, OpRole::Body))
      break;
    tail = u->result();
  }
  takeCastTransposes(k);
  if (tail->numUses() > 1)
    for (Op *u : tail->users())
      if (topLevel(u) && !planned(u) && isPointwise(u))
        reject(u, k, "chain",
               nameOf(tail) + " has " + std::to_string(tail->numUses()) +
                   " users, so the chain ends there");
}

} // namespace fp8c::fusion
