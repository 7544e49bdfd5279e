// From a set of region ops to generated launches. The ops are grouped around the tensors they
// reduce or cast: a group is one value v (computed by a chain of pointwise ops from buffers),
// with its amax, its FP8 cast and its store, and becomes one launch:
//   - a cast whose scale is scale(amax(v)) at the cast's granularity takes the amax locally
//     (row, 1x128 and 128x128 blocks in registers; a tensor amax through a cooperative grid);
//   - a cast whose scale is known before the launch reads it (a slot that scalars() fills on
//     each block from a history, an amax or a scalar buffer; or a per-row / per-block buffer,
//     to which the scale formula may be applied on the fly);
//   - values used outside the ops (yielded, or read by the GEMM) are stored, FP8 ones with
//     the padded pitch cuBLASLt needs, and scales a GEMM uses are also written inverted.
// Scalar scale ops (history_scale, scale of a tensor amax) run on thread 0 of every block of
// the first launch into shared slots; block 0 writes them out. A transpose is a launch of its
// own (fused with a tensorwise cast), and so is a column sum (colsum.cuh). Launches are
// emitted in dependency order.
#include "codegen/LaunchBuilder.h"

#include <algorithm>

namespace fp8c::codegen {

LaunchBuilder::LaunchBuilder(Lowerer &lw, const Op &kernel, int index, const std::vector<Op *> &ops,
                             std::string role)
    : lw_(lw), kernel_(kernel), index_(index), ops_(ops), role_(std::move(role)) {
  scope_.insert(ops.begin(), ops.end());
}

bool LaunchBuilder::inScope(const Value *v) const {
  return v->definingOp() && scope_.count(v->definingOp());
}

bool LaunchBuilder::materialized(const Value *v) const {
  for (const Op *u : v->users()) {
    if (u->kind() == OpKind::Yield || !u->parentOp())
      return true;
    if (scope_.count(u))
      continue;
    if (u->kind() == OpKind::ScaledMatmul && (u->operand(2) == v || u->operand(3) == v) &&
        u->operand(0) != v && u->operand(1) != v)
      continue; // the GEMM reads the inverse
    return true;
  }
  return false;
}

Granularity LaunchBuilder::granOf(const Op *op) {
  return parseGranularity(op->strAttr("granularity")).value_or(Granularity::Tensor);
}

Status LaunchBuilder::classify() {
  // Local scales: cast(v, scale(amax(v))) at one granularity.
  for (Op *op : ops_) {
    if (op->kind() != OpKind::Cast)
      continue;
    Op *s = op->operand(1)->definingOp();
    if (!s || !scope_.count(s) || s->kind() != OpKind::Scale)
      continue;
    Op *a = s->operand(0)->definingOp();
    if (a && scope_.count(a) && a->kind() == OpKind::Amax && a->operand(0) == op->operand(0) &&
        granOf(a) == granOf(op)) {
      local_[op] = {s, a};
      localScaleOps_.insert(s);
      localAmaxOps_.insert(a);
    }
  }
  for (Op *op : ops_) {
    const bool scalarScale = op->kind() == OpKind::Scale && op->result()->type().rank() == 0 &&
                             !localScaleOps_.count(op);
    if (op->kind() == OpKind::HistoryScale || scalarScale) {
      bool late = inScope(op->operand(0));
      (late ? lateScalars_ : scalars_).push_back(op);
      continue;
    }
    if (op->kind() == OpKind::HistoryPush)
      return Error("fp8.history_push belongs in a state kernel of its own");
  }
  for (size_t i = 0; i < scalars_.size(); ++i)
    slotOf_[scalars_[i]->result()] = static_cast<int>(i);
  // Groups: around each amax / materialized cast operand, and each other materialized value.
  auto groupFor = [&](const Value *v) -> Group & {
    for (Group &g : groups_)
      if (g.v == v)
        return g;
    Group g;
    g.v = v;
    groups_.push_back(g);
    return groups_.back();
  };
  for (Op *op : ops_) {
    if (op->kind() == OpKind::ColSum) {
      Group &g = groupFor(op->result());
      g.colSum = op;
      g.store = true;
      continue;
    }
    if (op->kind() == OpKind::Amax) {
      Group &g = groupFor(op->operand(0));
      if (localAmaxOps_.count(op)) {
        g.localAmax = op;
      } else if (g.amax) {
        return Error("two amaxes of %" + op->operand(0)->name() + " in one kernel");
      } else {
        g.amax = op;
      }
    } else if (op->kind() == OpKind::Cast && (materialized(op->result()) ||
                                               !op->result()->hasUses() || local_.count(op))) {
      // A cast with a scale computed here (local) is a group even when only its transpose is
      // used (linear of a transposed activation): the group writes the scale.
      Group &g = groupFor(op->operand(0));
      if (g.cast)
        return Error("two casts of %" + op->operand(0)->name() + " in one kernel");
      g.cast = op;
    }
  }
  for (Op *op : ops_) {
    if (op->kind() == OpKind::Amax || op->kind() == OpKind::HistoryScale ||
        localScaleOps_.count(op) ||
        (op->kind() == OpKind::Scale && op->result()->type().rank() == 0))
      continue;
    if (op->kind() == OpKind::Scale && castOnlyScale(op))
      continue; // computed by the cast that uses it (Buffer scale from amaxes), written there
    if (op->kind() == OpKind::Cast)
      continue; // the cast of a group, or an inner cast computed inline
    if (materialized(op->result()))
      groupFor(op->result()).store = true;
    else if (op->kind() == OpKind::Transpose)
      groupFor(op->result());
  }
  // A transpose is one launch: a plain transpose, or a cast-transpose with a tensor scale (and
  // a tensor amax). Anything else is done on the stored transpose by a second launch.
  for (Group &g : groups_) {
    const Op *t = g.v->definingOp();
    if (!t || !scope_.count(t) || t->kind() != OpKind::Transpose)
      continue;
    const Value *x = t->operand(0);
    // x computed inline (an activation or its derivative) is evaluated by the launch when it
    // also takes x's own cast (rowCastPartner): nothing else reads x.
    const bool xLeaf = !inScope(x) || !inlinable(x->definingOp()) || materialized(x) ||
                       rowCastPartner(g) >= 0;
    const bool tensorOnly = (!g.amax || granOf(g.amax) == Granularity::Tensor) &&
                            (!g.cast || granOf(g.cast) == Granularity::Tensor);
    if (!g.cast)
      g.store = true;
    g.splitTranspose =
        !(xLeaf && (tensorOnly || outRowLocalCast(g)) && !(g.store && g.cast));
    if (g.splitTranspose)
      g.store = true;
  }
  mergeCastTransposes();
  for (Group &g : groups_)
    analyze(g);
  return Status::ok();
}

// A tensor-scaled cast whose FP8 result is also transposed (the copy the weight-gradient GEMM
// reads: Hopper FP8 GEMMs are TN only) becomes one cast-transpose launch writing both copies
// from one read of the input; its scale is a slot, a buffer, or computed locally (the
// cooperative two-phase kernel). A col_sum of the same value joins it.
void LaunchBuilder::mergeCastTransposes() {
  std::set<size_t> absorbed;
  for (size_t i = 0; i < groups_.size(); ++i) {
    const Group &t = groups_[i];
    const Op *tr = t.v->definingOp();
    if (!tr || !inScope(tr) || tr->kind() != OpKind::Transpose || t.cast || t.amax ||
        t.splitTranspose)
      continue;
    const Op *c = tr->operand(0)->definingOp();
    if (!c || !inScope(c) || c->kind() != OpKind::Cast || granOf(c) != Granularity::Tensor)
      continue;
    for (size_t j = 0; j < groups_.size(); ++j) {
      Group &g = groups_[j];
      if (g.cast != c || g.store || g.transposeOut || g.v->type().rank() != 2 ||
          Lowerer::colsOf(g.v->type()) == kDynamic || lw_.mDivisor(g.v) != 1 ||
          (g.amax && granOf(g.amax) != Granularity::Tensor))
        continue;
      g.transposeOut = t.v;
      absorbed.insert(i);
      for (size_t k = 0; k < groups_.size(); ++k)
        if (groups_[k].colSum && groups_[k].colSum->operand(0) == g.v && !absorbed.count(k)) {
          g.fusedColSum = groups_[k].colSum;
          absorbed.insert(k);
          break;
        }
      break;
    }
  }
  // A cast-transpose with per-output-row local scales takes the cast of its input with local
  // per-row (1x128-block) scales (rowCastPartner) ...
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group &g = groups_[i];
    if (absorbed.count(i) || g.splitTranspose)
      continue;
    const int j = rowCastPartner(g);
    if (j < 0 || absorbed.count(static_cast<size_t>(j)))
      continue;
    g.rowLocalCast = groups_[static_cast<size_t>(j)].cast;
    absorbed.insert(static_cast<size_t>(j));
  }
  // ... and, as a tensor-scale one, the col_sum of its input.
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group &g = groups_[i];
    const Op *tr = g.v->definingOp();
    if (absorbed.count(i) || g.splitTranspose || g.fusedColSum || !tr || !inScope(tr) ||
        tr->kind() != OpKind::Transpose || !outRowLocalCast(g))
      continue;
    for (size_t k = 0; k < groups_.size(); ++k)
      if (groups_[k].colSum && groups_[k].colSum->operand(0) == tr->operand(0) &&
          !absorbed.count(k)) {
        g.fusedColSum = groups_[k].colSum;
        absorbed.insert(k);
        break;
      }
  }
  // A cast-transpose also writes the unscaled FP8 convert of a buffer its expression reads
  // (gelu_saved=e4m3's copy of the GELU's input), from the chunks it reads anyway.
  auto readsLeaf = [&](const Value *v, const Value *x, auto &&self) -> bool {
    const Op *def = v->definingOp();
    if (!def || !inScope(def) || !inlinable(def))
      return false;
    for (const Value *o : def->operands())
      if (o == x || (!materialized(o) && self(o, x, self)))
        return true;
    return false;
  };
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group &g = groups_[i];
    if (absorbed.count(i) || !g.transposeOut || g.store)
      continue;
    for (size_t k = 0; k < groups_.size(); ++k) {
      const Group &c = groups_[k];
      const Op *cv = c.v->definingOp();
      if (k == i || absorbed.count(k) || !c.store || c.cast || c.amax || c.transposeOut ||
          c.colSum || !cv || !inScope(cv) || cv->kind() != OpKind::Convert ||
          !isFloat8(c.v->type().dtype()) || inScope(cv->operand(0)) ||
          cv->operand(0)->type().shape() != g.v->type().shape() ||
          !readsLeaf(g.v, cv->operand(0), readsLeaf))
        continue;
      g.inputCopy = const_cast<Op *>(cv);
      absorbed.insert(k);
      break;
    }
  }
  std::vector<Group> kept;
  for (size_t i = 0; i < groups_.size(); ++i)
    if (!absorbed.count(i))
      kept.push_back(std::move(groups_[i]));
  groups_ = std::move(kept);
}

