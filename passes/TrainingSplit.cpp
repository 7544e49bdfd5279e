// splitTrainingGraph (TrainingSplit.h): classify the top-level ops of a training graph as
// forward or backward, choose the saved tensors, and build the two graphs by cloning.
#include "passes/TrainingSplit.h"

#include "ir/Clone.h"
#include "ir/DType.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace fp8c {
namespace {

std::string attrStr(const AttrDict &a, std::string_view name) {
  const Attribute *v = a.get(name);
  return v && v->kind() == AttrKind::String ? v->asString() : "";
}

int64_t bytesOf(const TensorType &t) {
  int64_t n = 1;
  for (int64_t d : t.shape())
    n *= d == kDynamic ? 1 : d;
  return n * dtypeInfo(t.dtype()).bits / 8;
}

void appendReturn(Graph &g, const std::vector<Value *> &values, const Location &loc) {
  g.body().append(Op::create(OpKind::Return, values, {}, {}, loc));
}

class Splitter {
public:
  explicit Splitter(const Graph &g) : g_(g) {}

  Expected<TrainingGraphs> run() {
    const Op *ret = g_.returnOp();
    if (!ret)
      return Error("@" + g_.name() + " has no func.return");
    bool anyGrad = false;
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (g_.inputAttrs(i).has("fp8.grad")) {
        anyGrad = true;
        gradDep_.insert(g_.input(i));
      }
    if (!anyGrad)
      return Error("@" + g_.name() + " has no gradient inputs: run `autodiff` first");
    std::vector<const Op *> ops;
    for (const auto &op : g_.body().ops())
      if (op.get() != ret)
        ops.push_back(op.get());
    for (const Op *op : ops)
      for (Value *v : op->operands())
        if (gradDep_.count(v)) {
          for (Value *r : op->results())
            gradDep_.insert(r);
          break;
        }
    // Forward outputs: non-gradient results that do not depend on a gradient.
    for (unsigned i = 0; i < ret->numOperands(); ++i) {
      const AttrDict &attrs = resultAttrs(i);
      Value *v = ret->operand(i);
      bool forward = !attrs.has("fp8.grad") && !gradDep_.count(v);
      if (!forward && !attrs.has("fp8.grad") && !attrs.has("fp8.state"))
        return Error(fmt::format("@{}: result #{} is not a gradient but depends on one", g_.name(),
                                 i));
      (forward ? fwdResults_ : bwdResults_).push_back(i);
      if (forward)
        addSlice(v);
    }
    // Hoist FP8 tensors of forward values into the forward (TrainingSplit.h).
    for (const Op *op : ops)
      if (!fwd_.count(op) && !gradDep_.count(op->result(0)) && op->numResults() == 1 &&
          isFloat8(op->result()->type().dtype()))
        addSlice(op->result());
    for (const Op *op : ops)
      (fwd_.count(op) ? fwdOps_ : bwdOps_).push_back(op);
    return build(*ret);
  }

private:
  const AttrDict &resultAttrs(unsigned i) const {
    static const AttrDict kEmpty;
    return i < g_.resultAttrs().size() ? g_.resultAttrs()[i] : kEmpty;
  }

  void addSlice(Value *v) {
    const Op *def = v->definingOp();
    if (!def || fwd_.count(def))
      return;
    fwd_.insert(def);
    for (Value *o : def->operands())
      addSlice(o);
  }

  bool isInput(const Value *v) const {
    return v->isBlockArgument() && v->ownerBlock() == &g_.body();
  }

