// The fp8 ops' verifier: fp8c's rules (ir/Verifier.h) with fp8c's messages, on MLIR ops.
// Type and attribute rules are not restated here: they come from ir/TypeRules (checkAttributes,
// inferResultType) and ir/Ops.def, exactly as fp8c's verifier calls them, so both parsers
// reject the same ops with the same message.
//
// MLIR verifies an op before the ops of its regions, so fp8.kernel checks its whole region
// here (arguments, fp8.yield, func.return inside it, values from outside); the ops inside are
// then verified by their own verifiers. The function-level rules that need the whole function
// (fp8.state pairs, dynamic dims of inputs) are fp8c's verifier's, run on the translated graph
// (the fp8c-verify pass, Passes.h); func.func and func.return are upstream ops with their own
// verifiers.
#include "dialects/fp8/Fp8Dialect.h"

#include "ir/KernelPlan.h"
#include "ir/TypeRules.h"

#include <fmt/format.h>

#include <set>

namespace fp8c::fp8 {
namespace {

/// `1 value`, `2 values`.
std::string countOf(size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

bool isFuncFunc(mlir::Operation *op) { return op && op->getName().getStringRef() == "func.func"; }
bool isReturn(mlir::Operation *op) { return op->getName().getStringRef() == "func.return"; }
bool isTerminatorKind(mlir::Operation *op) {
  std::optional<OpKind> k = opKindOf(op);
  return k && opInfo(*k).has(kTerminator);
}

/// Names a value for a message, as fp8c's verifier does: `%x`, or what it is.
std::string describeValue(mlir::Value v) {
  if (std::string name = getValueName(v); !name.empty())
    return "%" + name;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    if (isFuncFunc(arg.getOwner()->getParentOp()))
      return fmt::format("input #{}", arg.getArgNumber());
    return fmt::format("argument #{} of a kernel region", arg.getArgNumber());
  }
  auto res = llvm::cast<mlir::OpResult>(v);
  return fmt::format("result #{} of '{}' at {}", res.getResultNumber(),
                     res.getOwner()->getName().getStringRef().str(),
                     locationStr(res.getOwner()->getLoc()));
}

/// Attributes that TypeRules reads (as in ir/Verifier.cpp): type rules are skipped when one of
/// them is malformed, as they would only report the same mistake again.
constexpr std::string_view kTypeAttrs[] = {"granularity", "out"};

class OpVerifier {
public:
  explicit OpVerifier(mlir::Operation *op) : op_(op), kind_(*opKindOf(op)), info_(opInfo(kind_)) {}

  mlir::LogicalResult run();

private:
  void error(mlir::Operation *at, const std::string &msg) {
    at->emitOpError(msg);
    ok_ = false;
  }
  void error(const std::string &msg) { error(op_, msg); }
  bool verifyCounts();
  bool verifyAttributes(AttrDict &attrs);
  void verifyTypes(const AttrDict &attrs);
  void verifyKernelRegion();
  void verifyPlan(const AttrDict &attrs);
  void verifyYield(mlir::Operation *yield);
  void verifyPlacement();