// cast(transpose(x), scale(amax(transpose(x)))) per row or per 1x128 block of the transposed
// value (rowwise / blockwise operands of the weight-gradient GEMM), nothing else of it written:
// one cooperative cast-transpose launch reduces the amaxes per column of x, then casts.
// Blocks need a static row count (their number is a compile-time constant of the kernel).
bool LaunchBuilder::outRowLocalCast(const Group &g) const {
  if (!g.cast || g.amax || !local_.count(g.cast))
    return false;
  const Granularity gran = granOf(g.cast);
  if (gran == Granularity::Row)
    return true;
  const Value *x = g.v->definingOp()->operand(0);
  return gran == Granularity::Block1x128 && Lowerer::rowsOf(x->type()).perM == 0;
}

// The group that casts x with local scales per row or 1x128 block of x and does nothing else,
// where t is transpose(x) with a per-output-row local cast: the index of that group, or -1.
// One launch then reduces both amaxes and writes both copies (kRowCast). A 1x128-block cast of
// the transpose needs a static row count (outRowLocalCast).
int LaunchBuilder::rowCastPartner(const Group &t) const {
  const Op *tr = t.v->definingOp();
  if (!tr || !inScope(tr) || tr->kind() != OpKind::Transpose || !outRowLocalCast(t) ||
      t.store || t.transposeOut)
    return -1;
  const Value *x = tr->operand(0);
  if (x->type().rank() != 2 || Lowerer::colsOf(x->type()) == kDynamic || lw_.mDivisor(x) != 1)
    return -1;
  for (size_t j = 0; j < groups_.size(); ++j) {
    const Group &g = groups_[j];
    if (g.v != x || !g.cast || !local_.count(g.cast) || g.amax || g.store || g.colSum ||
        g.transposeOut || lw_.mDivisor(g.cast->result()) != 1)
      continue;
    const Granularity gran = granOf(g.cast);
    if (gran == Granularity::Row || gran == Granularity::Block1x128)
      return static_cast<int>(j);
  }
  return -1;
}

