// What the GPU backend (MlpGpuBackend.h) runs around the training step, as fp8c graphs
// compiled like any other (recipe none: fused pointwise / col_sum kernels), so the whole step
// stays on the device:
//
//   loss:  d = convert(y, f32) + nt        nt = -t (the targets, negated, f32)
//          dy = convert(d * c, dtype)      c = 2 / n (n = batch * out): dL/dy
//          cs = col_sum(d * d)             f32 [out]; the loss is sum(cs) / n
//   sgd:   wn = w + convert(g, f32) * nlr  nlr = -lr; w, wn: f32 master weights
//          wq = convert(wn, dtype)         the weights the next step's graph binds
//
// The sgd graph runs once per step over every parameter: the parameters lie in one flat
// vector [rows, kSgdCols] (ParamLayout), each at an offset that is a multiple of kSgdCols
// (zero padding between them), so the training step binds slices of it.
#pragma once

#include "MlpProblem.h"

#include "ir/DType.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace fp8c::example {

/// Columns of the flat parameter vector; every parameter starts at a multiple of it.
inline constexpr int64_t kSgdCols = 256;

struct ParamSlot {
  std::string name; ///< w1, b1, w2, b2 (the student graph's input names)
  std::vector<int64_t> shape;
  int64_t offset = 0; ///< in elements
  int64_t elements() const;
};

struct ParamLayout {
  std::vector<ParamSlot> slots;
  int64_t total = 0; ///< elements, a multiple of kSgdCols
  int64_t rows() const { return total / kSgdCols; }
  const ParamSlot *find(const std::string &name) const;
};

/// w1, b1, w2, b2 of the student, in that order.
ParamLayout mlpParamLayout(const MlpSizes &s);
/// The problem's initial f32 weights in the layout (padding zero).
std::vector<float> packInitialParams(const MlpProblem &p, const ParamLayout &layout);

/// The loss graph for y [batch, out] in `dtype` (inputs y, nt, c; outputs dy, cs).
Expected<std::unique_ptr<Graph>> buildLossGraph(int64_t batch, int64_t out, DType dtype);
/// The sgd graph over [rows, kSgdCols] (inputs w, g, nlr; outputs wn, wq).
Expected<std::unique_ptr<Graph>> buildSgdGraph(int64_t rows, DType dtype);

} // namespace fp8c::example
