// MLIR module <-> fp8c Module (see Translate.h). Both directions walk the ops in order,
// descending into kernel regions; MLIR -> fp8c first creates every op and value of a function
// and then links operands, so that it reads unverified IR (a use before its definition)
// without special cases and leaves the verdict to fp8c's verifier.
#include "dialects/fp8/Translate.h"

#include "dialects/fp8/Fp8Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

namespace fp8c::fp8 {
namespace {

constexpr std::string_view kSupported =
    "fp8c's IR holds func.func, func.return and fp8 ops (run --fp8c-import first to bring in "
    "linalg.matmul, linalg.matmul_transpose_b and arith.addf of a broadcast bias)";

// --- MLIR -> fp8c --------------------------------------------------------------------------

class ToFp8c {
public:
  explicit ToFp8c(DiagnosticEngine &diag) : diag_(diag) {}
  std::unique_ptr<Module> run(mlir::ModuleOp module);

private:
  /// fp8c location of `loc`, sharing one file-name string per file.
  Location loc(mlir::Location loc);
  bool error(mlir::Location at, std::string message) {
    diag_.error(loc(at), std::move(message));
    return false;
  }
  std::optional<TensorType> tensorType(mlir::Type t, mlir::Location at, const std::string &what);
  bool attrs(mlir::DictionaryAttr dict, mlir::Location at, const std::string &what, AttrDict &out);
  bool function(mlir::func::FuncOp func, Module &m);
  bool block(mlir::Block &from, Block &to);
  bool link();

