// Parameters of a graph (inputs with fp8.param = true: the weights quantize's weights=static
// quantizes once) and the values computed from them alone: what the fusion planner marks as
// load-time kernels, what lowering puts in load steps, and what a training step's FP8 weight
// copies are (training/Training.h's WeightCasts).
#pragma once

#include "ir/IR.h"

#include <functional>
#include <set>

namespace fp8c {

/// Whether input i of g is a parameter (fp8.param = true).
bool isParameterInput(const Graph &g, unsigned i);

/// The values of g's body computed from its parameters alone, the parameters included: one
/// pass over the body's ops in order; an op with no operands, the return and the ops `skip`
/// names are not counted. `canon` maps an operand to the value it stands for (none: itself).
std::set<const Value *>
valuesFromParametersAlone(const Graph &g,
                          const std::function<const Value *(const Value *)> &canon = {},
                          const std::function<bool(const Op *)> &skip = {});

} // namespace fp8c