  Expected<TrainingGraphs> build(const Op &ret) {
    TrainingGraphs out;
    out.forward = std::make_unique<Graph>(g_.name() + "_fwd", g_.loc());
    out.backward = std::make_unique<Graph>(g_.name() + "_bwd", g_.loc());
    // Which half updates each state.
    std::map<std::string, bool> stateInBackward;
    for (unsigned i : bwdResults_)
      if (std::string k = attrStr(resultAttrs(i), "fp8.state"); !k.empty())
        stateInBackward[k] = true;
    // Values the backward reads that it does not compute: saved tensors and shared inputs.
    std::set<const Op *> bwdSet(bwdOps_.begin(), bwdOps_.end());
    std::vector<Value *> crossing;
    std::set<Value *> seen;
    auto noteUse = [&](Value *v) {
      bool fromForward = isInput(v) ? !isBackwardInput(v, stateInBackward)
                                    : fwd_.count(v->definingOp()) != 0;
      if (fromForward && seen.insert(v).second)
        crossing.push_back(v);
    };
    for (const Op *op : bwdOps_)
      for (Value *v : op->operands())
        noteUse(v);
    for (unsigned i : bwdResults_)
      noteUse(ret.operand(i));

    // Forward graph: the forward inputs, the forward ops, outputs then saved tensors.
    ValueMap fmap, bmap;
    for (unsigned i = 0; i < g_.numInputs(); ++i) {
      Value *x = g_.input(i);
      if (isBackwardInput(x, stateInBackward))
        continue;
      fmap[x] = out.forward->addInput(x->type(), x->name(), g_.inputAttrs(i));
    }
    for (const Op *op : fwdOps_)
      cloneOpInto(*op, out.forward->body(), fmap);
    std::vector<Value *> fwdReturn;
    for (unsigned i : fwdResults_) {
      fwdReturn.push_back(fmap.at(ret.operand(i)));
      out.forward->addResultType(g_.resultTypes()[i], resultAttrs(i));
    }
    // Backward inputs: saved tensors and shared inputs first, then the gradient and backward
    // state inputs in their order.
    std::set<std::string> keys;
    for (Value *v : crossing) {
      if (isInput(v)) {
        unsigned i = v->index();
        for (const auto &[name, value] : g_.inputAttrs(i))
          if (name == "fp8.state")
            return Error(fmt::format("@{}: state input %{} is read by both the forward and the "
                                     "backward",
                                     g_.name(), v->name()));
        bmap[v] = out.backward->addInput(v->type(), v->name(), g_.inputAttrs(i));
        out.sharedInputs.push_back({v->name(), v->type()});
        continue;
      }
      std::string key = v->name().empty() ? "saved" : v->name();
      for (int n = 1; !keys.insert(key).second; ++n)
        key = (v->name().empty() ? "saved" : v->name()) + "_" + std::to_string(n);
      AttrDict attrs;
      attrs.set("fp8.saved", Attribute(key));
      fwdReturn.push_back(fmap.at(v));
      out.forward->addResultType(v->type(), attrs);
      bmap[v] = out.backward->addInput(v->type(), key, attrs);
      out.saved.push_back({key, v->type()});
    }
    appendReturn(*out.forward, fwdReturn, ret.loc());
    for (unsigned i = 0; i < g_.numInputs(); ++i) {
      Value *x = g_.input(i);
      if (isBackwardInput(x, stateInBackward))
        bmap[x] = out.backward->addInput(x->type(), x->name(), g_.inputAttrs(i));
    }
    for (const Op *op : bwdOps_)
      cloneOpInto(*op, out.backward->body(), bmap);
    std::vector<Value *> bwdReturn;
    for (unsigned i : bwdResults_) {
      bwdReturn.push_back(bmap.at(ret.operand(i)));
      out.backward->addResultType(g_.resultTypes()[i], resultAttrs(i));
    }
    appendReturn(*out.backward, bwdReturn, ret.loc());
    return out;
  }

  // Gradient inputs and the inputs of states that the backward updates.
  bool isBackwardInput(const Value *x, const std::map<std::string, bool> &stateInBackward) const {
    const AttrDict &a = g_.inputAttrs(x->index());
    if (a.has("fp8.grad"))
      return true;
    std::string k = attrStr(a, "fp8.state");
    return !k.empty() && stateInBackward.count(k);
  }

  const Graph &g_;
  std::set<const Value *> gradDep_;
  std::set<const Op *> fwd_;
  std::vector<const Op *> fwdOps_, bwdOps_;
  std::vector<unsigned> fwdResults_, bwdResults_;
};

} // namespace

int64_t TrainingGraphs::savedBytes() const {
  int64_t n = 0;
  for (const SavedTensor &t : saved)
    n += bytesOf(t.type);
  for (const SavedTensor &t : sharedInputs)
    n += bytesOf(t.type);
  return n;
}

Expected<TrainingGraphs> splitTrainingGraph(const Graph &train) { return Splitter(train).run(); }

} // namespace fp8c
