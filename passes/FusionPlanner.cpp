// The fusion planner (DESIGN.md section 6). Kernels are grown around GEMMs first:
//   1. every GEMM (scaled_matmul, linear, matmul) anchors a gemm kernel; two scaled_matmuls
//      that share A and feed only one swiglu become one dual GEMM (gate and up together);
//   2. epilogue: from the GEMM's result, amax observers join at any granularity (atomics where
//      a reduction spans tiles); an FP8 cast joins when its scale is known when the tile is
//      written (computed before the kernel, e.g. from an amax history, or from a 1x128 block
//      amax the tile itself holds); the single pointwise user joins and the walk continues;
//   3. prologue: the FP8 cast of A joins when its scale is tensor or row granular and known
//      before the kernel starts (not the cast of a transpose: that is a cast-transpose), with the scale computation itself and, where it does not feed
//      the kernel, the amax of A taken while loading it;
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
#include "passes/FusionPlan.h"
#include "passes/FusionBackend.h"
#include "passes/FusionOpClasses.h"

#include "ir/TypeRules.h"

#include <algorithm>
#include <set>

namespace fp8c {
namespace {

using fusion::isActivationGrad;
using fusion::isEpiloguePointwise;
using fusion::isGemm;
using fusion::isPointwise;
using fusion::isScaleOp;


std::string nameOf(const Value *v) { return "%" + (v->name().empty() ? "<unnamed>" : v->name()); }

class Planner {
public:
  explicit Planner(const Graph &g) : g_(g) {
    for (const auto &op : g.body().ops())
      if (!op->info().has(kTerminator))
        order_[op.get()] = order_.size();
  }

