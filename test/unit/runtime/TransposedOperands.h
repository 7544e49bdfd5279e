// A graph of unquantized GEMMs on transposed operands, shared by the lowering test (each
// transpose read in place by cuBLASLt: TRANSA / TRANSB) and the GPU test (the same against
// the interpreter): the weight-gradient shape linear(transpose(x), transpose(d)), a plain
// matmul ([K, N] B) of a transposed activation, a matmul of a transposed weight, and a
// transpose with a second user (returned), which is written once by a launch. 300 columns: a
// padded pitch.
#pragma once

namespace fp8c::testgraphs {

inline const char *kTransposedOperands = R"(
func.func @t(%x: tensor<300x64xbf16>, %d: tensor<300x96xbf16>, %w: tensor<300x96xbf16>) -> (tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x300xbf16>, tensor<64x96xbf16>, tensor<64x300xbf16>) {
  %xt = fp8.transpose %x : (tensor<300x64xbf16>) -> tensor<64x300xbf16>
  %dt = fp8.transpose %d : (tensor<300x96xbf16>) -> tensor<96x300xbf16>
  %y = fp8.linear %xt, %dt : (tensor<64x300xbf16>, tensor<96x300xbf16>) -> tensor<64x96xbf16>
  %xt2 = fp8.transpose %x : (tensor<300x64xbf16>) -> tensor<64x300xbf16>
  %z = fp8.matmul %xt2, %d : (tensor<64x300xbf16>, tensor<300x96xbf16>) -> tensor<64x96xbf16>
  %wt = fp8.transpose %w : (tensor<300x96xbf16>) -> tensor<96x300xbf16>
  %u = fp8.matmul %z, %wt : (tensor<64x96xbf16>, tensor<96x300xbf16>) -> tensor<64x300xbf16>
  %xt3 = fp8.transpose %x : (tensor<300x64xbf16>) -> tensor<64x300xbf16>
  %v = fp8.matmul %xt3, %d : (tensor<64x300xbf16>, tensor<300x96xbf16>) -> tensor<64x96xbf16>
  return %y, %z, %u, %v, %xt3 : tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x300xbf16>, tensor<64x96xbf16>, tensor<64x300xbf16>
}
)";

} // namespace fp8c::testgraphs
