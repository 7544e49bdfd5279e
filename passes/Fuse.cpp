// `fuse`: applies the fusion plan (FusionPlanner.cpp). Each planned kernel becomes one
// `fp8.kernel "gemm"|"pointwise"|"reduce"` op carrying the plan (ir/KernelPlan.h: its backend,
// a gemm kernel's FP8 GEMM backend, each op's role) whose region holds the original ops,
// isolated from above: values from outside enter as operands (block arguments), values used outside
// leave through fp8.yield as results. Fusion only groups ops, so the graph means the same
// before and after (the differential tests check it bit for bit). The plan is printed to the
// analysis stream when one is set (--print-fusion-plan).
#include "passes/Passes.h"

#include "passes/FusionPlan.h"
#include "ir/Builder.h"

#include <algorithm>
#include <set>

namespace fp8c {
namespace {

std::string describe(const Op *op) {
  std::string s(op->name());
  if (op->numResults() > 0)
    s += " %" + (op->result()->name().empty() ? std::string("<unnamed>") : op->result()->name());
  return s;
}

// Wraps the ops of one planned kernel into an fp8.kernel op placed before `before`.
void buildKernel(Graph &g, const PlannedKernel &k, Op *before) {
  Block &body = g.body();
  if (k.existing) {
    body.insert(before, body.take(k.existing));
    return;
  }
  std::set<const Op *> members(k.ops.begin(), k.ops.end());
  std::vector<Value *> inputs;
  for (Op *op : k.ops)
    for (Value *o : op->operands())
      if ((!o->definingOp() || !members.count(o->definingOp())) &&
          std::find(inputs.begin(), inputs.end(), o) == inputs.end())
        inputs.push_back(o);
  std::vector<Value *> outputs;
  std::vector<std::vector<Op *>> outsideUsers;
  for (Op *op : k.ops)
    for (Value *r : op->results()) {
      std::vector<Op *> users;
      for (Op *u : r->users())
        if (!members.count(u) && std::find(users.begin(), users.end(), u) == users.end())
          users.push_back(u);
      if (!users.empty()) {
        outputs.push_back(r);
        outsideUsers.push_back(users);
      }
    }

  Op *anchor = k.ops.front();
  for (Op *op : k.ops)
    if (k.roles.at(op) == OpRole::Main) {
      anchor = op;
      break;
    }
  std::vector<TensorType> resultTypes;
  for (Value *v : outputs)
    resultTypes.push_back(v->type());
  AttrDict attrs;
  attrs.set(std::string(kKernelKindAttr), Attribute(std::string(kernelKindName(k.kind))));
  attrs.set(std::string(kKernelBackendAttr), Attribute(std::string(kernelBackendName(k.backend))));
  if (k.kind == KernelKind::Gemm)
    attrs.set(std::string(kKernelGemmBackendAttr), Attribute(gemmBackendName(k.gemmBackend)));
  Op *kernel = OpBuilder(body, before).create(OpKind::Kernel, inputs, resultTypes, attrs,
                                              anchor->loc());
  for (size_t i = 0; i < outputs.size(); ++i)
    kernel->result(i)->setName(outputs[i]->name());

  Block &region = kernel->createBody();
  std::vector<Value *> args;
  for (Value *in : inputs)
    args.push_back(region.addArgument(in->type(), in->name()));
  for (Op *op : k.ops) {
    op->setAttr(std::string(kOpRoleAttr), Attribute(std::string(opRoleName(k.roles.at(op)))));
    region.append(body.take(op));
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      auto it = std::find(inputs.begin(), inputs.end(), op->operand(i));
      if (it != inputs.end())
        op->setOperand(i, args[it - inputs.begin()]);
    }
  }
  std::vector<TensorType> none;
  OpBuilder(region).create(OpKind::Yield, outputs, none, {}, anchor->loc());
  for (size_t i = 0; i < outputs.size(); ++i)
    for (Op *u : outsideUsers[i])
      for (unsigned j = 0; j < u->numOperands(); ++j)
        if (u->operand(j) == outputs[i])
          u->setOperand(j, kernel->result(i));
}

class FusePass : public Pass {
public:
  explicit FusePass(const FuseOptions &o) : o_(o) {}
  std::string_view name() const override { return "fuse"; }
  std::string optionsString() const override {
    std::string o = o_.gemmBackend == GemmBackend::Auto
                        ? ""
                        : "gemm-backend=" + std::string(gemmBackendName(o_.gemmBackend));
    if (!o_.gradEpilogue)
      o += std::string(o.empty() ? "" : " ") + "grad-epilogue=off";
    return o;
  }
  bool run(Graph &g, PassContext &ctx) override {
    // The plan covers live ops only: a kernel planned around an op that a later `dce` removes
    // (an unused GEMM whose input amax still feeds the delayed history) would lose its GEMM.
    eraseDeadOps(g.body());
    FusionPlan plan = planFusion(g, o_.gemmBackend, o_.gradEpilogue);
    if (!plan.error.empty()) {
      ctx.diag.error(g.loc(), "fuse: " + plan.error);
      return false;
    }
    for (PlannedKernel &k : plan.kernels)
      if (k.kind == KernelKind::Gemm)
        for (Op *op : k.ops)
          if (k.roles[op] == OpRole::Main && op->kind() == OpKind::ScaledMatmul)
            k.gemmBackend = o_.gemmBackend;
    if (ctx.analysisOut)
      printFusionPlan(g, plan, *ctx.analysisOut);
    Op *ret = g.returnOp();
    if (!ret) {
      ctx.diag.error(g.loc(), "fuse: @" + g.name() + " has no func.return");
      return false;
    }
    for (const PlannedKernel &k : plan.kernels)
      buildKernel(g, k, ret);
    return true;
  }

private:
  FuseOptions o_;
};

} // namespace

