// Printer for fp8c's text format (the grammar is in Parser.h). print(parse(x)) is the identity
// on printed IR. Values print with their name hints, made unique within a function (`x`, `x_1`);
// unnamed results print as `%0`, `%1`, ..., unnamed block arguments as `%arg0`, ... (a numeric
// hint that is taken gets a fresh number, since `%0_1` is not an MLIR name). A kernel's `kind`
// prints as its positional string when it is a string attribute.
// Attributes print sorted by name; absent attributes are not printed.
#pragma once

#include "ir/IR.h"

#include <ostream>
#include <string>

namespace fp8c {

void printGraph(const Graph &g, std::ostream &os);
/// Functions separated by one blank line.
void printModule(const Module &m, std::ostream &os);
std::string toString(const Graph &g);
std::string toString(const Module &m);

} // namespace fp8c
