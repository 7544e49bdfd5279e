// The CPU interpreter's driver: checks the inputs against the graph's signature, binds dynamic
// dims and checks every op's concrete operand types with TypeRules (a pre-pass over types only,
// so a mismatch is reported before any arithmetic), then executes the ops in order, running a
// kernel op's region with its block arguments bound to the kernel's operands. A value's buffer
// is released after its last use. The per-op arithmetic lives in the *Ops.cpp files beside it.
#include "interp/Interpreter.h"

#include "ir/TypeRules.h"
#include "interp/InterpOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <thread>
#include <unordered_map>

namespace fp8c {
namespace {

std::string inputLabel(const Graph &g, unsigned i) {
  const std::string &n = g.input(i)->name();
  return n.empty() ? fmt::format("input #{}", i) : fmt::format("input '{}' (#{})", n, i);
}

std::string opError(const Op &op, const std::string &msg) {
  return fmt::format("{}: error: '{}' op {}", op.loc().str(), op.name(), msg);
}

// "result %y" (or "the result" when unnamed), for messages about a value.
std::string valueLabel(const Value *v) {
  return v->name().empty() ? std::string("the result") : "result %" + v->name();
}

bool compatible(const TensorType &declared, const TensorType &actual) {
  return declared.dtype() == actual.dtype() && shapesCompatible(declared.shape(), actual.shape());
}

// First element of `t` not representable in its dtype, or -1. Checked in parallel chunks.
int64_t firstUnrepresentable(const HostTensor &t, unsigned threads) {
  const int64_t n = static_cast<int64_t>(t.data.size());
  std::atomic<int64_t> first{n};
  const unsigned useThreads = n < (1 << 20) ? 1u : threads;
  interp::parallelFor(n, useThreads, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e && i < first.load(std::memory_order_relaxed); ++i)
      if (!isRepresentable(t.data[static_cast<size_t>(i)], t.dtype)) {
        int64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
  });
  return first.load() == n ? -1 : first.load();
}

Status checkInputsImpl(const Graph &g, std::span<const HostTensor> inputs, unsigned threads) {
  if (inputs.size() != g.numInputs()) {
    std::string names;
    for (unsigned i = 0; i < g.numInputs(); ++i)
      names += (i ? ", " : "") +
               (g.input(i)->name().empty() ? "#" + std::to_string(i) : g.input(i)->name());
    return Error(fmt::format("'@{}' takes {} input{} ({}), got {}", g.name(), g.numInputs(),
                             g.numInputs() == 1 ? "" : "s", names, inputs.size()));
  }
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const TensorType &want = g.input(i)->type();
    const HostTensor &t = inputs[i];
    if (t.dtype != want.dtype())
      return Error(fmt::format("{}: expected dtype {}, got {}", inputLabel(g, i),
                               dtypeName(want.dtype()), dtypeName(t.dtype)));
    bool shapeOk = t.rank() == want.rank();
    for (size_t d = 0; shapeOk && d < t.shape.size(); ++d)
      shapeOk = t.shape[d] >= 0 && (want.isDynamicDim(static_cast<int64_t>(d)) ||
                                    want.dim(static_cast<int64_t>(d)) == t.shape[d]);
    if (!shapeOk)
      return Error(fmt::format("{}: expected shape {}, got {}", inputLabel(g, i),
                               shapeString(want.shape()), shapeString(t.shape)));
    const int64_t n = t.numElements();
    if (static_cast<int64_t>(t.data.size()) != n)
      return Error(fmt::format("{}: shape {} has {} elements, but {} values were given",
                               inputLabel(g, i), shapeString(t.shape), n, t.data.size()));
    if (int64_t bad = firstUnrepresentable(t, threads); bad >= 0)
      return Error(fmt::format("{}: element {} ({:.9g}) is not a {} value", inputLabel(g, i), bad,
                               t.data[static_cast<size_t>(bad)], dtypeName(t.dtype)));
  }
  return Status::ok();
}

