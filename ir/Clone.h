// Deep copies of graphs: values, ops, regions, attributes, names and locations. compile()
// runs its passes on a clone, so the caller's graph stays as it was built.
#pragma once

#include "ir/IR.h"

#include <memory>
#include <unordered_map>

namespace fp8c {

/// Old value -> its copy.
using ValueMap = std::unordered_map<const Value *, Value *>;

/// Appends a deep copy of `op` to `to`, its operands mapped through `map` (unmapped operands
/// are used as they are), and records its results (and region arguments) in `map`.
Op *cloneOpInto(const Op &op, Block &to, ValueMap &map);

std::unique_ptr<Graph> cloneGraph(const Graph &g);

} // namespace fp8c
