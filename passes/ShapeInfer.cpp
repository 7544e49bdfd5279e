// `shape-infer`: recomputes every result type from the graph's input types with the type
// rules, so that specializing an input (`tokens=N` fixes the dynamic leading dim of every
// input to N) propagates through the graph, kernel regions and the signature included.
#include "passes/Passes.h"

#include "ir/TypeRules.h"

#include <charconv>

namespace fp8c {
namespace {

bool inferBlock(Block &b, DiagnosticEngine &diag) {
  for (Op *op : b.opList()) {
    if (op->kind() == OpKind::Kernel) {
      Block *body = op->body();
      if (!body || body->numArguments() != op->numOperands()) {
        diag.error(op->loc(), "'fp8.kernel' op region arguments do not match its operands");
        return false;
      }
      for (unsigned i = 0; i < op->numOperands(); ++i)
        body->argument(i)->setType(op->operand(i)->type());
      if (!inferBlock(*body, diag))
        return false;
      Op *yield = body->terminator();
      if (!yield || yield->numOperands() != op->numResults()) {
        diag.error(op->loc(), "'fp8.kernel' op region does not yield its results");
        return false;
      }
      for (unsigned i = 0; i < op->numResults(); ++i)
        op->result(i)->setType(yield->operand(i)->type());
      continue;
    }
    if (op->info().has(kTerminator) || op->numResults() != 1)
      continue;
    std::vector<TensorType> types;
    for (Value *v : op->operands())
      types.push_back(v->type());
    Expected<TensorType> t =
        inferResultType(op->kind(), types, op->attrs(), op->result()->type().dtype());
    if (!t) {
      diag.error(op->loc(), "'" + std::string(op->name()) + "' op " + t.error());
      return false;
    }
    op->result()->setType(*t);
  }
  return true;
}

class ShapeInferPass : public Pass {
public:
  explicit ShapeInferPass(int64_t tokens) : tokens_(tokens) {}
  std::string_view name() const override { return "shape-infer"; }
  std::string optionsString() const override {
    return tokens_ > 0 ? "tokens=" + std::to_string(tokens_) : "";
  }
  bool run(Graph &g, PassContext &ctx) override {
    if (tokens_ > 0)
      for (unsigned i = 0; i < g.numInputs(); ++i) {
        TensorType t = g.input(i)->type();
        if (t.rank() > 0 && t.isDynamicDim(0)) {
          std::vector<int64_t> s = t.shape();
          s[0] = tokens_;
          g.input(i)->setType(t.withShape(s));
        }
      }
    if (!inferBlock(g.body(), ctx.diag))
      return false;
    std::vector<Value *> outs = g.outputs();
    for (size_t i = 0; i < outs.size() && i < g.resultTypes().size(); ++i)
      g.mutableResultTypes()[i] = outs[i]->type();
    return true;
  }

private:
  int64_t tokens_;
};

} // namespace

std::unique_ptr<Pass> createShapeInferPass(int64_t tokens) {
  return std::make_unique<ShapeInferPass>(tokens);
}

Expected<int64_t> parseShapeInferTokens(const PassOptions &opts) {
  int64_t tokens = 0;
  if (auto it = opts.find("tokens"); it != opts.end()) {
    const std::string &v = it->second;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), tokens);
    if (ec != std::errc() || p != v.data() + v.size() || tokens < 1)
      return Error("pass 'shape-infer': option tokens must be a positive integer, got '" + v +
                   "'");
  }
  return tokens;
}

} // namespace fp8c
