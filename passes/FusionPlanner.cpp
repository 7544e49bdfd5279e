// The fusion planner (docs/architecture.md, "Fusion"). Kernels are grown around GEMMs first:
//   1. every GEMM (scaled_matmul, linear, matmul) anchors a gemm kernel; two scaled_matmuls
//      that share A and feed only one swiglu become one dual GEMM (gate and up together);
//   2. epilogue: from the GEMM's result, amax observers join at any granularity (atomics where
//      a reduction spans tiles); an FP8 cast joins when its scale is known when the tile is
//      written (computed before the kernel, e.g. from an amax history, or from a 1x128 block
//      amax the tile itself holds); the single pointwise user joins and the walk continues;
//   3. prologue: the FP8 cast of A joins when its scale is tensor or row granular and known
//      before the kernel starts (not the cast of a transpose: that is a cast-transpose), with the
//      scale computation itself and, where it does not feed the kernel, the amax of A taken while
//      loading it;
//   4. what is left: cheap scale ops go to the start of their first consumer kernel, amax +
//      scale + cast of one tensor form one reduce kernel (with a transpose feeding only it,
//      the transposes of its FP8 results, a col_sum of the same tensor and the pointwise op
//      or activation derivative producing it: training's cast-transpose-amax, dbias and dact),
//      pointwise chains one kernel each, a cast no prologue took one kernel with its scale,
//      history updates one trailing kernel.
// No op joins a kernel where that would make the kernel need, through ops outside it, a value
// computed from its own results (wouldCycle).
// Legality is checked, not assumed; each refusal that is not a plain boundary is recorded
// with its reason for --print-fusion-plan.
// This file holds the driver, the bookkeeping and step 1; steps 2 to 4 and the finishing steps
// (load time, execution order, backends) are FusionPlannerEpilogue.cpp, FusionPlannerPrologue.cpp,
// FusionPlannerLeftovers.cpp and FusionPlannerFinish.cpp; FusionPlannerImpl.h declares the class.
#include "passes/FusionPlannerImpl.h"

#include <set>

namespace fp8c {
namespace fusion {

Planner::Planner(const Graph &g, bool generatedGemm, bool gradEpilogue)
    : g_(g), generatedGemm_(generatedGemm), gradEpilogue_(gradEpilogue) {
  for (const auto &op : g.body().ops())
    if (!op->info().has(kTerminator))
      order_[op.get()] = order_.size();
}

FusionPlan Planner::run() {
  for (const auto &op : g_.body().ops())
    if (op->kind() == OpKind::Kernel) {
      size_t k = newKernel(kernelKindOf(*op));
      plan_.kernels[k].existing = op.get();
      add(k, op.get(), OpRole::Body);
    }
  std::vector<size_t> gemms;
  for (const auto &op : g_.body().ops())
    if (isGemm(op.get()) && !planned(op.get()))
      gemms.push_back(anchorGemm(op.get()));
  for (size_t k : gemms)
    growEpilogue(k);
  for (size_t k : gemms)
    growPrologue(k);
  planLeftovers();
  markLoadTime();
  sortKernels();
  chooseBackends();
  return std::move(plan_);
}

// --- bookkeeping ----------------------------------------------------------------------------
bool Planner::allUsersIn(const Value *v, size_t k) const {
  for (Op *u : v->users())
    if (!inKernel(u, k))
      return false;
  return true;
}

// True when `v` is computed (transitively) from an op of kernel k.
// An operand comes before its user in block order: the search up stops at ops before the
// kernel's first.
bool Planner::dependsOn(const Value *v, size_t k) const {
  std::set<const Op *> seen;
  std::vector<const Value *> work = {v};
  const size_t first = span_[k].first;
  while (!work.empty()) {
    const Value *cur = work.back();
    work.pop_back();
    const Op *def = cur->definingOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (auto it = order_.find(const_cast<Op *>(def)); it != order_.end() && it->second < first)
      continue;
    if (inKernel(def, k))
      return true;
    for (Value *o : def->operands())
      work.push_back(o);
  }
  return false;
}

// True when kernel k, with `op` added, would need a value computed from one of its own
// results by something outside it: a cycle between kernels. Unplanned ops count as kernels
// of their own; already planned ones as their kernel.
bool Planner::wouldCycle(const Op *op, size_t k) const {
  auto inK = [&](const Op *o) { return o == op || inKernel(o, k); };
  std::vector<const Op *> work;
  auto pushUsers = [&](const Op *o, bool outsideOnly) {
    for (Value *r : o->results())
      for (Op *u : r->users())
        if (topLevel(u) && !(outsideOnly && inK(u)))
          work.push_back(u);
  };
  for (const Op *o : plan_.kernels[k].ops)
    pushUsers(o, true);
  pushUsers(op, true);
  // A path back into k only visits ops at or before `bound` in block order: users come after
  // what they use, so a path past the bound returns only by a jump inside a kernel that spans
  // it, and the bound is extended until no kernel does.
  size_t bound = span_[k].second;
  if (auto it = order_.find(const_cast<Op *>(op)); it != order_.end())
    bound = std::max(bound, it->second);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t j = 0; j < span_.size(); ++j)
      if (j != k && span_[j].first <= bound && span_[j].second > bound) {
        bound = span_[j].second;
        grew = true;
      }
  }
  std::set<const Op *> seenOps;
  std::set<size_t> seenKernels;
  while (!work.empty()) {
    const Op *u = work.back();
    work.pop_back();
    if (inK(u))
      return true;
    if (auto it = order_.find(const_cast<Op *>(u)); it != order_.end() && it->second > bound)
      continue;
    if (auto it = plan_.kernelOf.find(const_cast<Op *>(u)); it != plan_.kernelOf.end()) {
      if (seenKernels.insert(it->second).second)
        for (const Op *o : plan_.kernels[it->second].ops)
          pushUsers(o, false);
    } else if (seenOps.insert(u).second) {
      pushUsers(u, false);
    }
  }
  return false;
}

