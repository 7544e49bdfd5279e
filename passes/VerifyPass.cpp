// `verify`: the verifier as a pipeline step.
#include "passes/Passes.h"

#include "ir/Verifier.h"

namespace fp8c {
namespace {

class VerifyPass : public Pass {
public:
  std::string_view name() const override { return "verify"; }
  bool run(Graph &g, PassContext &ctx) override { return verifyGraph(g, ctx.diag); }
};

} // namespace

std::unique_ptr<Pass> createVerifyPass() { return std::make_unique<VerifyPass>(); }

} // namespace fp8c
