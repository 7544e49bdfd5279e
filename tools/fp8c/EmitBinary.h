// `fp8c --emit=ptx|cubin`: lowers a fused module and compiles every generated kernel with NVRTC
// (no GPU needed). PTX is printed; CUBINs are written as DIR/<kernel>.cubin (--output-dir, or
// the current directory) with one line per kernel: its registers, stack and spills.
#pragma once

#include "ir/IR.h"

#include <ostream>
#include <string>

namespace fp8c::cli {

bool emitBinary(const Module &m, const std::string &what, const std::string &arch,
                const std::string &dir, std::ostream &out, std::ostream &err);

} // namespace fp8c::cli
