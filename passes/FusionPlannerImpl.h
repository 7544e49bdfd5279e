// Internal to the fusion planner: the Planner class that FusionPlanner.cpp (driver, bookkeeping,
// GEMM anchors), FusionPlannerEpilogue.cpp, FusionPlannerPrologue.cpp, FusionPlannerLeftovers.cpp
// and FusionPlannerFinish.cpp define between them. Nothing else includes it: the entry point is
// planFusion (FusionPlan.h).
#pragma once

#include "passes/FusionOpClasses.h"
#include "passes/FusionPlan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fp8c::fusion {

/// How a rejection reason names a value: "%name", or "%<unnamed>".
inline std::string nameOf(const Value *v) {
  return "%" + (v->name().empty() ? "<unnamed>" : v->name());
}

/// Plans the fusion of one graph's top-level ops; FusionPlanner.cpp's comment gives the steps.
class Planner {
public:
  /// `generatedGemm`: the generated GEMM may run the FP8 GEMMs (backend auto or generated);
  /// `gradEpilogue`: the backward's gelu_grad may join the dgrad GEMM's epilogue.
  Planner(const Graph &g, bool generatedGemm, bool gradEpilogue = true);
  /// Plans every op; call once.
  FusionPlan run();

private:
  // --- bookkeeping (FusionPlanner.cpp) ----------------------------------------------------------
  bool planned(const Op *op) const { return plan_.kernelOf.count(const_cast<Op *>(op)) != 0; }
  bool inKernel(const Op *op, size_t k) const {
    auto it = plan_.kernelOf.find(const_cast<Op *>(op));
    return it != plan_.kernelOf.end() && it->second == k;
  }
  bool topLevel(const Op *op) const { return op && order_.count(const_cast<Op *>(op)); }
  size_t newKernel(KernelKind kind) {
    PlannedKernel planned;
    planned.kind = kind;
    plan_.kernels.push_back(std::move(planned));
    span_.push_back({SIZE_MAX, 0});
    return plan_.kernels.size() - 1;
  }
  void add(size_t k, Op *op, OpRole role) {
    plan_.kernels[k].ops.push_back(op);
    plan_.kernels[k].roles[op] = role;
    plan_.kernelOf[op] = k;
    if (auto it = order_.find(op); it != order_.end()) {
      span_[k].first = std::min(span_[k].first, it->second);
      span_[k].second = std::max(span_[k].second, it->second);
    }
  }
  void reject(Op *op, size_t k, std::string where, std::string reason) {
    plan_.rejections.push_back({op, k, std::move(where), std::move(reason)});
  }
  bool allUsersIn(const Value *v, size_t k) const;
  bool dependsOn(const Value *v, size_t k) const;
  bool wouldCycle(const Op *op, size_t k) const;
  // Why `op` (an amax or cast) cannot join kernel k's launches beside the amaxes and casts of the
  // same tensor already there; empty when it can.
  std::string groupConflict(size_t k, const Op *op) const;
  // Adds op to kernel k unless that makes a cycle or a group conflict.
  bool addIfAcyclic(size_t k, Op *op, OpRole role);
  bool otherOperandsIndependent(const Op *op, const Value *tail, size_t k) const;

  // --- 1. anchors (FusionPlanner.cpp) -----------------------------------------------------------
  Op *dualPartner(Op *m, Op **partner);
  size_t anchorGemm(Op *op);

  // --- 2. epilogue (FusionPlannerEpilogue.cpp) --------------------------------------------------
  bool tryEpilogueCast(size_t k, Op *cast, Value *tail);
  Op *auxGelu(size_t k, Value *tail, const std::vector<Op *> &others, Op **auxCopy, bool *refused);
  Op *gradEpilogue(size_t k, Value *tail, const std::vector<Op *> &others, bool *refused,
                   Op **savedConvert);
  void epilogueTranspose(size_t k, Op *cast);
  void growEpilogue(size_t k);

  // --- 3. prologue (FusionPlannerPrologue.cpp) --------------------------------------------------
  void absorbOperandTransposes(size_t k);
  void growPrologue(size_t k);

  // --- 4. leftovers (FusionPlannerLeftovers.cpp) ------------------------------------------------
  void planLeftovers();
  bool placeScaleOp(Op *op);
  static bool savedTensorScale(const Op *scale, const Op *user);
  void planAmaxKernel(Op *amax);
  void mergeTransposedPair(size_t k, Op *amax);
  void planPointwiseChain(Op *op);
  void takeCastTransposes(size_t k);

  // --- finishing (FusionPlannerFinish.cpp) ------------------------------------------------------
  void markLoadTime();
  void sortKernels();
  void chooseBackends();

  const Graph &g_;
  const bool generatedGemm_;
  const bool gradEpilogue_;
  FusionPlan plan_;
  std::map<Op *, size_t> order_;
  // The block order of each kernel's first and last op (bounds the searches of wouldCycle and
  // dependsOn, so that planning stays near-linear in the graph's size).
  std::vector<std::pair<size_t, size_t>> span_;
  std::map<size_t, Value *> tails_;
};

} // namespace fp8c::fusion
