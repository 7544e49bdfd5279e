// Random valid fp8c graphs from a seed, for fp8c-graph-fuzz.
//
// A graph is one func.func of model ops (every op of ir/Ops.def marked kModelOp: fp8.linear with
// and without bias, fp8.matmul, fp8.add, fp8.mul, fp8.relu, fp8.gelu with each `approximate`,
// fp8.silu, fp8.swiglu, fp8.convert, fp8.transpose) over bf16, f16 or f32, with a static or
// dynamic (`?`) leading token dim, sizes from {1, 3, 17, 100, 129, 256, 4097}, weights and
// biases shared between linears, rank-0 operands of add / mul, results returned and used again,
// and now and then rank-3 activations. Every graph passes fp8c's verifier.
//
// The generator keeps a rough magnitude (standard deviation) of each value under fp8c's
// --random-inputs distribution, so that no value overflows or vanishes, and per output an error
// weight: how many quantized GEMMs its value went through (products add the weights of their
// operands). fp8c-graph-fuzz bounds the --compare error of an output by the recipe's error of
// one GEMM times that weight.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c::fuzz {

/// What the driver needs to know about one result of the generated function.
struct GeneratedOutput {
  std::string name;
  /// Quantized GEMMs the value went through, weighted (0: no GEMM; exact up to rounding).
  double errorWeight = 0;
  /// False when a GEMM operand on its path is far from magnitude 1, where the first step of
  /// the delayed recipe (scale 1) flushes or saturates by design: no bound under `delayed`.
  bool delayedComparable = true;
  /// Independent elements at the --run=cpu size of its dynamic dims: all of them, or for a
  /// rank-1 value u v^T the shorter of u and v.
  int64_t elements = 1;
  /// An FP8 result (fp8.convert to f8E4M3FN / f8E5M2): its rounding adds to the error.
  bool fp8 = false;
};

struct GeneratedGraph {
  uint64_t seed = 0;
  std::string text;                     ///< the graph in fp8c's text syntax
  std::vector<GeneratedOutput> outputs; ///< in the order of func.return's operands
  bool dynamic = false;                 ///< some input has a `?` leading dim
  int64_t tokens = 0;                   ///< --tokens=N for --train when dynamic
  int64_t dynamicDim = 4;               ///< --dynamic-dim=M for --run=cpu
  bool rank3 = false;                   ///< some fp8.linear takes a rank-3 input
  unsigned numOps = 0;
};

/// Generates the graph of `seed`; the same seed gives the same graph.
GeneratedGraph generateGraph(uint64_t seed);

} // namespace fp8c::fuzz