class Runner {
public:
  Runner(const Graph &g, std::span<const HostTensor> inputs, unsigned threads,
         NonFiniteReport *report)
      : g_(g), inputs_(inputs), threads_(threads), report_(report) {}

  Expected<std::vector<HostTensor>> run() {
    for (unsigned i = 0; i < g_.numInputs(); ++i) {
      types_[g_.input(i)] = inputs_[i].type();
      values_[g_.input(i)] = &inputs_[i];
    }
    if (Status s = inferBlock(g_.body()); !s)
      return Error(s.message());
    const Op *ret = g_.body().empty() ? nullptr : g_.body().ops().back().get();
    if (!ret || ret->kind() != OpKind::Return)
      return Error(fmt::format("'@{}' does not end in func.return", g_.name()));
    if (ret->numOperands() != g_.resultTypes().size())
      return Error(opError(*ret, fmt::format("returns {} values; the signature has {}",
                                             ret->numOperands(), g_.resultTypes().size())));
    for (unsigned i = 0; i < ret->numOperands(); ++i)
      if (!compatible(g_.resultTypes()[i], types_[ret->operand(i)]))
        return Error(
            opError(*ret, fmt::format("result #{} has type {}; the signature says {}", i,
                                      types_[ret->operand(i)].str(), g_.resultTypes()[i].str()) +
                              bindingNote()));
    if (Status s = runBlock(g_.body()); !s)
      return Error(s.message());
    std::vector<HostTensor> outs = takeOperands(*ret);
    if (report_)
      for (size_t i = 0; i < outs.size(); ++i) {
        const std::string &n = ret->operand(static_cast<unsigned>(i))->name();
        report_->outputs.push_back(
            {n.empty() ? fmt::format("output{}", i) : n, countNonFinite(outs[i])});
      }
    return outs;
  }

private:
  // The history an fp8.history_push updates: its operand traced through kernel regions to a
  // graph input; that input's fp8.state key, else its name, else the operand's name.
  std::string historyKey(const Op &push) const {
    const Value *v = push.operand(0);
    while (v->isBlockArgument() && v->ownerBlock()->parentOp())
      v = v->ownerBlock()->parentOp()->operand(v->index());
    if (v->isBlockArgument() && v->ownerBlock() == &g_.body()) {
      if (const Attribute *a = g_.inputAttrs(v->index()).get("fp8.state");
          a && a->kind() == AttrKind::String)
        return a->asString();
    }
    return v->name();
  }

  // " (dynamic dims bound by the inputs: 'x' (#0) = [3, 4])", or "" when no input is dynamic.
  std::string bindingNote() const {
    std::string s;
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (g_.input(i)->type().hasDynamicDim())
        s += (s.empty() ? "" : ", ") + inputLabel(g_, i) + " = " + shapeString(inputs_[i].shape);
    return s.empty() ? s : " (dynamic dims bound by the inputs: " + s + ")";
  }

  // Concrete types of every value of `b` (its arguments already typed), checked by TypeRules.
  Status inferBlock(const Block &b) {
    for (const auto &opPtr : b.ops()) {
      const Op &op = *opPtr;
      std::vector<TensorType> operandTypes;
      for (unsigned i = 0; i < op.numOperands(); ++i) {
        auto it = types_.find(op.operand(i));
        if (it == types_.end())
          return Error(opError(op, fmt::format("operand #{} is not defined before its use", i)));
        operandTypes.push_back(it->second);
      }
      if (op.kind() == OpKind::Return || op.kind() == OpKind::Yield) {
        if (opPtr != b.ops().back())
          return Error(opError(op, "must be the last op of its block"));
        continue;
      }
      if (op.kind() == OpKind::Kernel) {
        if (Status s = inferKernel(op, operandTypes); !s)
          return s;
        continue;
      }
      if (op.body())
        return Error(opError(op, "has a region, which only fp8.kernel may have"));
      if (op.numResults() != 1)
        return Error(opError(op, fmt::format("has {} results; expected 1", op.numResults())));
      if (std::string e = checkAttributes(op.kind(), op.attrs()); !e.empty())
        return Error(opError(op, e));
      const TensorType &declared = op.result()->type();
      Expected<TensorType> t =
          inferResultType(op.kind(), operandTypes, op.attrs(), declared.dtype());
      if (!t)
        return Error(opError(op, t.error() + bindingNote()));
      if (!compatible(declared, *t))
        return Error(opError(op, fmt::format("result type {} does not match the operands, "
                                             "which give {}{}",
                                             declared.str(), t->str(), bindingNote())));
      // Every result is allocated: a shape too large to hold is an error naming it, before
      // anything runs.
      if (std::string e = hostTensorSizeError(t->shape()); !e.empty())
        return Error(opError(op, valueLabel(op.result()) + " " + e + bindingNote()));
      types_[op.result()] = *t;
    }
    return Status::ok();
  }

