// The "unfused" peer's graph: what an eager framework runs. Every op of a quantized graph
// becomes its own fp8.kernel, so codegen lowers each to its own launch: an amax kernel, a
// scale kernel and a cast kernel per quantized tensor (rowwise: scale and cast together), the GEMM through cuBLASLt (with the
// bias and activation epilogues cuBLASLt has), each pointwise op one more kernel. The fuse
// pass keeps kernels that already exist, so compiling the result with `fuse,dce` changes
// nothing; the graph means what it meant (fp8.kernel only groups ops).
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"

#include <memory>
#include <string>

namespace fp8c::bench {

/// Wraps every top-level op of `g` (except func.return) into an fp8.kernel of its own, except
/// that a per-row scale (tensor<?xf32>, which codegen does not lower alone) shares the kernel
/// of the cast that uses it. Ops already inside a kernel are left alone.
void wrapEachOpInKernel(Graph &g);

/// `g` quantized with `recipe` (and extra quantize options such as "weights=static", may be
/// empty), one kernel per op. An Error carries the pass diagnostics.
Expected<std::unique_ptr<Graph>> unfusedGraph(const Graph &g, const std::string &recipe,
                                              const std::string &quantizeOptions = "");

} // namespace fp8c::bench
