// The verifier (rules in Verifier.h). One walk over a graph's body, descending into kernel
// regions, with a stack of scopes (the function body, then each enclosing kernel region) that
// records which values are defined so far. Each violated rule emits one located diagnostic and
// the walk goes on; checks that would only repeat an error already reported for the same op
// (type rules after a wrong operand count, a missing terminator after a misplaced one, the same
// outside value used twice in one kernel) are skipped.
#include "ir/Verifier.h"

#include "ir/KernelPlan.h"
#include "ir/TypeRules.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fp8c {
namespace {

/// `1 value`, `2 values`.
std::string countOf(size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// Names a value for a message: `%x` where it has a name hint, else what it is.
std::string describeValue(const Value *v) {
  if (!v->name().empty())
    return "%" + v->name();
  if (v->isBlockArgument()) {
    const Block *owner = v->ownerBlock();
    if (owner->parentGraph())
      return fmt::format("input #{}", v->index());
    if (const Op *op = owner->parentOp())
      return fmt::format("argument #{} of the region of '{}' at {}", v->index(), op->name(),
                         op->loc().str());
    return fmt::format("argument #{} of a detached block", v->index());
  }
  const Op *def = v->definingOp();
  return fmt::format("result #{} of '{}' at {}", v->index(), def->name(), def->loc().str());
}

/// The block a value belongs to: its owner for a block argument, its op's block for a result
/// (null for the result of a detached op).
const Block *blockOf(const Value *v) {
  return v->isBlockArgument() ? v->ownerBlock() : v->definingOp()->parentBlock();
}

/// Attributes that TypeRules reads; type rules are skipped when one of these is malformed, as
/// they would then only report the same mistake again.
constexpr std::string_view kTypeAttrs[] = {"granularity", "out"};

class Verifier {
public:
  Verifier(const Graph &g, DiagnosticEngine &diag) : g_(g), diag_(diag) {}

  bool run() {
    verifySignature();
    verifyBlock(g_.body(), nullptr);
    return ok_;
  }

private:
  void opError(const Op &op, const std::string &msg) {
    diag_.error(op.loc(), fmt::format("'{}' op {}", op.name(), msg));
    ok_ = false;
  }
  void funcError(const std::string &msg) {
    diag_.error(g_.loc(), msg);
    ok_ = false;
  }

  /// `input %x`, or `input #2` where it has no name.
  std::string inputDesc(unsigned i) const {
    const std::string &name = g_.input(i)->name();
    return name.empty() ? fmt::format("input #{}", i) : "input %" + name;
  }

  void verifySignature();
  void verifyStateAttrs(const AttrDict &attrs, const std::string &what,
                        std::map<std::string, std::vector<std::string>> &keys);
  void verifyStatePairs();
  void verifyBlock(const Block &b, const Op *kernel);
  void verifyOp(const Op &op, const Op *kernel);
  bool verifyCounts(const Op &op);
  void verifyOperandsDefined(const Op &op, const Op *kernel);
  void verifyTypes(const Op &op);
  void verifyReturn(const Op &ret);
  void verifyKernel(const Op &k);
  void verifyPlan(const Op &k);
  void verifyYield(const Op &yield, const Op &kernel);

  struct Scope {
    const Block *block;
    std::unordered_set<const Value *> defined;
  };

  const Graph &g_;
  DiagnosticEngine &diag_;
  bool ok_ = true;
  std::vector<Scope> scopes_;
  /// (kernel, outside value) pairs already reported, so each is reported once per kernel.
  std::set<std::pair<const Op *, const Value *>> reportedOutside_;
};

// --- function signature (rules 7, 8) -------------------------------------------------------

void Verifier::verifySignature() {
  for (unsigned i = 0; i < g_.numInputs(); ++i) {
    const TensorType &t = g_.input(i)->type();
    for (int64_t d = 1; d < t.rank(); ++d)
      if (t.isDynamicDim(d)) {
        funcError(
            fmt::format("{}: only the leading dim may be dynamic, got {}", inputDesc(i), t.str()));
        break;
      }
  }
  verifyStatePairs();
}

// Checks the `fp8.*` attributes of one input or result and records its state key.
void Verifier::verifyStateAttrs(const AttrDict &attrs, const std::string &what,
                                std::map<std::string, std::vector<std::string>> &keys) {
  for (const auto &[name, value] : attrs) {
    if (!name.starts_with("fp8."))
      continue;
    if (name == "fp8.param") {
      // A parameter (weights=static): the runtime may compute what depends only on
      // parameters once, at load.
      if (!what.starts_with("input"))
        funcError(fmt::format("{}: attribute 'fp8.param' applies to inputs only", what));
      else if (value.kind() != AttrKind::Bool)
        funcError(fmt::format("{}: attribute 'fp8.param' must be true or false, got {}", what,
                              value.str()));
      continue;
    }
    if (name == "fp8.grad" || name == "fp8.saved") {
      // Training (passes/Autodiff.cpp, passes/TrainingSplit.h): fp8.grad names the value whose
      // gradient this input / result is; fp8.saved names a tensor the forward graph saves
      // for the backward graph (a forward result, a backward input).
      if (value.kind() != AttrKind::String)
        funcError(fmt::format("{}: attribute '{}' must be a string, got {}", what, name,
                              value.str()));
      continue;
    }
    if (name != "fp8.state") {
      funcError(fmt::format(
          "{}: unknown attribute '{}' (known: fp8.grad, fp8.param, fp8.saved, fp8.state)", what,
          name));
      continue;
    }
    if (value.kind() != AttrKind::String) {
      funcError(
          fmt::format("{}: attribute 'fp8.state' must be a string key, got {}", what, value.str()));
      continue;
    }
    std::vector<std::string> &holders = keys[value.asString()];
    if (!holders.empty())
      funcError(fmt::format("{}: state key {} is already used by {}", what,
                            quoteString(value.asString()), holders.front()));
    holders.push_back(what);
  }
}

void Verifier::verifyStatePairs() {
  // key -> descriptions of the inputs / results that carry it, and the first one's type.
  std::map<std::string, std::vector<std::string>> inKeys, outKeys;
  std::map<std::string, TensorType> inTypes, outTypes;
  for (unsigned i = 0; i < g_.numInputs(); ++i) {
    std::string what = inputDesc(i);
    verifyStateAttrs(g_.inputAttrs(i), what, inKeys);
    if (const Attribute *a = g_.inputAttrs(i).get("fp8.state"); a && a->kind() == AttrKind::String)
      inTypes.emplace(a->asString(), g_.input(i)->type());
  }
  size_t numResults = std::min(g_.resultTypes().size(), g_.resultAttrs().size());
  for (size_t i = 0; i < numResults; ++i) {
    std::string what = fmt::format("result #{}", i);
    verifyStateAttrs(g_.resultAttrs()[i], what, outKeys);
    if (const Attribute *a = g_.resultAttrs()[i].get("fp8.state");
        a && a->kind() == AttrKind::String)
      outTypes.emplace(a->asString(), g_.resultTypes()[i]);
  }
  for (const auto &[key, holders] : inKeys) {
    auto out = outKeys.find(key);
    if (out == outKeys.end()) {
      funcError(fmt::format("{}: state key {} has no result with the same key", holders.front(),
                            quoteString(key)));
      continue;
    }
    const TensorType &ti = inTypes.at(key), &to = outTypes.at(key);
    if (ti != to)
      funcError(fmt::format("state key {}: {} has type {}, but {} has type {}", quoteString(key),
                            holders.front(), ti.str(), out->second.front(), to.str()));
  }
  for (const auto &[key, holders] : outKeys)
    if (!inKeys.count(key))
      funcError(fmt::format("{}: state key {} has no input with the same key", holders.front(),
                            quoteString(key)));
}

// --- blocks and placement of terminators (rules 5, 6) ----------------------------------------

// Verifies the ops of `b`, the function body (kernel == null) or the region of `kernel`.
void Verifier::verifyBlock(const Block &b, const Op *kernel) {
  Scope scope{&b, {}};
  for (unsigned i = 0; i < b.numArguments(); ++i)
    scope.defined.insert(b.argument(i));
  scopes_.push_back(std::move(scope)); // nested regions push more: use scopes_.back() below
  const size_t n = b.ops().size();
  for (size_t i = 0; i < n; ++i) {
    const Op &op = *b.ops()[i];
    const bool last = i + 1 == n;
    verifyOp(op, kernel);
    if (op.kind() == OpKind::Return) {
      if (kernel)
        opError(op, "cannot be used inside an 'fp8.kernel' region; end the region with "
                    "'fp8.yield'");
      else if (!last)
        opError(op, "must be the last op of the function body");
      else
        verifyReturn(op);
    } else if (op.kind() == OpKind::Yield) {
      if (!kernel || !last)
        opError(op, "must be the last op of an 'fp8.kernel' region");
      else
        verifyYield(op, *kernel);
    }
    for (unsigned r = 0; r < op.numResults(); ++r)
      scopes_.back().defined.insert(op.result(r));
  }
  // A misplaced terminator at the end was reported above; only a missing one is reported here.
  const Op *end = n ? b.ops().back().get() : nullptr;
  if (!end || !end->info().has(kTerminator)) {
    if (kernel)
      opError(*kernel, "region must end with 'fp8.yield'");
    else
      funcError(fmt::format("function @{} must end with 'func.return'", g_.name()));
  }
  scopes_.pop_back();
}

void Verifier::verifyOp(const Op &op, const Op *kernel) {
  const bool wantsRegion = op.info().has(kHasRegion);
  if (wantsRegion && !op.body())
    opError(op, "must have a region");
  else if (!wantsRegion && op.body())
    opError(op, "must not have a region");
  if (op.kind() == OpKind::Kernel && kernel)
    opError(op, "cannot be nested inside another 'fp8.kernel'");
  if (!kernel && op.attr(kOpRoleAttr))
    opError(op, fmt::format("attribute '{}' applies to ops of an 'fp8.kernel' region only",
                            kOpRoleAttr));

  const bool countsOk = verifyCounts(op);
  bool typeAttrsOk = true;
  if (std::string e = checkAttributes(op.kind(), op.attrs()); !e.empty()) {
    opError(op, e);
    for (std::string_view name : kTypeAttrs)
      if (const Attribute *a = op.attr(name); a && op.info().findAttr(name)) {
        AttrDict one;
        one.set(std::string(name), *a);
        typeAttrsOk = typeAttrsOk && checkAttributes(op.kind(), one).empty();
      }
  }
  verifyOperandsDefined(op, kernel);
  if (countsOk && typeAttrsOk)
    verifyTypes(op);
  if (op.kind() == OpKind::Kernel && op.body())
    verifyKernel(op);
}

// --- per-op rules (1, 3, 4) ----------------------------------------------------------------

bool Verifier::verifyCounts(const Op &op) {
  const OpInfo &info = op.info();
  bool ok = true;
  const int operands = static_cast<int>(op.numOperands());
  if (operands < info.minOperands || (info.maxOperands >= 0 && operands > info.maxOperands)) {
    opError(op, fmt::format("takes {}, got {}", operandCountStr(info), operands));
    ok = false;
  }
  const int results = static_cast<int>(op.numResults());
  if (info.numResults >= 0 && results != info.numResults) {
    opError(op, info.numResults == 0
                    ? fmt::format("has no results, got {}", results)
                    : fmt::format("has {}, got {}", countOf(info.numResults, "result"), results));
    ok = false;
  }
  return ok;
}

// Each operand must be defined earlier in the op's block or an enclosing one; inside a kernel
// region, only by the region itself (kernels are isolated from above).
void Verifier::verifyOperandsDefined(const Op &op, const Op *kernel) {
  std::unordered_set<const Value *> seen;
  const Scope &here = scopes_.back();
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    const Value *v = op.operand(i);
    if (!seen.insert(v).second)
      continue;
    const Block *owner = blockOf(v);
    if (owner == here.block) {
      if (!here.defined.count(v))
        opError(op,
                fmt::format("operand #{} ({}) is used before it is defined", i, describeValue(v)));
      continue;
    }
    bool enclosing = false;
    for (const Scope &s : scopes_)
      enclosing = enclosing || s.block == owner;
    if (enclosing && kernel) {
      if (reportedOutside_.insert({kernel, v}).second)
        opError(*kernel, fmt::format("region uses {}, defined outside the kernel; pass it as an "
                                     "operand",
                                     describeValue(v)));
    } else {
      opError(op, fmt::format("operand #{} ({}) is not defined in its block or an enclosing one", i,
                              describeValue(v)));
    }
  }
}

void Verifier::verifyTypes(const Op &op) {
  if (op.kind() == OpKind::Kernel || op.kind() == OpKind::Yield || op.kind() == OpKind::Return)
    return;
  std::vector<TensorType> types;
  for (const Value *v : op.operands())
    types.push_back(v->type());
  const TensorType &declared = op.result()->type();
  Expected<TensorType> inferred = inferResultType(op.kind(), types, op.attrs(), declared.dtype());
  if (!inferred)
    opError(op, inferred.error());
  else if (*inferred != declared)
    opError(op, fmt::format("result type {} does not match the inferred type {}", declared.str(),
                            inferred->str()));
}

// --- terminators and kernels (rules 5, 6) --------------------------------------------------

void Verifier::verifyReturn(const Op &ret) {
  const std::vector<TensorType> &want = g_.resultTypes();
  if (ret.numOperands() != want.size()) {
    opError(ret, fmt::format("has {}, but @{} returns {}", countOf(ret.numOperands(), "operand"),
                             g_.name(), countOf(want.size(), "value")));
    return;
  }
  for (unsigned i = 0; i < ret.numOperands(); ++i)
    if (ret.operand(i)->type() != want[i])
      opError(ret, fmt::format("type of operand #{} is {}, but result #{} of @{} is {}", i,
                               ret.operand(i)->type().str(), i, g_.name(), want[i].str()));
}

void Verifier::verifyKernel(const Op &k) {
  const Block &body = *k.body();
  if (body.numArguments() != k.numOperands()) {
    opError(k, fmt::format("region has {}, but the kernel has {}",
                           countOf(body.numArguments(), "argument"),
                           countOf(k.numOperands(), "operand")));
  } else {
    for (unsigned i = 0; i < k.numOperands(); ++i)
      if (body.argument(i)->type() != k.operand(i)->type())
        opError(k, fmt::format("region argument #{} has type {}, but operand #{} has type {}", i,
                               body.argument(i)->type().str(), i, k.operand(i)->type().str()));
  }
  verifyBlock(body, &k);
  verifyPlan(k);
}

void Verifier::verifyPlan(const Op &k) {
  const Block &body = *k.body();
  std::vector<const Op *> ops;
  std::map<const Op *, size_t> index;
  std::vector<KernelPlanOp> plan;
  for (const auto &op : body.ops()) {
    if (op->info().has(kTerminator))
      continue;
    KernelPlanOp p{op->kind(), op->attr(kOpRoleAttr), {}, ""};
    for (const Value *v : op->operands())
      if (auto it = index.find(v->definingOp()); it != index.end())
        p.uses.push_back(it->second);
    p.name = op->numResults() ? describeValue(op->result(0)) : std::string(op->name());
    index[op.get()] = ops.size();
    ops.push_back(op.get());
    plan.push_back(std::move(p));
  }
  for (const KernelPlanError &e : checkKernelPlan(k.attrs(), plan))
    opError(e.op ? *ops[*e.op] : k, e.message);
}

void Verifier::verifyYield(const Op &yield, const Op &kernel) {
  if (yield.numOperands() != kernel.numResults()) {
    opError(yield,
            fmt::format("has {}, but the kernel has {}", countOf(yield.numOperands(), "operand"),
                        countOf(kernel.numResults(), "result")));
    return;
  }
  for (unsigned i = 0; i < yield.numOperands(); ++i)
    if (yield.operand(i)->type() != kernel.result(i)->type())
      opError(yield,
              fmt::format("type of operand #{} is {}, but result #{} of the kernel is {}", i,
                          yield.operand(i)->type().str(), i, kernel.result(i)->type().str()));
}

} // namespace

bool verifyGraph(const Graph &g, DiagnosticEngine &diag) { return Verifier(g, diag).run(); }

bool verifyModule(const Module &m, DiagnosticEngine &diag) {
  bool ok = true;
  std::map<std::string, const Graph *> seen;
  for (const auto &g : m.graphs()) {
    auto [it, inserted] = seen.emplace(g->name(), g.get());
    if (!inserted) {
      const Location &first = it->second->loc();
      diag.error(g->loc(), fmt::format("redefinition of function @{}{}", g->name(),
                                       first.isKnown() ? " (first defined at " + first.str() + ")"
                                                       : std::string()));
      ok = false;
    }
    ok = verifyGraph(*g, diag) && ok;
  }
  return ok;
}

} // namespace fp8c
