// `fp8c --run=cpu`: binds inputs (.npy files or seeded random values), runs the interpreter,
// and prints or writes the outputs.
#pragma once

#include "Options.h"

#include "ir/IR.h"

#include <ostream>

namespace fp8c::cli {

/// Runs the selected function of `m`; prints errors to stderr. Returns false on a user error.
bool runOnCpu(const Options &o, const Module &m, std::ostream &out);

} // namespace fp8c::cli