// A non-scalar scale op whose every use is as the scale of an in-scope cast (or as a GEMM
// scale, or yielded): the cast computes it from the amaxes.
bool LaunchBuilder::castOnlyScale(const Op *op) const {
  if (op->kind() != OpKind::Scale || op->result()->type().rank() == 0)
    return false;
  bool any = false;
  for (const Op *u : op->result()->users()) {
    if (u->kind() == OpKind::Cast && inScope(u) && u->operand(1) == op->result() &&
        u->operand(0) != op->result())
      any = true;
    else if (!(u->kind() == OpKind::Yield ||
               (u->kind() == OpKind::ScaledMatmul && !inScope(u) &&
                (u->operand(2) == op->result() || u->operand(3) == op->result()))))
      return false;
  }
  return any;
}

Status LaunchBuilder::run() {
  if (Status s = classify(); !s)
    return s;
  std::vector<LaunchDesc> launches;
  std::vector<bool> done(groups_.size(), false);
  std::set<const Value *> ready; // in-scope values written by an emitted launch
  for (size_t emitted = 0; emitted < groups_.size();) {
    bool progress = false;
    for (size_t i = 0; i < groups_.size(); ++i) {
      if (done[i])
        continue;
      bool ok = true;
      for (const Value *n : groups_[i].needs)
        ok &= ready.count(n) != 0;
      if (!ok)
        continue;
      if (Status s = lowerGroup(groups_[i], launches); !s)
        return s;
      for (const Value *w : groups_[i].writes)
        ready.insert(w);
      done[i] = true;
      ++emitted;
      progress = true;
    }
    if (!progress) {
      std::string missing;
      for (size_t i = 0; i < groups_.size(); ++i)
        if (!done[i])
          for (const Value *n : groups_[i].needs)
            if (!ready.count(n))
              missing += (missing.empty() ? "%" : ", %") + n->name();
      return Error("codegen cannot order the ops of this kernel: nothing computes " + missing +
                   " before it is needed");
    }
  }
  // Scalar jobs: in every launch's scalars() (block 0 of the first launch writes them out),
  // or a launch of their own when there is no other.
  std::vector<std::string> lines = scalarLines(scalars_, /*write*/ true);
  if (!scalars_.empty() && launches.empty()) {
    LaunchDesc d;
    d.kind = LaunchKind::Small;
    d.suffix = "scales";
    d.description = describe(scalars_);
    d.smallLines.push_back("if (threadIdx.x == 0) {");
    d.smallLines.push_back("  float slot[" + std::to_string(scalars_.size()) + "];");
    d.smallLines.push_back("  const bool leader = true;");
    for (const std::string &l : lines)
      d.smallLines.push_back("  " + l);
    d.smallLines.push_back("}");
    if (role_ == "prologue") { // a GEMM's scales alone: Lowerer::foldScalarLaunch may move them
      d.leaderLines = lines;
      d.leaderSlots = static_cast<int>(scalars_.size());
    }
    launches.push_back(std::move(d));
  } else if (!scalars_.empty()) {
    std::vector<std::string> readOnly = scalarLines(scalars_, /*write*/ false);
    for (size_t i = 0; i < launches.size(); ++i) {
      if (launches[i].kind == LaunchKind::Small || launches[i].kind == LaunchKind::Inverse)
        continue;
      launches[i].scalarLines = (i == 0 ? lines : readOnly);
      launches[i].numSlots = static_cast<int>(scalars_.size());
      launches[i].description = describe(scalars_) + (launches[i].description.empty() ? "" : ", ") +
                                launches[i].description;
      lines = readOnly;
    }
  }
  if (!lateScalars_.empty()) {
    LaunchDesc d;
    d.kind = LaunchKind::Small;
    d.suffix = "scales";
    d.description = describe(lateScalars_);
    std::map<const Value *, int> saved = slotOf_;
    for (size_t i = 0; i < lateScalars_.size(); ++i)
      slotOf_[lateScalars_[i]->result()] = static_cast<int>(i);
    d.smallLines.push_back("if (threadIdx.x == 0) {");
    d.smallLines.push_back("  float slot[" + std::to_string(lateScalars_.size()) + "];");
    d.smallLines.push_back("  const bool leader = true;");
    for (const std::string &l : scalarLines(lateScalars_, true))
      d.smallLines.push_back("  " + l);
    d.smallLines.push_back("}");
    slotOf_ = saved;
    launches.push_back(std::move(d));
  }
  for (LaunchDesc &d : launches)
    if (d.kind != LaunchKind::Small && d.kind != LaunchKind::Inverse) {
      writeInputInverses(d);
      break;
    }
  for (const LaunchDesc &d : launches)
    lw_.addLaunch(d, index_);
  return Status::ok();
}

