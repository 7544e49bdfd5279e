// Deep copies of graphs: values, ops, regions, attributes, names and locations. compile()
// runs its passes on a clone, so the caller's graph stays as it was built.
#pragma once

#include "ir/IR.h"

#include <memory>

namespace fp8c {

std::unique_ptr<Graph> cloneGraph(const Graph &g);

} // namespace fp8c
