// The fusion planner's last steps (FusionPlanner.cpp), once every op has its kernel: which
// kernels depend on parameters alone (run at load time), the kernels' execution order (and each
// kernel's ops in block order), and the backend of each kernel.
#include "passes/FusionBackend.h"
#include "passes/FusionPlannerImpl.h"

#include "ir/Parameters.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace fp8c::fusion {

void Planner::markLoadTime() {
  // Values computed from parameters alone, in block order (top-level ops only).
  const std::set<const Value *> constant =
      valuesFromParametersAlone(g_, {}, [&](const Op *op) { return !topLevel(op); });
  bool anyParams = false;
  for (unsigned i = 0; i < g_.numInputs(); ++i)
    anyParams = anyParams || isParameterInput(g_, i);
  for (PlannedKernel &k : plan_.kernels) {
    bool all = anyParams;
    for (Op *op : k.ops)
      for (Value *r : op->results())
        all &= constant.count(r) != 0;
    k.loadTime = all;
  }
}

void Planner::sortKernels() {
  size_t n = plan_.kernels.size();
  std::vector<std::set<size_t>> deps(n);
  for (size_t k = 0; k < n; ++k)
    for (Op *op : plan_.kernels[k].ops)
      for (Value *o : op->operands())
        if (Op *d = o->definingOp(); d && planned(d) && plan_.kernelOf[d] != k)
          deps[k].insert(plan_.kernelOf[d]);
  auto firstIndex = [&](size_t k) {
    size_t m = SIZE_MAX;
    for (Op *op : plan_.kernels[k].ops)
      m = std::min(m, order_[op]);
    return m;
  };
  // Among ready kernels: first those that need no GEMM's output (input and weight
  // preparation), then the rest in program order, and state updates last.
  std::vector<bool> afterGemm(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < n; ++k)
      for (size_t d : deps[k])
        if (!afterGemm[k] && (afterGemm[d] || plan_.kernels[d].kind == KernelKind::Gemm))
          afterGemm[k] = changed = true;
  }
  auto rank = [&](size_t k) {
    bool stateOnly = true;
    for (Op *op : plan_.kernels[k].ops)
      stateOnly &= op->kind() == OpKind::HistoryPush;
    return std::make_pair(stateOnly                                                   ? 2
                          : afterGemm[k] || plan_.kernels[k].kind == KernelKind::Gemm ? 1
                                                                                      : 0,
                          firstIndex(k));
  };
  std::vector<size_t> sorted;
  std::vector<bool> done(n, false);
  while (sorted.size() < n) {
    std::optional<size_t> pick;
    for (size_t k = 0; k < n; ++k) {
      if (done[k])
        continue;
      bool ready = true;
      for (size_t d : deps[k])
        ready &= done[d];
      if (ready && (!pick || rank(k) < rank(*pick)))
        pick = k;
    }
    if (!pick) {
      plan_.error = "internal error: the fusion plan has a cycle between kernels";
      return;
    }
    done[*pick] = true;
    sorted.push_back(*pick);
  }
  std::vector<size_t> newIndex(n);
  std::vector<PlannedKernel> kernels;
  for (size_t i = 0; i < n; ++i) {
    newIndex[sorted[i]] = i;
    PlannedKernel k = std::move(plan_.kernels[sorted[i]]);
    std::sort(k.ops.begin(), k.ops.end(), [&](Op *a, Op *b) { return order_[a] < order_[b]; });
    kernels.push_back(std::move(k));
  }
  plan_.kernels = std::move(kernels);
  for (auto &[op, k] : plan_.kernelOf)
    k = newIndex[k];
  for (FusionRejection &r : plan_.rejections)
    r.kernel = newIndex[r.kernel];
}

void Planner::chooseBackends() {
  for (PlannedKernel &k : plan_.kernels)
    chooseBackend(k);
}

} // namespace fp8c::fusion
