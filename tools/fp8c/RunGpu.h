// `fp8c --run=gpu`: compile for the GPU, run, and optionally --check against the interpreter
// and --bench with CUDA events.
#pragma once

#include "Options.h"

#include "ir/IR.h"
#include "interp/HostTensor.h"

#include <ostream>
#include <vector>

namespace fp8c::cli {

/// Runs `g` (after the CLI's passes) on GPU 0 with `inputs` (one per input of `g`). Prints
/// errors to stderr; false on failure.
bool runOnGpu(const Options &o, const Graph &g, const std::vector<HostTensor> &inputs,
              std::ostream &out);

} // namespace fp8c::cli
