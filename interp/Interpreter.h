// The CPU interpreter: the reference semantics of fp8c. It executes a graph op by op exactly as
// IR.h's header comment defines each op: f32 arithmetic, one rounding to the result dtype per
// op (roundToDType), FP8 through ir/DType's exact conversions, GEMM sums in 8 interleaved f32
// partial sums added pairwise. Every GPU kernel and every pass is tested against it.
//
// Besides the IR.h semantics, the interpreter fixes these details:
//   - a NaN result is the toolkit's canonical NaN 0x7FFFFFFF in every dtype (roundToDType does
//     this for f16 / bf16 / FP8; the interpreter does it for f32 results too);
//   - dot products form each product a*b as an f32 multiply and then add it (no fused
//     multiply-add); for f16 / bf16 / FP8 operands the product is exact in f32, so a GPU's FMA
//     gives the same sum;
//   - linear: bias is added to the f32 dot product, then the sum is rounded once;
//   - scaled_matmul: y = (dot / sa) / sb, two f32 divisions (never by the product sa * sb, which
//     overflows for two small operands); blockwise, acc = 0, then for each 128-wide K block in
//     order acc += (blockdot / sa[m,kb]) / sb[n/128,kb]; then bias (widened to f32) is added and
//     the sum rounded once to `out`;
//   - fp8.scale: s = ldexp(fmax / amax, -margin) (the ldexp is exact), then inf -> FLT_MAX, then
//     pow2 rounds |s| down to a power of two; amax == 0 -> 1; non-finite amax -> NaN;
//   - fp8.history_push of a non-finite amax returns the history unchanged (and, with
//     InterpretOptions::report, counts it against the history).
// Results do not depend on the number of threads used.
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"
#include "interp/HostTensor.h"
#include "interp/NonFiniteReport.h"

#include <span>
#include <vector>

namespace fp8c {

struct InterpretOptions {
  /// Threads the GEMM ops may use; 0 = std::thread::hardware_concurrency() (at most 16).
  unsigned maxThreads = 0;
  /// When set, receives what the run saw of non-finite values: every output with its count of
  /// NaN / +-inf elements (named after the returned value, else "output<i>"), and every
  /// fp8.history_push with the amaxes it skipped (0 or 1; keyed by the fp8.state key of the
  /// graph input it updates, else that input's name). Replaces what it held.
  NonFiniteReport *report = nullptr;
};

/// Runs `g` on `inputs` (one per graph input, in order) and returns its outputs in order.
/// The inputs must match the graph's input types: count, rank, static dims and dtype; dynamic
/// dims take the inputs' sizes, and a size bound to dynamic dims must be consistent wherever
/// the ops require equal dims. Every element must be representable in its dtype. Violations,
/// and graphs the interpreter cannot run, are Errors; it never crashes on a verified graph.
Expected<std::vector<HostTensor>> interpret(const Graph &g, std::span<const HostTensor> inputs,
                                            const InterpretOptions &options = {});

/// The input checks of interpret() alone (count, dtype, rank, static dims, element count,
/// representable values). Dynamic-dim consistency is checked by interpret().
Status checkInputs(const Graph &g, std::span<const HostTensor> inputs);

} // namespace fp8c