// The inverses GEMMs need of tensor scales that are graph inputs (the scales a training
// step's forward saved for its backward) are written by the leader block of the graph's first
// generated launch, instead of by a launch of their own before each GEMM.
void LaunchBuilder::writeInputInverses(LaunchDesc &d) {
  if (lw_.loadTime())
    return; // a load-time launch runs once; the inputs change per call
  const Graph &g = lw_.graph();
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const Value *v = g.input(i);
    if (v->type().rank() != 0)
      continue;
    for (InvLayout l : lw_.pendingInverses(v)) {
      const int inv = *lw_.inverseBuffer(v, l);
      d.scalarLines.push_back("if (leader) fp8c::f32p(" + bufRef(inv) +
                              ")[0] = fp8c::reciprocal(fp8c::f32p(" + bufRef(lw_.bufferOf(v)) +
                              ")[0]);");
      d.description += std::string(d.description.empty() ? "" : ", ") + "1 / %" + v->name() +
                       " for cuBLASLt";
      lw_.markInverseWritten(v, l);
    }
  }
}

std::string LaunchBuilder::describe(const std::vector<Op *> &ops) {
  std::string s;
  for (const Op *op : ops)
    s += (s.empty() ? "" : ", ") + std::string(op->name()) + " %" + op->result()->name();
  return s;
}