  FusionPlan run() {
    for (const auto &op : g_.body().ops())
      if (op->kind() == OpKind::Kernel) {
        size_t k = newKernel(kindFromAttr(op.get()));
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

private:
  // --- bookkeeping -------------------------------------------------------------------------
  static KernelKind kindFromAttr(const Op *op) {
    std::string k = op->strAttr("kind");
    return k == "gemm" ? KernelKind::Gemm : k == "reduce" ? KernelKind::Reduce : KernelKind::Pointwise;
  }
  bool planned(const Op *op) const { return plan_.kernelOf.count(const_cast<Op *>(op)) != 0; }
  bool inKernel(const Op *op, size_t k) const {
    auto it = plan_.kernelOf.find(const_cast<Op *>(op));
    return it != plan_.kernelOf.end() && it->second == k;
  }
  bool topLevel(const Op *op) const { return op && order_.count(const_cast<Op *>(op)); }
  size_t newKernel(KernelKind kind) {
    plan_.kernels.push_back(PlannedKernel{kind, {}, {}, "", "", false, nullptr, ""});
    return plan_.kernels.size() - 1;
  }
  void add(size_t k, Op *op, OpRole role) {
    plan_.kernels[k].ops.push_back(op);
    plan_.kernels[k].roles[op] = role;
    plan_.kernelOf[op] = k;
  }
  void reject(Op *op, size_t k, std::string where, std::string reason) {
    plan_.rejections.push_back({op, k, std::move(where), std::move(reason)});
  }
  bool allUsersIn(const Value *v, size_t k) const {
    for (Op *u : v->users())
      if (!inKernel(u, k))
        return false;
    return true;
  }
  // True when `v` is computed (transitively) from an op of kernel k.
  bool dependsOn(const Value *v, size_t k) const {
    std::set<const Op *> seen;
    std::vector<const Value *> work = {v};
    while (!work.empty()) {
      const Value *cur = work.back();
      work.pop_back();
      const Op *def = cur->definingOp();
      if (!def || !seen.insert(def).second)
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
  bool wouldCycle(const Op *op, size_t k) const {
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
    std::set<const Op *> seenOps;
    std::set<size_t> seenKernels;
    while (!work.empty()) {
      const Op *u = work.back();
      work.pop_back();
      if (inK(u))
        return true;
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
  bool addIfAcyclic(size_t k, Op *op, OpRole role) {
    if (wouldCycle(op, k))
      return false;
    add(k, op, role);
    return true;
  }
  bool otherOperandsIndependent(const Op *op, const Value *tail, size_t k) const {
    for (Value *o : op->operands())
      if (o != tail && dependsOn(o, k))
        return false;
    return true;
  }

  // --- 1. anchors ----------------------------------------------------------------------------
  // The swiglu that makes `m` half of a dual GEMM with another scaled_matmul, if any.
  Op *dualPartner(Op *m, Op **partner) {
    if (m->kind() != OpKind::ScaledMatmul || m->result()->numUses() != 1)
      return nullptr;
    Op *s = m->result()->users()[0];
    if (s->kind() != OpKind::Swiglu || s->operand(0) == s->operand(1))
      return nullptr;
    Value *other = s->operand(0) == m->result() ? s->operand(1) : s->operand(0);
    Op *m2 = other->definingOp();
    if (!topLevel(m2) || planned(m2) || m2->kind() != OpKind::ScaledMatmul ||
        other->numUses() != 1 || m2->operand(0) != m->operand(0) ||
        m2->operand(2) != m->operand(2) || m2->attrs() != m->attrs())
      return nullptr;
    *partner = m2;
    return s;
  }

  size_t anchorGemm(Op *op) {
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

  // --- 2. epilogue ---------------------------------------------------------------------------
  bool tryEpilogueCast(size_t k, Op *cast, Value *tail) {
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
  Op *auxGelu(size_t k, Value *tail, const std::vector<Op *> &others, bool *refused) {
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
             nameOf(tail) + " is also an output: an FP8 GEMM writing it as GELU_AUX beside the "
                            "FP8 GELU, plus the transpose of that, was measured slower than the "
                            "GELU cast-transpose reading " +
                 nameOf(tail) + " back");
      *refused = true;
      return nullptr;
    }
    return gelu;
  }

  void growEpilogue(size_t k) {
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
               "an unscaled convert to " + std::string(dtypeName(u->result()->type().dtype())) +
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

  // --- 3. prologue ---------------------------------------------------------------------------
  // An unquantized GEMM (bf16 / f16 operands, run by cuBLASLt) reads an operand that is a
  // transpose in place, in the other layout (cuBLASLt's TRANSA / TRANSB): the transpose joins
  // the kernel and no transposed copy is written. FP8 operands must be K-major (Hopper's FP8
  // GEMMs are TN only): those transposes stay cast-transposes.
  void absorbOperandTransposes(size_t k) {
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

  void growPrologue(size_t k) {
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
  bool dependsOnOp(const Value *v, const Op *target) const {
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

  // --- 4. leftovers --------------------------------------------------------------------------
  void planLeftovers() {
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
  bool placeScaleOp(Op *op) {
    if (planned(op) || !isScaleOp(op))
      return false;
    std::optional<size_t> first;
    for (Op *u : op->result()->users()) {
      if (!planned(u))
        return false;
      size_t k = plan_.kernelOf[u];
      if (!first ||
          order_[plan_.kernels[k].ops.front()] < order_[plan_.kernels[*first].ops.front()])
        first = k;
    }
    return first && !dependsOn(op->operand(0), *first) &&
           addIfAcyclic(*first, op, OpRole::Prologue);
  }

  // amax + scale + cast of one tensor as one kernel (the cast also when its scale comes from
  // elsewhere, e.g. an amax history), with a transpose feeding only it.
  void planAmaxKernel(Op *amax) {
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
          othersPlanned &= planned(u);
        if (othersPlanned)
          addIfAcyclic(k, sdef, OpRole::Body);
      }
    }
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
    if (topLevel(t) && !planned(t) && allUsersIn(x, k) &&
        (t->kind() == OpKind::Transpose || isActivationGrad(t) || isPointwise(t)) &&
        addIfAcyclic(k, t, OpRole::Body) && t->kind() == OpKind::Transpose)
      for (Op *u : t->operand(0)->users())
        if (topLevel(u) && !planned(u) && u->kind() == OpKind::ColSum)
          addIfAcyclic(k, u, OpRole::Body);
  }

  void planPointwiseChain(Op *op) {
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
    if (tail->numUses() > 1)
      for (Op *u : tail->users())
        if (topLevel(u) && !planned(u) && isPointwise(u))
          reject(u, k, "chain", nameOf(tail) + " has " + std::to_string(tail->numUses()) +
                                    " users, so the chain ends there");
  }

  // --- finishing -----------------------------------------------------------------------------
  void markLoadTime() {
    std::set<const Value *> params;
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (const Attribute *a = g_.inputAttrs(i).get("fp8.param");
          a && a->kind() == AttrKind::Bool && a->asBool())
        params.insert(g_.input(i));
    // Values computed from parameters alone, in block order.
    std::set<const Value *> constant = params;
    for (const auto &op : g_.body().ops()) {
      if (!topLevel(op.get()) || op->numOperands() == 0)
        continue;
      bool all = true;
      for (Value *o : op->operands())
        all &= constant.count(o) != 0;
      if (all)
        for (Value *r : op->results())
          constant.insert(r);
    }
    for (PlannedKernel &k : plan_.kernels) {
      bool all = !params.empty();
      for (Op *op : k.ops)
        for (Value *r : op->results())
          all &= constant.count(r) != 0;
      k.loadTime = all;
    }
  }

  void sortKernels() {
    size_t n = plan_.kernels.size();
    std::vector<std::set<size_t>> deps(n);
    for (size_t k = 0; k < n; ++k)
      for (Op *op : plan_.kernels[k].ops)
        for (Value *o : op->operands())
          if (Op *d = o->definingOp(); d && planned(d) && plan_.kernelOf[d] != k)
            deps[k].insert(plan_.kernelOf[d]);
    auto firstIndex = [&](size_t k) {
      size_t m = SIZE_MAX;
      for (Op *op : plan_.kernels[k].ops)
        m = std::min(m, order_[op]);
      return m;
    };
    // Among ready kernels: first those that need no GEMM's output (input and weight
    // preparation), then the rest in program order, and state updates last.
    std::vector<bool> afterGemm(n, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = 0; k < n; ++k)
        for (size_t d : deps[k])
          if (!afterGemm[k] && (afterGemm[d] || plan_.kernels[d].kind == KernelKind::Gemm))
            afterGemm[k] = changed = true;
    }
    auto rank = [&](size_t k) {
      bool stateOnly = true;
      for (Op *op : plan_.kernels[k].ops)
        stateOnly &= op->kind() == OpKind::HistoryPush;
      return std::make_pair(stateOnly ? 2 : afterGemm[k] || plan_.kernels[k].kind == KernelKind::Gemm ? 1 : 0,
                            firstIndex(k));
    };
    std::vector<size_t> sorted;
    std::vector<bool> done(n, false);
    while (sorted.size() < n) {
      std::optional<size_t> pick;
      for (size_t k = 0; k < n; ++k) {
        if (done[k])
          continue;
        bool ready = true;
        for (size_t d : deps[k])
          ready &= done[d];
        if (ready && (!pick || rank(k) < rank(*pick)))
          pick = k;
      }
      if (!pick) {
        plan_.error = "internal error: the fusion plan has a cycle between kernels";
        return;
      }
      done[*pick] = true;
      sorted.push_back(*pick);
    }
    std::vector<size_t> newIndex(n);
    std::vector<PlannedKernel> kernels;
    for (size_t i = 0; i < n; ++i) {
      newIndex[sorted[i]] = i;
      PlannedKernel k = std::move(plan_.kernels[sorted[i]]);
      std::sort(k.ops.begin(), k.ops.end(), [&](Op *a, Op *b) { return order_[a] < order_[b]; });
      kernels.push_back(std::move(k));
    }
    plan_.kernels = std::move(kernels);
    for (auto &[op, k] : plan_.kernelOf)
      k = newIndex[k];
    for (FusionRejection &r : plan_.rejections)
      r.kernel = newIndex[r.kernel];
  }

  void chooseBackends() {
    for (PlannedKernel &k : plan_.kernels)
      chooseBackend(k);
  }

  const Graph &g_;
  FusionPlan plan_;
  std::map<Op *, size_t> order_;
  std::map<size_t, Value *> tails_;
};

} // namespace

FusionPlan planFusion(const Graph &g) { return Planner(g).run(); }

} // namespace fp8c
