// Use lists, op creation and block/graph bookkeeping of the IR.
#include "ir/IR.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

namespace fp8c {

// --- Value ---------------------------------------------------------------------------------

void Value::removeUser(Op *op) {
  auto it = std::find(users_.begin(), users_.end(), op);
  assert(it != users_.end() && "removing a user that is not there");
  users_.erase(it);
}

void Value::replaceAllUsesWith(Value *other) {
  if (other == this)
    return;
  std::vector<Op *> users = users_;
  for (Op *user : users)
    for (unsigned i = 0; i < user->numOperands(); ++i)
      if (user->operand(i) == this)
        user->setOperand(i, other);
}

// --- Op ------------------------------------------------------------------------------------

std::unique_ptr<Op> Op::create(OpKind kind, std::span<Value *const> operands,
                               std::span<const TensorType> resultTypes, AttrDict attrs,
                               Location loc) {
  std::unique_ptr<Op> op(new Op(kind, std::move(loc)));
  for (Value *v : operands)
    op->addOperand(v);
  for (const TensorType &t : resultTypes)
    op->addResult(t);
  op->attrs_ = std::move(attrs);
  return op;
}

Op::~Op() {
  dropAllReferences();
  body_.reset();
}

void Op::setOperand(unsigned i, Value *v) {
  assert(v && "null operand");
  if (operands_[i] == v)
    return;
  if (operands_[i])
    operands_[i]->removeUser(this);
  operands_[i] = v;
  v->users_.push_back(this);
}

void Op::addOperand(Value *v) {
  assert(v && "null operand");
  operands_.push_back(v);
  v->users_.push_back(this);
}

void Op::eraseOperand(unsigned i) {
  operands_[i]->removeUser(this);
  operands_.erase(operands_.begin() + i);
}

void Op::dropAllReferences() {
  for (Value *&v : operands_)
    if (v) {
      v->removeUser(this);
      v = nullptr;
    }
  operands_.clear();
  if (body_)
    for (const auto &op : body_->ops())
      op->dropAllReferences();
}

std::vector<Value *> Op::results() const {
  std::vector<Value *> out;
  for (const auto &r : results_)
    out.push_back(r.get());
  return out;
}

Value *Op::addResult(TensorType t, std::string name) {
  std::unique_ptr<Value> v(new Value(std::move(t), std::move(name)));
  v->defOp_ = this;
  v->index_ = static_cast<unsigned>(results_.size());
  results_.push_back(std::move(v));
  return results_.back().get();
}

bool Op::hasUsedResults() const {
  for (const auto &r : results_)
    if (r->hasUses())
      return true;
  return false;
}

namespace {
const AttrSpec &specOf(const Op &op, std::string_view n) {
  const AttrSpec *spec = op.info().findAttr(n);
  if (!spec)
    throw std::logic_error("op " + std::string(op.name()) + " has no attribute " + std::string(n));
  return *spec;
}
} // namespace

std::string Op::strAttr(std::string_view n) const {
  if (const Attribute *a = attr(n); a && a->kind() == AttrKind::String)
    return a->asString();
  return std::string(specOf(*this, n).defaultValue);
}

std::string_view Op::deviceFn() const {
  const OpInfo &i = info();
  for (const DeviceFnSpec &v : i.deviceFnVariants)
    if (strAttr(v.attr) == v.value)
      return v.deviceFn;
  return i.deviceFn;
}

int64_t Op::intAttr(std::string_view n) const {
  if (const Attribute *a = attr(n); a && a->kind() == AttrKind::Int)
    return a->asInt();
  return std::stoll(std::string(specOf(*this, n).defaultValue));
}

bool Op::boolAttr(std::string_view n) const {
  if (const Attribute *a = attr(n); a && a->kind() == AttrKind::Bool)
    return a->asBool();
  return specOf(*this, n).defaultValue == "true";
}

DType Op::dtypeAttr(std::string_view n) const {
  if (const Attribute *a = attr(n); a && a->kind() == AttrKind::DType)
    return a->asDType();
  std::optional<DType> t = parseDType(specOf(*this, n).defaultValue);
  if (!t)
    throw std::logic_error("op " + std::string(name()) + " attribute " + std::string(n) +
                           " has no default");
  return *t;
}

Block &Op::createBody() {
  assert(!body_ && "op already has a region");
  body_ = std::make_unique<Block>(this, nullptr);
  return *body_;
}

Op *Op::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

// --- Block ---------------------------------------------------------------------------------

Block::~Block() {
  // Drop every use first so that ops can be destroyed in any order.
  for (const auto &op : ops_)
    op->dropAllReferences();
  ops_.clear();
}

Value *Block::addArgument(TensorType t, std::string name) {
  std::unique_ptr<Value> v(new Value(std::move(t), std::move(name)));
  v->ownerBlock_ = this;
  v->index_ = static_cast<unsigned>(args_.size());
  args_.push_back(std::move(v));
  return args_.back().get();
}

void Block::eraseArgument(unsigned i) {
  assert(!args_[i]->hasUses() && "erasing a used block argument");
  args_.erase(args_.begin() + i);
  for (unsigned j = i; j < args_.size(); ++j)
    args_[j]->index_ = j;
}

std::vector<Value *> Block::arguments() const {
  std::vector<Value *> out;
  for (const auto &a : args_)
    out.push_back(a.get());
  return out;
}

std::vector<Op *> Block::opList() const {
  std::vector<Op *> out;
  for (const auto &op : ops_)
    out.push_back(op.get());
  return out;
}

Op *Block::terminator() const {
  if (ops_.empty() || !ops_.back()->info().has(kTerminator))
    return nullptr;
  return ops_.back().get();
}

Op *Block::append(std::unique_ptr<Op> op) { return insert(nullptr, std::move(op)); }

Op *Block::insert(Op *before, std::unique_ptr<Op> op) {
  op->parent_ = this;
  Op *raw = op.get();
  if (!before) {
    ops_.push_back(std::move(op));
  } else {
    ops_.insert(ops_.begin() + static_cast<std::ptrdiff_t>(indexOf(before)), std::move(op));
  }
  return raw;
}

size_t Block::indexOf(const Op *op) const {
  for (size_t i = 0; i < ops_.size(); ++i)
    if (ops_[i].get() == op)
      return i;
  assert(false && "op is not in this block");
  return ops_.size();
}

std::unique_ptr<Op> Block::take(Op *op) {
  size_t i = indexOf(op);
  std::unique_ptr<Op> owned = std::move(ops_[i]);
  ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(i));
  owned->parent_ = nullptr;
  return owned;
}