void printFusionPlan(const Graph &g, const FusionPlan &plan, std::ostream &os) {
  os << "// fusion plan for @" << g.name() << ": " << plan.kernels.size() << " kernel"
     << (plan.kernels.size() == 1 ? "" : "s") << "\n";
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const PlannedKernel &k = plan.kernels[i];
    os << "kernel #" << i << " " << kernelKindName(k.kind) << " -> "
       << kernelBackendName(k.backend);
    if (!k.backendReason.empty())
      os << " (" << k.backendReason << ")";
    if (k.gemmBackend != GemmBackend::Auto)
      os << " [FP8 GEMM: " << gemmBackendName(k.gemmBackend) << "]";
    if (k.loadTime)
      os << " [at load: parameters only]";
    if (k.existing)
      os << " [already fused]";
    os << "\n";
    for (OpRole role : {OpRole::Prologue, OpRole::Main, OpRole::Epilogue, OpRole::Body}) {
      std::string line;
      for (Op *op : k.ops)
        if (k.roles.at(op) == role)
          line += (line.empty() ? "" : ", ") + describe(op);
      if (!line.empty())
        os << "  " << opRoleName(role) << ": " << line << "\n";
    }
  }
  if (!plan.rejections.empty()) {
    os << "not fused:\n";
    for (const FusionRejection &r : plan.rejections) {
      os << "  " << describe(r.op) << " not in the " << r.where << " of kernel #" << r.kernel
         << ": " << r.reason;
      auto it = plan.kernelOf.find(r.op);
      if (it != plan.kernelOf.end())
        os << "; it is in kernel #" << it->second << " ("
           << opRoleName(plan.kernels[it->second].roles.at(r.op)) << ")";
      os << "\n";
    }
  }
}

std::unique_ptr<Pass> createFusePass(const FuseOptions &opts) {
  return std::make_unique<FusePass>(opts);
}

Expected<FuseOptions> parseFuseOptions(const PassOptions &opts, const PipelineDefaults &defaults) {
  FuseOptions o;
  o.gemmBackend = defaults.gemmBackend;
  if (auto it = opts.find("gemm-backend"); it != opts.end()) {
    std::optional<GemmBackend> b = parseGemmBackend(it->second);
    if (!b)
      return Error("fuse: gemm-backend=" + it->second + ": unknown; backends: " +
                   gemmBackendNames());
    if (defaults.gemmBackend != GemmBackend::Auto && *b != defaults.gemmBackend)
      return Error("fuse: gemm-backend=" + it->second + " but the FP8 GEMM backend is " +
                   gemmBackendName(defaults.gemmBackend) + " (--backend)");
    o.gemmBackend = *b;
  }
  // grad-epilogue=off: the backward's gelu_grad stays out of the dgrad GEMM's epilogue.
  if (auto it = opts.find("grad-epilogue"); it != opts.end()) {
    if (it->second != "on" && it->second != "off")
      return Error("fuse: grad-epilogue=" + it->second + ": expected on or off");
    o.gradEpilogue = it->second == "on";
  }
  return o;
}

} // namespace fp8c
