// One fp8.kernel per op: see Unfused.h.
#include "bench/Unfused.h"

#include "ir/Builder.h"
#include "ir/Clone.h"
#include "ir/KernelPlan.h"
#include "passes/PassManager.h"

#include <algorithm>

namespace fp8c::bench {
namespace {

KernelKind kindFor(const Op *op) {
  if (isGemmOp(op->kind()))
    return KernelKind::Gemm;
  return op->kind() == OpKind::Amax ? KernelKind::Reduce : KernelKind::Pointwise;
}

bool inGroup(const std::vector<Op *> &ops, const Op *op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Wraps `ops` (in block order, the last one at the kernel's position) into one fp8.kernel.
void wrap(Graph &g, const std::vector<Op *> &ops) {
  Block &body = g.body();
  std::vector<Value *> inputs;
  for (Op *op : ops)
    for (Value *o : op->operands())
      if ((!o->definingOp() || !inGroup(ops, o->definingOp())) &&
          std::find(inputs.begin(), inputs.end(), o) == inputs.end())
        inputs.push_back(o);
  // Results used outside the group, with those users (taken before the ops move).
  std::vector<Value *> results;
  std::vector<std::vector<Op *>> users;
  for (Op *op : ops)
    for (Value *r : op->results()) {
      std::vector<Op *> outside;
      for (Op *u : r->users())
        if (!inGroup(ops, u))
          outside.push_back(u);
      if (!outside.empty()) {
        results.push_back(r);
        users.push_back(outside);
      }
    }
  std::vector<TensorType> types;
  for (Value *r : results)
    types.push_back(r->type());
  // The plan (ir/KernelPlan.h): a GEMM alone is its kernel's main, on cuBLASLt with the
  // default FP8 GEMM backend; other ops are the body of a generated launch.
  const KernelKind kind = kindFor(ops.back());
  const bool gemm = kind == KernelKind::Gemm;
  AttrDict attrs;
  attrs.set(std::string(kKernelKindAttr), Attribute(std::string(kernelKindName(kind))));
  attrs.set(std::string(kKernelBackendAttr),
            Attribute(std::string(
                kernelBackendName(gemm ? KernelBackend::CublasLt : KernelBackend::Generated))));
  if (gemm)
    attrs.set(std::string(kKernelGemmBackendAttr), Attribute(gemmBackendName(GemmBackend::Auto)));
  Op *kernel =
      OpBuilder(body, ops.back()).create(OpKind::Kernel, inputs, types, attrs, ops.back()->loc());
  for (size_t i = 0; i < results.size(); ++i)
    kernel->result(i)->setName(results[i]->name());
  Block &region = kernel->createBody();
  std::vector<Value *> args;
  for (Value *in : inputs)
    args.push_back(region.addArgument(in->type(), in->name()));
  for (Op *op : ops) {
    op->setAttr(std::string(kOpRoleAttr),
                Attribute(std::string(opRoleName(gemm ? OpRole::Main : OpRole::Body))));
    region.append(body.take(op));
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      auto it = std::find(inputs.begin(), inputs.end(), op->operand(i));
      if (it != inputs.end())
        op->setOperand(i, args[it - inputs.begin()]);
    }
  }
  std::vector<TensorType> none;
  OpBuilder(region).create(OpKind::Yield, results, none, {}, ops.back()->loc());
  for (size_t i = 0; i < results.size(); ++i)
    for (Op *u : users[i])
      for (unsigned j = 0; j < u->numOperands(); ++j)
        if (u->operand(j) == results[i])
          u->setOperand(j, kernel->result(i));
}

// Codegen lowers no standalone pointwise kernel over a tensor whose last dim is dynamic, so
// a per-row scale (tensor<?xf32>) goes into the kernel of the cast that uses it, when nothing
// between the two uses it. Returns that cast, or null.
Op *castPartner(const Graph &g, Op *op) {
  if (op->kind() != OpKind::Scale || op->result()->type().shape().empty() ||
      op->result()->type().shape().back() != kDynamic)
    return nullptr;
  const Block &body = g.body();
  Op *cast = nullptr;
  for (Op *u : op->result()->users())
    if (u->kind() == OpKind::Cast && u->parentBlock() == &body &&
        (!cast || body.indexOf(u) < body.indexOf(cast)))
      cast = u;
  if (!cast)
    return nullptr;
  for (Op *u : op->result()->users())
    if (u != cast && u->parentBlock() == &body && body.indexOf(u) < body.indexOf(cast))
      return nullptr;
  return cast;
}

} // namespace

void wrapEachOpInKernel(Graph &g) {
  for (Op *op : g.body().opList()) {
    if (op->kind() == OpKind::Kernel || op->info().has(kTerminator) || castPartner(g, op))
      continue; // a scale with a partner goes with its cast, below
    std::vector<Op *> group;
    for (Value *o : op->operands())
      if (o->definingOp() && o->definingOp()->parentBlock() == &g.body() &&
          castPartner(g, o->definingOp()) == op)
        group.push_back(o->definingOp());
    group.push_back(op);
    wrap(g, group);
  }
}

Expected<std::unique_ptr<Graph>> unfusedGraph(const Graph &g, const std::string &recipe,
                                              const std::string &quantizeOptions) {
  std::unique_ptr<Graph> out = cloneGraph(g);
  std::string q = "recipe=" + recipe + (quantizeOptions.empty() ? "" : "," + quantizeOptions);
  PassManager pm;
  if (Status s = pm.parsePipeline("shape-infer,canonicalize,quantize{" + q + "},canonicalize,cse,dce");
      !s)
    return Error(s.message());
  DiagnosticEngine diag;
  if (!pm.run(*out, diag))
    return Error("quantizing @" + g.name() + " failed:\n" + diag.str());
  wrapEachOpInKernel(*out);
  return out;
}

} // namespace fp8c::bench
