// `autodiff`: reverse-mode differentiation of a forward graph, in place. The graph becomes the
// training graph: its forward ops unchanged, then the backward ops, with
//   - one new input per (non-state) output y: `%y_grad {fp8.grad = "y"}`, the gradient of the
//     loss with respect to y, of y's type (a value returned twice gets keys "y" and "y_1");
//   - one new result per (non-state) input x that an output depends on: the gradient of x,
//     of x's type, marked `{fp8.grad = "x"}` (inputs no output depends on get none).
// Rules (y = op result, dy its gradient; contributions to one value are summed with fp8.add):
//   linear x, w[, b] (x 2-D)   dx = linear(dy, transpose(w))            (dgrad = dY · W)
//                              dw = linear(transpose(dy), transpose(x)) (wgrad = dYᵀ · X)
//                              db = col_sum(dy)
//   matmul a, b                da = linear(dy, b); db = linear(transpose(a), transpose(dy))
//   add / mul                  dy / dy·other (an operand broadcast from rank 0 gets no gradient:
//                              an error when it would need one)
//   relu / gelu / silu         relu_grad / gelu_grad {approximate} / silu_grad (dy, x)
//   swiglu a, b                swiglu_grad {wrt = "gate"} (dy, a, b), {wrt = "up"} (dy, a, b)
//   convert, transpose         convert(dy) to x's dtype, transpose(dy)
// Every GEMM of the backward is an fp8.linear, so `quantize` rewrites it like a forward one
// (with the operands' roles told apart by the fp8.grad inputs, see Quantize.cpp). Quantization
// and fused ops cannot be differentiated: run autodiff before quantize and fuse.
// The training graph is split into a forward and a backward graph by passes/TrainingSplit.h.
#include "passes/Passes.h"

#include "ir/Builder.h"

#include <map>
#include <set>

namespace fp8c {
namespace {

class Differentiator {
public:
  Differentiator(Graph &g, DiagnosticEngine &diag) : g_(g), diag_(diag) {}

  bool run() {
    Op *ret = g_.returnOp();
    if (!ret) {
      diag_.error(g_.loc(), "autodiff: @" + g_.name() + " has no func.return");
      return false;
    }
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (g_.inputAttrs(i).has("fp8.grad")) {
        diag_.error(g_.loc(), "autodiff: @" + g_.name() +
                                  " already has gradient inputs (was autodiff run twice?)");
        return false;
      }
    std::vector<Op *> forward = g_.body().opList();
    forward.pop_back(); // func.return
    markDependents(forward);
    OpBuilder b(g_.body(), ret);
    b_ = &b;
    // Seed: one gradient input per non-state output. Its key is the output's name, made unique
    // (`y`, `y_1`) where one value is returned twice: the runtime binds gradients by key.
    std::vector<Value *> outs = g_.outputs();
    std::set<std::string> keys;
    for (unsigned i = 0; i < outs.size(); ++i) {
      if (isStateResult(i))
        continue;
      std::string name = outs[i]->name().empty() ? "result" + std::to_string(i) : outs[i]->name();
      std::string key = name;
      for (int n = 1; !keys.insert(key).second; ++n)
        key = name + "_" + std::to_string(n);
      AttrDict attrs;
      attrs.set("fp8.grad", Attribute(key));
      Value *dy = g_.addInput(g_.resultTypes()[i], name + "_grad", attrs);
      if (depends_.count(outs[i]))
        accumulate(outs[i], dy, ret->loc());
    }
    for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
      Op *op = *it;
      if (op->numResults() != 1 || !adjoint_.count(op->result()))
        continue;
      if (!differentiate(op))
        return false;
    }
    // Results: the gradients of the inputs, in input order.
    unsigned numForwardInputs = g_.numInputs();
    for (unsigned i = 0; i < numForwardInputs; ++i) {
      Value *x = g_.input(i);
      if (g_.inputAttrs(i).has("fp8.grad") || g_.inputAttrs(i).has("fp8.state"))
        continue;
      auto a = adjoint_.find(x);
      if (a == adjoint_.end())
        continue;
      std::string name = x->name().empty() ? "input" + std::to_string(i) : x->name();
      ret->addOperand(a->second);
      AttrDict attrs;
      attrs.set("fp8.grad", Attribute(name));
      g_.addResultType(a->second->type(), attrs);
    }
    return true;
  }

private:
  bool isStateResult(unsigned i) const {
    return i < g_.resultAttrs().size() && g_.resultAttrs()[i].has("fp8.state");
  }

  // depends_: values that depend on a differentiable (non-state, float) input.
  void markDependents(const std::vector<Op *> &ops) {
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (!g_.inputAttrs(i).has("fp8.state") && isFloat(g_.input(i)->type().dtype()))
        depends_.insert(g_.input(i));
    for (Op *op : ops)
      for (Value *v : op->operands())
        if (depends_.count(v)) {
          for (Value *r : op->results())
            depends_.insert(r);
          break;
        }
  }

  static std::string gradName(const Value *v) {
    return (v->name().empty() ? std::string("v") : v->name()) + "_grad";
  }

  Value *make(OpKind kind, std::vector<Value *> operands, AttrDict attrs, const Location &loc,
              std::string name, std::optional<DType> dt = std::nullopt) {
    Expected<Value *> v = b_->createInferred(kind, operands, std::move(attrs), loc, dt, name);
    if (!v) {
      diag_.error(loc, "autodiff: " + v.error());
      return nullptr;
    }
    return *v;
  }