std::string LaunchBuilder::bufRef(int b) { return "@" + std::to_string(b) + "@"; }

// Lines of scalars(): each job into its slot; with `write`, block 0 also stores the scale
// (when materialized) and the inverses GEMMs need.
std::vector<std::string> LaunchBuilder::scalarLines(const std::vector<Op *> &jobs, bool write) {
  std::vector<std::string> out;
  for (const Op *op : jobs) {
    const int slot = slotOf_.at(op->result());
    const std::string s = "s" + std::to_string(slot);
    const DType f8 = op->dtypeAttr("dtype");
    const std::string margin = std::to_string(op->intAttr("margin"));
    const std::string pow2 = op->boolAttr("pow2") ? "true" : "false";
    if (op->kind() == OpKind::HistoryScale) {
      const int h = lw_.bufferOf(op->operand(0));
      const bool recent = op->strAttr("algo") == "most_recent";
      out.push_back("const float " + s + " = fp8c::historyScale<" + dtName(f8) +
                    ", fp8c::HistoryAlgo::" + (recent ? "MostRecent" : "Max") + ">(fp8c::f32p(" +
                    bufRef(h) + "), " + std::to_string(Lowerer::colsOf(op->operand(0)->type())) +
                    ", " + margin + ", " + pow2 + ");");
    } else {
      const int a = lw_.bufferOf(op->operand(0));
      std::string amax = "fp8c::f32p(" + bufRef(a) + ")[0]";
      if (lw_.amaxRound(a) != DType::F32)
        amax = "fp8c::roundTo<" + dtName(lw_.amaxRound(a)) + ">(" + amax + ")";
      out.push_back("const float " + s + " = fp8c::scaleFromAmax<" + dtName(f8) + ">(" + amax +
                    ", " + margin + ", " + pow2 + ");");
    }
    out.push_back("slot[" + std::to_string(slot) + "] = " + s + ";");
    if (!write)
      continue;
    std::vector<std::string> stores;
    if (materialized(op->result()))
      stores.push_back("fp8c::f32p(" + bufRef(lw_.bufferOf(op->result())) + ")[0] = " + s + ";");
    for (InvLayout l : lw_.pendingInverses(op->result())) {
      int inv = *lw_.inverseBuffer(op->result(), l);
      stores.push_back("fp8c::f32p(" + bufRef(inv) + ")[0] = fp8c::reciprocal(" + s + ");");
      lw_.markInverseWritten(op->result(), l);
    }
    if (!stores.empty()) {
      out.push_back("if (leader) {");
      for (const std::string &l : stores)
        out.push_back("  " + l);
      out.push_back("}");
    }
  }
  return out;
}

Status buildLaunches(Lowerer &lw, const Op &kernel, int kernelIndex, const std::vector<Op *> &ops,
                     const std::string &role) {
  return LaunchBuilder(lw, kernel, kernelIndex, ops, role).run();
}

} // namespace fp8c::codegen