void Block::erase(Op *op) {
  assert(!op->hasUsedResults() && "erasing an op whose results are used");
  std::unique_ptr<Op> owned = take(op);
  owned.reset();
}

// --- Graph / Module ------------------------------------------------------------------------

Value *Graph::addInput(TensorType t, std::string name, AttrDict attrs) {
  inputAttrs_.push_back(std::move(attrs));
  return body_.addArgument(std::move(t), std::move(name));
}

const AttrDict &Graph::inputAttrs(unsigned i) const {
  static const AttrDict empty;
  return i < inputAttrs_.size() ? inputAttrs_[i] : empty;
}

AttrDict &Graph::mutableInputAttrs(unsigned i) {
  if (inputAttrs_.size() < body_.numArguments())
    inputAttrs_.resize(body_.numArguments());
  return inputAttrs_[i];
}

void Graph::eraseInput(unsigned i) {
  if (inputAttrs_.size() < body_.numArguments())
    inputAttrs_.resize(body_.numArguments());
  body_.eraseArgument(i);
  inputAttrs_.erase(inputAttrs_.begin() + i);
}

void Graph::addResultType(TensorType t, AttrDict attrs) {
  resultTypes_.push_back(std::move(t));
  resultAttrs_.push_back(std::move(attrs));
}

Op *Graph::returnOp() const {
  Op *t = body_.terminator();
  return t && t->kind() == OpKind::Return ? t : nullptr;
}

std::vector<Value *> Graph::outputs() const {
  Op *ret = returnOp();
  if (!ret)
    return {};
  return std::vector<Value *>(ret->operands().begin(), ret->operands().end());
}

Graph *Module::lookup(std::string_view name) const {
  for (const auto &g : graphs_)
    if (g->name() == name)
      return g.get();
  return nullptr;
}

} // namespace fp8c