  Status inferKernel(const Op &op, const std::vector<TensorType> &operandTypes) {
    const Block *body = op.body();
    if (!body)
      return Error(opError(op, "has no region"));
    if (body->numArguments() != op.numOperands())
      return Error(opError(op, fmt::format("region has {} arguments for {} operands",
                                           body->numArguments(), op.numOperands())));
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      if (!compatible(body->argument(i)->type(), operandTypes[i]))
        return Error(
            opError(op, fmt::format("region argument #{} has type {}; operand is {}", i,
                                    body->argument(i)->type().str(), operandTypes[i].str())));
      types_[body->argument(i)] = operandTypes[i];
    }
    if (Status s = inferBlock(*body); !s)
      return s;
    const Op *yield = body->empty() ? nullptr : body->ops().back().get();
    if (!yield || yield->kind() != OpKind::Yield || yield->numOperands() != op.numResults())
      return Error(opError(op, "region must end in fp8.yield of its results"));
    for (unsigned i = 0; i < op.numResults(); ++i) {
      const TensorType &t = types_[yield->operand(i)];
      if (!compatible(op.result(i)->type(), t))
        return Error(opError(op, fmt::format("result #{} has type {}; the region yields {}", i,
                                             op.result(i)->type().str(), t.str())));
      types_[op.result(i)] = t;
    }
    return Status::ok();
  }

  void define(const Value *v, std::unique_ptr<HostTensor> t) {
    if (!v->hasUses())
      return;
    values_[v] = t.get();
    remaining_[v] = v->numUses();
    owned_[v] = std::move(t);
  }

  // One use of v is over; releases v's buffer after its last use. Returns the buffer when
  // this was the last use of an owned value (so the caller may take it), else null.
  std::unique_ptr<HostTensor> release(const Value *v) {
    auto it = remaining_.find(v);
    if (it == remaining_.end() || --it->second > 0)
      return nullptr;
    remaining_.erase(it);
    auto o = owned_.find(v);
    if (o == owned_.end())
      return nullptr;
    std::unique_ptr<HostTensor> t = std::move(o->second);
    owned_.erase(o);
    values_.erase(v);
    return t;
  }

  // The values a terminator passes on, moved where this was their last use, copied otherwise.
  std::vector<HostTensor> takeOperands(const Op &term) {
    std::vector<HostTensor> out;
    for (unsigned i = 0; i < term.numOperands(); ++i) {
      const HostTensor *v = values_.at(term.operand(i));
      if (std::unique_ptr<HostTensor> t = release(term.operand(i)))
        out.push_back(std::move(*t));
      else
        out.push_back(*v);
    }
    return out;
  }

  Status runBlock(const Block &b) {
    for (const auto &opPtr : b.ops()) {
      const Op &op = *opPtr;
      if (op.kind() == OpKind::Return || op.kind() == OpKind::Yield)
        return Status::ok(); // the caller takes the operands
      if (op.kind() == OpKind::Kernel) {
        const Block &body = *op.body();
        for (unsigned i = 0; i < op.numOperands(); ++i) {
          values_[body.argument(i)] = values_.at(op.operand(i));
          remaining_[body.argument(i)] = body.argument(i)->numUses();
        }
        if (Status s = runBlock(body); !s)
          return s;
        std::vector<HostTensor> results = takeOperands(*body.terminator());
        for (unsigned i = 0; i < op.numResults(); ++i)
          define(op.result(i), std::make_unique<HostTensor>(std::move(results[i])));
        for (unsigned i = 0; i < body.numArguments(); ++i) {
          values_.erase(body.argument(i));
          remaining_.erase(body.argument(i));
        }
      } else {
        interp::OpContext ctx{op, {}, types_.at(op.result()), threads_};
        for (unsigned i = 0; i < op.numOperands(); ++i)
          ctx.args.push_back(values_.at(op.operand(i)));
        Expected<HostTensor> r = execute(ctx);
        if (!r)
          return Error(opError(op, r.error()));
        if (report_ && op.kind() == OpKind::HistoryPush)
          report_->histories.push_back(
              {historyKey(op), std::isfinite(ctx.args[1]->data[0]) ? 0 : 1});
        define(op.result(), std::make_unique<HostTensor>(r.take()));
      }
      for (unsigned i = 0; i < op.numOperands(); ++i)
        release(op.operand(i));
    }
    return Status::ok();
  }

  static Expected<HostTensor> execute(const interp::OpContext &c) {
    using namespace interp;
    switch (c.op.kind()) {
    case OpKind::Linear:
      return runLinear(c);
    case OpKind::Matmul:
      return runMatmul(c);
    case OpKind::Transpose:
      return runTranspose(c);
    case OpKind::ColSum:
      return runColSum(c);
    case OpKind::Amax:
      return runAmax(c);
    case OpKind::Scale:
      return runScale(c);
    case OpKind::Cast:
      return runCast(c);
    case OpKind::Dequant:
      return runDequant(c);
    case OpKind::ScaledMatmul:
      return runScaledMatmul(c);
    case OpKind::HistoryScale:
      return runHistoryScale(c);
    case OpKind::HistoryPush:
      return runHistoryPush(c);
    default:
      // The activation derivatives and the other pointwise ops, by Ops.def's flags.
      if (c.op.info().has(kActivationGrad))
        return runActivationGrad(c);
      if (c.op.info().has(kPointwise))
        return runPointwise(c);
      break;
    }
    return Error("the interpreter cannot run this op");
  }

  const Graph &g_;
  std::span<const HostTensor> inputs_;
  unsigned threads_;
  std::unordered_map<const Value *, TensorType> types_;
  std::unordered_map<const Value *, const HostTensor *> values_;
  std::unordered_map<const Value *, std::unique_ptr<HostTensor>> owned_;
  std::unordered_map<const Value *, size_t> remaining_;
  NonFiniteReport *report_;
};

unsigned resolveThreads(const InterpretOptions &o) {
  unsigned t = o.maxThreads ? o.maxThreads : std::min(16u, std::thread::hardware_concurrency());
  return std::max(1u, t);
}

} // namespace

Status checkInputs(const Graph &g, std::span<const HostTensor> inputs) {
  return checkInputsImpl(g, inputs, resolveThreads({}));
}

Expected<std::vector<HostTensor>> interpret(const Graph &g, std::span<const HostTensor> inputs,
                                            const InterpretOptions &options) {
  const unsigned threads = resolveThreads(options);
  if (Status s = checkInputsImpl(g, inputs, threads); !s)
    return Error(s.message());
  if (options.report)
    *options.report = {};
  try {
    return Runner(g, inputs, threads, options.report).run();
  } catch (const std::bad_alloc &) {
    return Error(fmt::format("'@{}': out of memory in the CPU interpreter", g.name()));
  } catch (const std::exception &e) {
    return Error(
        fmt::format("'@{}': internal error in the CPU interpreter: {}", g.name(), e.what()));
  }
}

} // namespace fp8c
