// `fp8c --run=cpu`: binds inputs (.npy files or seeded random values), runs the interpreter,
// and prints or writes the outputs.
#pragma once

#include "Options.h"

#include "ir/IR.h"
#include "interp/NonFiniteReport.h"

#include <ostream>

namespace fp8c::cli {

/// Runs the selected function of `m`; prints errors to stderr. Returns false on a user error.
/// With `reference` (the graph as written, before the passes), runs it on the same inputs
/// (bound by name) and prints each output's relative Frobenius error against it.
bool runOnCpu(const Options &o, const Module &m, const Module *reference, std::ostream &out);

/// Prints `r`'s warnings to stderr ("fp8c: warning: output 'y' has 3 non-finite values"). With
/// `check`, a report that is not clean also prints an error line and returns false (the run
/// fails: exit 1).
bool reportNonFinite(const NonFiniteReport &r, bool check);

} // namespace fp8c::cli