  DiagnosticEngine &diag_;
  std::map<std::string, std::shared_ptr<const std::string>, std::less<>> files_;
  llvm::DenseMap<mlir::Value, Value *> values_;
  std::vector<std::pair<mlir::Operation *, Op *>> ops_;
};

Location ToFp8c::loc(mlir::Location l) {
  Location out = toFp8cLocation(l);
  if (!out.isKnown())
    return out;
  auto it = files_.find(*out.file);
  if (it == files_.end())
    it = files_.emplace(*out.file, out.file).first;
  out.file = it->second;
  return out;
}

std::optional<TensorType> ToFp8c::tensorType(mlir::Type t, mlir::Location at,
                                             const std::string &what) {
  std::optional<TensorType> tt = toTensorType(t);
  if (!tt)
    error(at, fmt::format("{} has type {}, which is not a tensor of f32, f16, bf16, f8E4M3FN, "
                          "f8E5M2 or i32",
                          what, typeStr(t)));
  return tt;
}

bool ToFp8c::attrs(mlir::DictionaryAttr dict, mlir::Location at, const std::string &what,
                   AttrDict &out) {
  Expected<AttrDict> d = toAttrDict(dict);
  if (!d)
    return error(at, fmt::format("{}: {}", what, d.error()));
  out = d.take();
  return true;
}

bool ToFp8c::function(mlir::func::FuncOp func, Module &m) {
  auto g = std::make_unique<Graph>(func.getSymName().str(), loc(func.getLoc()));
  const std::string where = fmt::format("@{}", func.getSymName().str());
  mlir::FunctionType type = func.getFunctionType();
  bool ok = true;
  mlir::Region &body = func.getBody();
  if (!body.empty() && !body.hasOneBlock())
    return error(func.getLoc(), fmt::format("function {} has {} blocks; fp8c's functions have one",
                                            where, body.getBlocks().size()));
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    std::optional<TensorType> t =
        tensorType(type.getInput(i), func.getLoc(), fmt::format("input #{} of {}", i, where));
    AttrDict a;
    ok =
        attrs(func.getArgAttrDict(i), func.getLoc(), fmt::format("input #{} of {}", i, where), a) &&
        ok;
    if (!t)
      return false;
    std::string name = body.empty() ? "" : getValueName(body.getArgument(i));
    Value *in = g->addInput(*t, name, std::move(a));
    if (!body.empty())
      values_[body.getArgument(i)] = in;
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    std::optional<TensorType> t =
        tensorType(type.getResult(i), func.getLoc(), fmt::format("result #{} of {}", i, where));
    AttrDict a;
    ok = attrs(func.getResultAttrDict(i), func.getLoc(), fmt::format("result #{} of {}", i, where),
               a) &&
         ok;
    if (!t)
      return false;
    g->addResultType(*t, std::move(a));
  }
  // A body-less func.func (MLIR reads `{}` as none) becomes an empty body, which fp8c's
  // verifier rejects as fp8c's parser would.
  if (!body.empty())
    ok = block(body.front(), g->body()) && ok;
  m.add(std::move(g));
  return ok;
}

// Creates the ops of `from` (and their regions) in `to`, without operands.
bool ToFp8c::block(mlir::Block &from, Block &to) {
  bool ok = true;
  for (mlir::Operation &op : from) {
    std::optional<OpKind> kind = opKindOf(&op);
    if (!kind) {
      ok = error(op.getLoc(), fmt::format("unsupported op '{}': {}",
                                          op.getName().getStringRef().str(), kSupported));
      continue;
    }
    std::vector<TensorType> resultTypes;
    for (auto [i, r] : llvm::enumerate(op.getResults()))
      if (std::optional<TensorType> t =
              tensorType(r.getType(), op.getLoc(),
                         fmt::format("result #{} of '{}'", i, op.getName().getStringRef().str())))
        resultTypes.push_back(*t);
      else
        ok = false;
    AttrDict a;
    if (!attrs(op.getAttrDictionary(), op.getLoc(),
               fmt::format("'{}'", op.getName().getStringRef().str()), a) ||
        resultTypes.size() != op.getNumResults()) {
      ok = false;
      continue;
    }
    Op *created = to.append(Op::create(*kind, {}, resultTypes, std::move(a), loc(op.getLoc())));
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      created->result(static_cast<unsigned>(i))->setName(getValueName(r));
      values_[r] = created->result(static_cast<unsigned>(i));
    }
    ops_.emplace_back(&op, created);
    if (op.getNumRegions() == 0 || op.getRegion(0).empty())
      continue;
    mlir::Region &region = op.getRegion(0);
    if (!region.hasOneBlock()) {
      ok = error(op.getLoc(),
                 fmt::format("'{}' has a region of {} blocks; fp8c's regions have "
                             "one",
                             op.getName().getStringRef().str(), region.getBlocks().size()));
      continue;
    }
    Block &body = created->createBody();
    for (mlir::BlockArgument arg : region.front().getArguments()) {
      std::optional<TensorType> t =
          tensorType(arg.getType(), op.getLoc(),
                     fmt::format("region argument #{} of '{}'", arg.getArgNumber(),
                                 op.getName().getStringRef().str()));
      if (!t) {
        ok = false;
        continue;
      }
      values_[arg] = body.addArgument(*t, getValueName(arg));
    }
    ok = block(region.front(), body) && ok;
  }
  return ok;
}

bool ToFp8c::link() {
  bool ok = true;
  for (auto [from, to] : ops_)
    for (mlir::Value v : from->getOperands()) {
      auto it = values_.find(v);
      if (it == values_.end()) {
        ok = error(from->getLoc(), fmt::format("'{}' uses a value that cannot be translated",
                                               from->getName().getStringRef().str()));
        break;
      }
      to->addOperand(it->second);
    }
  return ok;
}

std::unique_ptr<Module> ToFp8c::run(mlir::ModuleOp module) {
  auto m = std::make_unique<Module>();
  bool ok = true;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    if (auto func = llvm::dyn_cast<mlir::func::FuncOp>(op))
      ok = function(func, *m) && ok;
    else
      ok = error(op.getLoc(), fmt::format("unsupported op '{}': {}",
                                          op.getName().getStringRef().str(), kSupported));
  }
  ok = ok && link();
  return ok ? std::move(m) : nullptr;
}

// --- fp8c -> MLIR --------------------------------------------------------------------------

