// Shrinks a generated graph while a predicate (the same finding) still holds: drops results of
// the function, turns ops into inputs of their result's type (their operands then may go), and
// drops unused inputs, until no single step keeps the predicate true.
#pragma once

#include <functional>
#include <string>

namespace fp8c::fuzz {

/// The smallest graph reached from `text` (GraphGenerator's text layout: one op a line) whose
/// text `stillFails` accepts; `text` itself when it is not in that layout.
std::string reduceGraph(const std::string &text,
                        const std::function<bool(const std::string &)> &stillFails);

} // namespace fp8c::fuzz
