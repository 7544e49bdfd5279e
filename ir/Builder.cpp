// OpBuilder and the GraphBuilder capture API.
#include "ir/Builder.h"

#include <fmt/format.h>

namespace fp8c {

Location locationOf(const SourceLocation &where) {
  return Location::make(where.file_name(), where.line(), where.column() ? where.column() : 1);
}

// --- OpBuilder -----------------------------------------------------------------------------

Op *OpBuilder::create(OpKind kind, std::span<Value *const> operands,
                      std::span<const TensorType> resultTypes, AttrDict attrs, Location loc) {
  return block_->insert(before_, Op::create(kind, operands, resultTypes, std::move(attrs),
                                            std::move(loc)));
}

Expected<Value *> OpBuilder::createInferred(OpKind kind, std::span<Value *const> operands,
                                            AttrDict attrs, Location loc,
                                            std::optional<DType> resultDType, std::string name) {
  if (std::string e = checkAttributes(kind, attrs); !e.empty())
    return Error(std::string(opName(kind)) + ": " + e);
  std::vector<TensorType> types;
  for (Value *v : operands)
    types.push_back(v->type());
  Expected<TensorType> t = inferResultType(kind, types, attrs, resultDType);
  if (!t)
    return Error(std::string(opName(kind)) + ": " + t.error());
  TensorType rt = *t;
  Op *op = create(kind, operands, std::span<const TensorType>(&rt, 1), std::move(attrs),
                  std::move(loc));
  op->result()->setName(std::move(name));
  return op->result();
}

// --- GraphBuilder --------------------------------------------------------------------------

GraphBuilder::GraphBuilder(std::string name, Where where)
    : graph_(std::make_unique<Graph>(std::move(name), locationOf(where))) {}

bool GraphBuilder::fail(const Location &loc, const std::string &message) {
  if (!error_)
    error_ = loc.str() + ": error: " + message;
  return false;
}

Value *GraphBuilder::input(std::string name, TensorType type, Where where) {
  if (!graph_)
    return nullptr;
  for (int64_t i = 1; i < type.rank(); ++i)
    if (type.isDynamicDim(i)) {
      fail(locationOf(where), fmt::format("input '{}': only the leading dim may be dynamic, "
                                          "got {}",
                                          name, type.str()));
      return nullptr;
    }
  return graph_->addInput(std::move(type), std::move(name));
}

Value *GraphBuilder::stateInput(std::string key, TensorType type, Where where) {
  Value *v = input(key, std::move(type), where);
  if (v)
    graph_->mutableInputAttrs(v->index()).set("fp8.state", Attribute(key));
  return v;
}

Value *GraphBuilder::op(OpKind kind, std::vector<Value *> operands, AttrDict attrs,
                        std::optional<DType> resultDType, std::string name, Where where) {
  if (!graph_ || error_)
    return nullptr;
  for (Value *v : operands)
    if (!v) {
      fail(locationOf(where), fmt::format("{}: an operand is null", opName(kind)));
      return nullptr;
    }
  OpBuilder ob(graph_->body());
  Expected<Value *> v = ob.createInferred(kind, operands, std::move(attrs), locationOf(where),
                                          resultDType, std::move(name));
  if (!v) {
    fail(locationOf(where), v.error());
    return nullptr;
  }
  return *v;
}

Value *GraphBuilder::linear(Value *x, Value *w, Value *bias, std::string name, Where where) {
  std::vector<Value *> ops = {x, w};
  if (bias)
    ops.push_back(bias);
  return op(OpKind::Linear, ops, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::matmul(Value *a, Value *b, std::string name, Where where) {
  return op(OpKind::Matmul, {a, b}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::add(Value *a, Value *b, std::string name, Where where) {
  return op(OpKind::Add, {a, b}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::mul(Value *a, Value *b, std::string name, Where where) {
  return op(OpKind::Mul, {a, b}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::relu(Value *x, std::string name, Where where) {
  return op(OpKind::Relu, {x}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::gelu(Value *x, std::string approximate, std::string name, Where where) {
  AttrDict attrs;
  attrs.set("approximate", Attribute(std::move(approximate)));
  return op(OpKind::Gelu, {x}, std::move(attrs), std::nullopt, std::move(name), where);
}

Value *GraphBuilder::silu(Value *x, std::string name, Where where) {
  return op(OpKind::Silu, {x}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::swiglu(Value *gate, Value *up, std::string name, Where where) {
  return op(OpKind::Swiglu, {gate, up}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::convert(Value *x, DType to, std::string name, Where where) {
  return op(OpKind::Convert, {x}, {}, to, std::move(name), where);
}

Value *GraphBuilder::transpose(Value *x, std::string name, Where where) {
  return op(OpKind::Transpose, {x}, {}, std::nullopt, std::move(name), where);
}

Value *GraphBuilder::amax(Value *x, Granularity g, std::string name, Where where) {
  AttrDict attrs;
  attrs.set("granularity", Attribute(std::string(granularityName(g))));
  return op(OpKind::Amax, {x}, std::move(attrs), std::nullopt, std::move(name), where);
}

Value *GraphBuilder::scale(Value *amax, DType fp8, int64_t margin, bool pow2, std::string name,
                           Where where) {
  AttrDict attrs;
  attrs.set("dtype", Attribute(fp8));
  attrs.set("margin", Attribute(margin));
  attrs.set("pow2", Attribute(pow2));
  return op(OpKind::Scale, {amax}, std::move(attrs), std::nullopt, std::move(name), where);
}

Value *GraphBuilder::cast(Value *x, Value *s, DType fp8, Granularity g, std::string name,
                          Where where) {
  AttrDict attrs;
  attrs.set("granularity", Attribute(std::string(granularityName(g))));
  return op(OpKind::Cast, {x, s}, std::move(attrs), fp8, std::move(name), where);
}

Value *GraphBuilder::dequant(Value *q, Value *s, DType to, Granularity g, std::string name,
                             Where where) {
  AttrDict attrs;
  attrs.set("granularity", Attribute(std::string(granularityName(g))));
  return op(OpKind::Dequant, {q, s}, std::move(attrs), to, std::move(name), where);
}

Value *GraphBuilder::scaledMatmul(Value *a8, Value *b8, Value *sa, Value *sb, Value *bias,
                                  DType out, bool fastAccum, std::string name, Where where) {
  std::vector<Value *> ops = {a8, b8, sa, sb};
  if (bias)
    ops.push_back(bias);
  AttrDict attrs;
  attrs.set("out", Attribute(out));
  attrs.set("fast_accum", Attribute(fastAccum));
  return op(OpKind::ScaledMatmul, ops, std::move(attrs), out, std::move(name), where);
}

Value *GraphBuilder::historyScale(Value *history, std::string algo, DType fp8, int64_t margin,
                                  std::string name, Where where) {
  AttrDict attrs;
  attrs.set("algo", Attribute(std::move(algo)));
  attrs.set("dtype", Attribute(fp8));
  attrs.set("margin", Attribute(margin));
  return op(OpKind::HistoryScale, {history}, std::move(attrs), std::nullopt, std::move(name),
            where);
}

Value *GraphBuilder::historyPush(Value *history, Value *amax, std::string name, Where where) {
  return op(OpKind::HistoryPush, {history, amax}, {}, std::nullopt, std::move(name), where);
}

void GraphBuilder::output(Value *v, Where where) {
  if (!v) {
    fail(locationOf(where), "output: the value is null");
    return;
  }
  outputs_.push_back(v);
  outputAttrs_.emplace_back();
}

void GraphBuilder::stateOutput(std::string key, Value *v, Where where) {
  output(v, where);
  if (v)
    outputAttrs_.back().set("fp8.state", Attribute(std::move(key)));
}

Expected<std::unique_ptr<Graph>> GraphBuilder::finish(Where where) {
  if (!graph_)
    return Error("GraphBuilder::finish called twice");
  if (error_)
    return Error(*error_);
  if (outputs_.empty())
    return Error(locationOf(where).str() + ": error: graph '" + graph_->name() +
                 "' has no outputs");
  std::vector<TensorType> none;
  OpBuilder(graph_->body()).create(OpKind::Return, outputs_, none, {}, locationOf(where));
  for (size_t i = 0; i < outputs_.size(); ++i)
    graph_->addResultType(outputs_[i]->type(), outputAttrs_[i]);
  return std::move(graph_);
}

} // namespace fp8c