  mlir::Operation *op_;
  OpKind kind_;
  const OpInfo &info_;
  bool ok_ = true;
};

mlir::LogicalResult OpVerifier::run() {
  const bool hasBody = op_->getNumRegions() > 0 && !op_->getRegion(0).empty();
  if (info_.has(kHasRegion) && !hasBody)
    error("must have a region");
  if (kind_ == OpKind::Kernel && op_->getParentOfType<KernelOp>())
    error("cannot be nested inside another 'fp8.kernel'");
  const bool countsOk = verifyCounts();
  AttrDict attrs;
  const bool typeAttrsOk = verifyAttributes(attrs);
  if (countsOk && typeAttrsOk && !info_.has(kHasRegion) && !info_.has(kTerminator))
    verifyTypes(attrs);
  if (kind_ == OpKind::Kernel && hasBody) {
    verifyKernelRegion();
    verifyPlan(attrs);
  }
  verifyPlacement();
  return mlir::success(ok_);
}

bool OpVerifier::verifyCounts() {
  bool ok = true;
  const int operands = static_cast<int>(op_->getNumOperands());
  if (operands < info_.minOperands || (info_.maxOperands >= 0 && operands > info_.maxOperands)) {
    error(fmt::format("takes {}, got {}", operandCountStr(info_), operands));
    ok = false;
  }
  const int results = static_cast<int>(op_->getNumResults());
  if (info_.numResults >= 0 && results != info_.numResults) {
    error(info_.numResults == 0
              ? fmt::format("has no results, got {}", results)
              : fmt::format("has {}, got {}", countOf(info_.numResults, "result"), results));
    ok = false;
  }
  return ok;
}

// Converts the attribute dictionary and checks it against Ops.def; false when an attribute
// that the type rules read is malformed.
bool OpVerifier::verifyAttributes(AttrDict &attrs) {
  for (mlir::NamedAttribute a : op_->getAttrs()) {
    Expected<Attribute> v = toFp8cAttribute(a.getValue());
    if (!v) {
      error(fmt::format("attribute '{}': {}", a.getName().str(), v.error()));
      return false;
    }
    attrs.set(a.getName().str(), v.take());
  }
  std::string e = checkAttributes(kind_, attrs);
  if (e.empty())
    return true;
  error(e);
  bool typeAttrsOk = true;
  for (std::string_view name : kTypeAttrs)
    if (const Attribute *a = attrs.get(name); a && info_.findAttr(name)) {
      AttrDict one;
      one.set(std::string(name), *a);
      typeAttrsOk = typeAttrsOk && checkAttributes(kind_, one).empty();
    }
  return typeAttrsOk;
}

void OpVerifier::verifyTypes(const AttrDict &attrs) {
  std::vector<TensorType> types;
  for (auto [i, t] : llvm::enumerate(op_->getOperandTypes())) {
    std::optional<TensorType> tt = toTensorType(t);
    if (!tt)
      return error(fmt::format("operand #{} has type {}, which is not a tensor of f32, f16, "
                               "bf16, f8E4M3FN, f8E5M2 or i32",
                               i, typeStr(t)));
    types.push_back(*tt);
  }
  mlir::Type resultType = op_->getResult(0).getType();
  std::optional<TensorType> declared = toTensorType(resultType);
  if (!declared)
    return error(fmt::format("result has type {}, which is not a tensor of f32, f16, bf16, "
                             "f8E4M3FN, f8E5M2 or i32",
                             typeStr(resultType)));
  Expected<TensorType> inferred = inferResultType(kind_, types, attrs, declared->dtype());
  if (!inferred)
    error(inferred.error());
  else if (*inferred != *declared)
    error(fmt::format("result type {} does not match the inferred type {}", declared->str(),
                      inferred->str()));
}

// Rule 6 (ir/Verifier.h) for the region of an fp8.kernel.
void OpVerifier::verifyKernelRegion() {
  mlir::Region &region = op_->getRegion(0);
  if (!region.hasOneBlock())
    return error(fmt::format("region must have one block, got {}", region.getBlocks().size()));
  mlir::Block &body = region.front();
  if (body.getNumArguments() != op_->getNumOperands()) {
    error(fmt::format("region has {}, but the kernel has {}",
                      countOf(body.getNumArguments(), "argument"),
                      countOf(op_->getNumOperands(), "operand")));
  } else {
    for (unsigned i = 0; i < op_->getNumOperands(); ++i)
      if (body.getArgument(i).getType() != op_->getOperand(i).getType())
        error(fmt::format("region argument #{} has type {}, but operand #{} has type {}", i,
                          typeStr(body.getArgument(i).getType()), i,
                          typeStr(op_->getOperand(i).getType())));
  }
  std::set<void *> reported;
  for (mlir::Operation &inner : body) {
    inner.walk([&](mlir::Operation *o) {
      for (mlir::Value v : o->getOperands())
        if (!region.isAncestor(v.getParentRegion()) &&
            reported.insert(v.getAsOpaquePointer()).second)
          error(fmt::format("region uses {}, defined outside the kernel; pass it as an operand",
                            describeValue(v)));
    });
    const bool last = &inner == &body.back();
    if (isReturn(&inner))
      error(&inner, "cannot be used inside an 'fp8.kernel' region; end the region with "
                    "'fp8.yield'");
    else if (llvm::isa<YieldOp>(inner) && !last)
      error(&inner, "must be the last op of an 'fp8.kernel' region");
    else if (llvm::isa<YieldOp>(inner))
      verifyYield(&inner);
  }
  if (body.empty() || !isTerminatorKind(&body.back()))
    error("region must end with 'fp8.yield'");
}

// The kernel's fusion plan (checkKernelPlan, as fp8c's verifier runs it).
void OpVerifier::verifyPlan(const AttrDict &attrs) {
  mlir::Region &region = op_->getRegion(0);
  if (!region.hasOneBlock())
    return;
  std::vector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, size_t> index;
  std::vector<KernelPlanOp> plan;
  std::vector<Attribute> roles; // converted role attributes, which `plan` points into
  roles.reserve(region.front().getOperations().size());
  for (mlir::Operation &inner : region.front()) {
    std::optional<OpKind> k = opKindOf(&inner);
    if (!k || opInfo(*k).has(kTerminator))
      continue;
    KernelPlanOp p{*k, nullptr, {}, ""};
    if (mlir::Attribute a = inner.getAttr(kOpRoleAttr)) {
      Expected<Attribute> v = toFp8cAttribute(a);
      if (!v)
        continue; // reported by the op's own verifier
      roles.push_back(v.take());
      p.role = &roles.back();
    }
    for (mlir::Value v : inner.getOperands())
      if (auto it = index.find(v.getDefiningOp()); it != index.end())
        p.uses.push_back(it->second);
    p.name = inner.getNumResults() ? describeValue(inner.getResult(0))
                                   : inner.getName().getStringRef().str();
    index[&inner] = ops.size();
    ops.push_back(&inner);
    plan.push_back(std::move(p));
  }
  for (const KernelPlanError &e : checkKernelPlan(attrs, plan))
    error(e.op ? ops[*e.op] : op_, e.message);
}

void OpVerifier::verifyYield(mlir::Operation *yield) {
  if (yield->getNumOperands() != op_->getNumResults())
    return error(yield, fmt::format("has {}, but the kernel has {}",
                                    countOf(yield->getNumOperands(), "operand"),
                                    countOf(op_->getNumResults(), "result")));
  for (unsigned i = 0; i < yield->getNumOperands(); ++i)
    if (yield->getOperand(i).getType() != op_->getResult(i).getType())
      error(yield, fmt::format("type of operand #{} is {}, but result #{} of the kernel is {}", i,
                               typeStr(yield->getOperand(i).getType()), i,
                               typeStr(op_->getResult(i).getType())));
}

// Where an op stands in a function body: fp8.yield only ends kernel regions (the kernel checks
// those), and a body whose last op is an fp8 op does not end in func.return.
void OpVerifier::verifyPlacement() {
  mlir::Operation *parent = op_->getParentOp();
  if (op_->hasAttr(kOpRoleAttr) && !llvm::isa_and_nonnull<KernelOp>(parent))
    error(fmt::format("attribute '{}' applies to ops of an 'fp8.kernel' region only",
                      kOpRoleAttr));
  if (kind_ == OpKind::Yield && !llvm::isa_and_nonnull<KernelOp>(parent))
    return error("must be the last op of an 'fp8.kernel' region");
  if (!isFuncFunc(parent) || op_ != &op_->getBlock()->back() || kind_ == OpKind::Yield)
    return;
  auto name = parent->getAttrOfType<mlir::StringAttr>("sym_name");
  mlir::emitError(parent->getLoc(), fmt::format("function @{} must end with 'func.return'",
                                                name ? name.str() : std::string("?")));
  ok_ = false;
}

} // namespace

mlir::LogicalResult verifyFp8Op(mlir::Operation *op) { return OpVerifier(op).run(); }

} // namespace fp8c::fp8