// Adds `op` to kernel k unless that makes a cycle between kernels.
namespace {

// A row or 1x128-block amax whose every use is a scale that only casts the same tensor: the
// cast's launch reduces it locally (codegen/LaunchBuilder.cpp's local scales).
bool castLocalAmax(const Op *amax) {
  const std::string gran = amax->strAttr("granularity");
  if ((gran != "row" && gran != "block_1x128") || !amax->result()->hasUses())
    return false;
  for (const Op *s : amax->result()->users()) {
    if (s->kind() != OpKind::Scale || !s->result()->hasUses())
      return false;
    for (const Op *c : s->result()->users())
      if (c->kind() != OpKind::Cast || c->operand(0) != amax->operand(0))
        return false;
  }
  return true;
}

} // namespace

std::string Planner::groupConflict(size_t k, const Op *op) const {
  if (op->kind() != OpKind::Cast && op->kind() != OpKind::Amax)
    return "";
  // One launch casts a tensor once: its amax, scale and FP8 copy are one group of the launch
  // (codegen/LaunchBuilder.cpp). It tiles a tensor in 128x128 blocks or not at all. Two amaxes
  // of one tensor share it only where one is the local amax of a row or 1x128 cast.
  const bool tiles = op->strAttr("granularity") == "block_128x128";
  for (const Op *m : plan_.kernels[k].ops) {
    if ((m->kind() != OpKind::Cast && m->kind() != OpKind::Amax) ||
        m->operand(0) != op->operand(0))
      continue;
    const std::string what = std::string(m->name()) + " " + nameOf(m->result());
    if (op->kind() == OpKind::Cast && m->kind() == OpKind::Cast)
      return "the kernel already casts " + nameOf(op->operand(0)) + " (" + what + ")";
    if (tiles != (m->strAttr("granularity") == "block_128x128"))
      return "a launch tiles " + nameOf(op->operand(0)) +
             " in 128x128 blocks or not at all, and the kernel holds " + what;
    if (op->kind() == OpKind::Amax && m->kind() == OpKind::Amax &&
        castLocalAmax(op) == castLocalAmax(m))
      return "the kernel already reduces an amax of " + nameOf(op->operand(0)) + " (" + what +
             ")";
  }
  return "";
}

bool Planner::addIfAcyclic(size_t k, Op *op, OpRole role) {
  if (wouldCycle(op, k) || !groupConflict(k, op).empty())
    return false;
  add(k, op, role);
  return true;
}

bool Planner::otherOperandsIndependent(const Op *op, const Value *tail, size_t k) const {
  for (Value *o : op->operands())
    if (o != tail && dependsOn(o, k))
      return false;
  return true;
}

// --- 1. anchors ----------------------------------------------------------------------------
// The swiglu that makes `m` half of a dual GEMM with another scaled_matmul, if any.
Op *Planner::dualPartner(Op *m, Op **partner) {
  if (m->kind() != OpKind::ScaledMatmul || m->result()->numUses() != 1)
    return nullptr;
  Op *s = m->result()->users()[0];
  if (s->kind() != OpKind::Swiglu || s->operand(0) == s->operand(1))
    return nullptr;
  Value *other = s->operand(0) == m->result() ? s->operand(1) : s->operand(0);
  Op *m2 = other->definingOp();
  if (!topLevel(m2) || planned(m2) || m2->kind() != OpKind::ScaledMatmul || other->numUses() != 1 ||
      m2->operand(0) != m->operand(0) || m2->operand(2) != m->operand(2) ||
      m2->attrs() != m->attrs())
    return nullptr;
  *partner = m2;
  return s;
}

size_t Planner::anchorGemm(Op *op) {
  size_t k = newKernel(KernelKind::Gemm);
  add(k, op, OpRole::Main);
  Op *partner = nullptr;
  if (Op *swiglu = dualPartner(op, &partner)) {
    add(k, partner, OpRole::Main);
    add(k, swiglu, OpRole::Epilogue);
    tails_[k] = swiglu->result();
  } else {
    tails_[k] = op->result();
  }
  return k;
}

} // namespace fusion

FusionPlan planFusion(const Graph &g, GemmBackend gemmBackend, bool gradEpilogue) {
  return fusion::Planner(g, gemmBackend != GemmBackend::CublasLt, gradEpilogue).run();
}

} // namespace fp8c
