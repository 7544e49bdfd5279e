// The benchmark's shapes (bench/shapes.txt): parsing the file, the graph text of each shape
// (MLIR syntax, as examples/*.mlir), the GEMMs it contains, and its FLOP and byte counts.
#pragma once

#include "ir/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c::bench {

enum class ShapeKind { Linear, Mlp, Swiglu };

struct Shape {
  std::string name;
  ShapeKind kind = ShapeKind::Linear;
  int64_t m = 0;
  int64_t k = 0, n = 0; ///< Linear
  int64_t d = 0, h = 0; ///< Mlp, Swiglu: model dim and hidden dim
  bool bias = false;    ///< Linear only (Mlp always has biases, Swiglu never)
  /// Linear only: z = x W^T (+ b) + r with r a bf16 [M, N] input (a residual stream).
  bool residual = false;
  bool cudaGraph = false;
  /// "M=8192 K=4096 N=6144"
  std::string dims() const;
};

/// One GEMM of a shape: D[m, n] = A[m, k] B[n, k]^T (+ bias).
struct GemmDims {
  int64_t m, n, k;
  bool bias;
};

/// Parses the shape file's text; errors carry "file:line: ".
Expected<std::vector<Shape>> parseShapes(const std::string &text, const std::string &file);

/// The shape's graph, with a dynamic token dim: inputs %x then weights (and biases, and the
/// residual %r), output %y.
std::string graphText(const Shape &s);
/// The GEMMs of the graph, in order (gate and up of a SwiGLU MLP are two).
std::vector<GemmDims> gemmsOf(const Shape &s);
/// 2 M N K summed over the GEMMs (the pointwise work is not counted).
double flopsOf(const Shape &s);

/// Bytes a run must move at least: activations in and the output out (bf16), weights in
/// `weightBytes` per element (2: bf16, quantized per run; 1: FP8 quantized ahead), biases.
double ioBytesOf(const Shape &s, int weightBytes);
/// Bytes of a chain of pre-quantized FP8 GEMMs: A and B FP8, D bf16, biases bf16, per GEMM.
double fp8GemmBytesOf(const Shape &s);

} // namespace fp8c::bench
