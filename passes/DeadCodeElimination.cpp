// `dce`: removes ops whose results nobody uses. Every fp8c op is free of side effects (state
// updates are values returned by the graph), so an unused result means a dead op. Kernel
// regions are cleaned too; a kernel whose results are all unused goes as a whole.
#include "passes/Passes.h"

namespace fp8c {

// Erases dead ops of `b` from the back, so that chains die in one sweep.
size_t eraseDeadOps(Block &b) {
  size_t erased = 0;
  std::vector<Op *> ops = b.opList();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Op *op = *it;
    if (op->info().has(kTerminator))
      continue;
    if (op->body())
      erased += eraseDeadOps(*op->body());
    if (!op->hasUsedResults()) {
      b.erase(op);
      ++erased;
    }
  }
  return erased;
}

namespace {

class DcePass : public Pass {
public:
  std::string_view name() const override { return "dce"; }
  bool run(Graph &g, PassContext &) override {
    eraseDeadOps(g.body());
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createDcePass() { return std::make_unique<DcePass>(); }

} // namespace fp8c
