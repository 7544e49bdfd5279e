// `fp8c --emit=ptx|cubin`: lowers a fused module and compiles every generated kernel with NVRTC
// (no GPU needed). PTX is printed; CUBINs are written as DIR/<kernel>.cubin (--output-dir, or
// the current directory) with one line per kernel: its registers, stack and spills. The
// generated Hopper GEMM kernels of the GEMM steps it runs (--backend=generated, or where auto
// gives it a step) are among them.
#pragma once

#include "ir/IR.h"

#include <ostream>
#include <string>

namespace fp8c::cli {

/// The generated GEMM kernels of the steps each kernel's gemm_backend gives the generated GEMM
/// are compiled too (GeneratedGemms.h; the tile heuristic at M = `dynamicDim`).
bool emitBinary(const Module &m, const std::string &what, const std::string &arch,
                int64_t dynamicDim, const std::string &dir,
                std::ostream &out, std::ostream &err);

} // namespace fp8c::cli