class FromFp8c {
public:
  FromFp8c(mlir::MLIRContext *ctx, DiagnosticEngine &diag) : ctx_(ctx), b_(ctx), diag_(diag) {}
  mlir::OwningOpRef<mlir::ModuleOp> run(const Module &m);

private:
  bool block(const Block &from, mlir::Block &to);
  /// Names a block argument and locates it at `at`.
  void argument(const Value *from, mlir::BlockArgument to, mlir::Location at) {
    to.setLoc(at);
    setValueName(to, from->name());
    values_[from] = to;
  }

  mlir::MLIRContext *ctx_;
  mlir::OpBuilder b_;
  DiagnosticEngine &diag_;
  std::unordered_map<const Value *, mlir::Value> values_;
};

bool FromFp8c::block(const Block &from, mlir::Block &to) {
  for (const auto &op : from.ops()) {
    b_.setInsertionPointToEnd(&to);
    const mlir::Location at = toMlirLocation(op->loc(), ctx_);
    llvm::SmallVector<mlir::Value> operands;
    for (const Value *v : op->operands()) {
      auto it = values_.find(v);
      if (it == values_.end()) {
        diag_.error(op->loc(),
                    fmt::format("'{}' op uses a value before its definition", op->name()));
        return false;
      }
      operands.push_back(it->second);
    }
    mlir::OperationState state(at, op->name());
    state.addOperands(operands);
    std::vector<std::string> names;
    for (const Value *r : op->results()) {
      state.addTypes(toMlirType(r->type(), ctx_));
      names.push_back(r->name());
    }
    state.location = withResultNames(at, names);
    for (const auto &[name, value] : op->attrs())
      state.addAttribute(name, toMlirAttribute(value, ctx_));
    if (op->kind() == OpKind::Kernel)
      state.addRegion();
    mlir::Operation *created = b_.create(state);
    for (unsigned i = 0; i < op->numResults(); ++i)
      values_[op->result(i)] = created->getResult(i);
    if (const Block *body = op->body()) {
      mlir::Block *inner = new mlir::Block();
      created->getRegion(0).push_back(inner);
      for (const Value *arg : body->arguments())
        argument(arg, inner->addArgument(toMlirType(arg->type(), ctx_), at), at);
      if (!block(*body, *inner))
        return false;
    }
  }
  return true;
}

mlir::OwningOpRef<mlir::ModuleOp> FromFp8c::run(const Module &m) {
  ctx_->getOrLoadDialect<Fp8Dialect>();
  ctx_->getOrLoadDialect<mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(b_.getUnknownLoc());
  for (const auto &g : m.graphs()) {
    b_.setInsertionPointToEnd(module->getBody());
    const mlir::Location at = toMlirLocation(g->loc(), ctx_);
    llvm::SmallVector<mlir::Type> inputs, results;
    for (const Value *in : g->body().arguments())
      inputs.push_back(toMlirType(in->type(), ctx_));
    for (const TensorType &t : g->resultTypes())
      results.push_back(toMlirType(t, ctx_));
    auto func = b_.create<mlir::func::FuncOp>(at, g->name(), b_.getFunctionType(inputs, results));
    for (unsigned i = 0; i < g->numInputs(); ++i)
      if (!g->inputAttrs(i).empty())
        func.setArgAttrs(i, toMlirDict(g->inputAttrs(i), ctx_));
    for (size_t i = 0; i < g->resultAttrs().size() && i < results.size(); ++i)
      if (!g->resultAttrs()[i].empty())
        func.setResultAttrs(static_cast<unsigned>(i), toMlirDict(g->resultAttrs()[i], ctx_));
    mlir::Block *entry = func.addEntryBlock();
    for (unsigned i = 0; i < g->numInputs(); ++i)
      argument(g->input(i), entry->getArgument(i), at);
    if (!block(g->body(), *entry))
      return nullptr;
  }
  return module;
}

} // namespace

std::unique_ptr<Module> translateToFp8c(mlir::ModuleOp module, DiagnosticEngine &diag) {
  return ToFp8c(diag).run(module);
}

mlir::OwningOpRef<mlir::ModuleOp> translateFromFp8c(const Module &m, mlir::MLIRContext *ctx,
                                                    DiagnosticEngine &diag) {
  return FromFp8c(ctx, diag).run(m);
}

} // namespace fp8c::fp8
