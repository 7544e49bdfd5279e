// `cse`: replaces a region-free op by an earlier identical one (same kind, operands,
// attributes and result types) in the same block. Kernel regions are processed on their own.
#include "passes/Passes.h"

#include <map>
#include <tuple>

namespace fp8c {
namespace {

using OpKey = std::tuple<OpKind, std::vector<Value *>, std::string, std::vector<std::string>>;

OpKey keyOf(const Op &op) {
  std::vector<std::string> types;
  for (unsigned i = 0; i < op.numResults(); ++i)
    types.push_back(op.result(i)->type().str());
  return {op.kind(), std::vector<Value *>(op.operands().begin(), op.operands().end()),
          op.attrs().str(), types};
}

size_t cseBlock(Block &b) {
  size_t replaced = 0;
  std::map<OpKey, Op *> seen;
  for (Op *op : b.opList()) {
    if (op->body()) {
      replaced += cseBlock(*op->body());
      continue;
    }
    if (op->info().has(kTerminator) || op->numResults() == 0)
      continue;
    auto [it, inserted] = seen.emplace(keyOf(*op), op);
    if (inserted)
      continue;
    for (unsigned i = 0; i < op->numResults(); ++i)
      op->result(i)->replaceAllUsesWith(it->second->result(i));
    b.erase(op);
    ++replaced;
  }
  return replaced;
}

class CsePass : public Pass {
public:
  std::string_view name() const override { return "cse"; }
  bool run(Graph &g, PassContext &) override {
    cseBlock(g.body());
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CsePass>(); }

} // namespace fp8c