  Value *transposeOf(Value *v, const Location &loc) {
    auto it = transposes_.find(v);
    if (it != transposes_.end())
      return it->second;
    Value *t = make(OpKind::Transpose, {v}, {}, loc, (v->name().empty() ? "v" : v->name()) + "_t");
    if (t)
      transposes_[v] = t;
    return t;
  }

  // Adds `g` to the gradient of `v` (only for values that depend on a differentiable input).
  bool accumulate(Value *v, Value *g, const Location &loc) {
    if (!g)
      return false;
    if (!depends_.count(v))
      return true;
    auto it = adjoint_.find(v);
    if (it == adjoint_.end()) {
      adjoint_[v] = g;
      return true;
    }
    Value *sum = make(OpKind::Add, {it->second, g}, {}, loc, gradName(v));
    if (!sum)
      return false;
    it->second = sum;
    return true;
  }

  bool needs(Value *v) const { return depends_.count(v) != 0; }

  bool unsupported(Op *op, const std::string &why) {
    diag_.error(op->loc(), "autodiff: cannot differentiate '" + std::string(op->name()) + "': " +
                               why);
    return false;
  }

  bool differentiate(Op *op) {
    Value *dy = adjoint_.at(op->result());
    const Location &loc = op->loc();
    auto operand = [&](unsigned i) { return op->operand(i); };
    switch (op->kind()) {
    case OpKind::Linear: {
      Value *x = operand(0), *w = operand(1);
      if (x->type().rank() != 2)
        return unsupported(op, "training needs a 2-D input [M, K], got " + x->type().str() +
                                   "; flatten the leading dims first");
      if (needs(x) &&
          !accumulate(x, make(OpKind::Linear, {dy, transposeOf(w, loc)}, {}, loc, gradName(x)),
                      loc))
        return false;
      if (needs(w) && !accumulate(w,
                                  make(OpKind::Linear, {transposeOf(dy, loc), transposeOf(x, loc)},
                                       {}, loc, gradName(w)),
                                  loc))
        return false;
      if (op->numOperands() == 3 && needs(operand(2)) &&
          !accumulate(operand(2), make(OpKind::ColSum, {dy}, {}, loc, gradName(operand(2))), loc))
        return false;
      return true;
    }
    case OpKind::Matmul: {
      Value *a = operand(0), *bm = operand(1);
      if (needs(a) && !accumulate(a, make(OpKind::Linear, {dy, bm}, {}, loc, gradName(a)), loc))
        return false;
      if (needs(bm) &&
          !accumulate(bm,
                      make(OpKind::Linear, {transposeOf(a, loc), transposeOf(dy, loc)}, {}, loc,
                           gradName(bm)),
                      loc))
        return false;
      return true;
    }
    case OpKind::Add:
    case OpKind::Mul:
      for (unsigned i = 0; i < 2; ++i) {
        Value *x = operand(i), *other = operand(1 - i);
        if (!needs(x))
          continue;
        if (x->type().isScalar() && !other->type().isScalar())
          return unsupported(op, "operand #" + std::to_string(i) +
                                     " is broadcast from rank 0 and needs a gradient (a full "
                                     "reduction, not supported)");
        Value *g = op->kind() == OpKind::Add
                       ? dy
                       : make(OpKind::Mul, {dy, other}, {}, loc, gradName(x));
        if (!accumulate(x, g, loc))
          return false;
      }
      return true;
    case OpKind::Relu:
      return accumulate(operand(0), make(OpKind::ReluGrad, {dy, operand(0)}, {}, loc,
                                         gradName(operand(0))),
                        loc);
    case OpKind::Gelu: {
      AttrDict attrs;
      if (const Attribute *a = op->attr("approximate"))
        attrs.set("approximate", *a);
      return accumulate(operand(0),
                        make(OpKind::GeluGrad, {dy, operand(0)}, std::move(attrs), loc,
                             gradName(operand(0))),
                        loc);
    }
    case OpKind::Silu:
      return accumulate(operand(0), make(OpKind::SiluGrad, {dy, operand(0)}, {}, loc,
                                         gradName(operand(0))),
                        loc);
    case OpKind::Swiglu:
      for (unsigned i = 0; i < 2; ++i) {
        if (!needs(operand(i)))
          continue;
        AttrDict attrs;
        attrs.set("wrt", Attribute(std::string(i == 0 ? "gate" : "up")));
        if (!accumulate(operand(i),
                        make(OpKind::SwigluGrad, {dy, operand(0), operand(1)}, std::move(attrs),
                             loc, gradName(operand(i))),
                        loc))
          return false;
      }
      return true;
    case OpKind::Convert:
      return accumulate(operand(0),
                        make(OpKind::Convert, {dy}, {}, loc, gradName(operand(0)),
                             operand(0)->type().dtype()),
                        loc);
    case OpKind::Transpose:
      return accumulate(operand(0), make(OpKind::Transpose, {dy}, {}, loc, gradName(operand(0))),
                        loc);
    default:
      return unsupported(op, "quantization, state and fused ops have no gradient here; run "
                             "autodiff before quantize and fuse");
    }
  }

  Graph &g_;
  DiagnosticEngine &diag_;
  OpBuilder *b_ = nullptr;
  std::set<const Value *> depends_;
  std::map<Value *, Value *> adjoint_;
  std::map<Value *, Value *> transposes_;
};

class AutodiffPass : public Pass {
public:
  std::string_view name() const override { return "autodiff"; }
  bool run(Graph &g, PassContext &ctx) override { return Differentiator(g, ctx.diag).run(); }
};

} // namespace

std::unique_ptr<Pass> createAutodiffPass() { return std::make_unique<AutodiffPass>(); }

} // namespace fp8c
