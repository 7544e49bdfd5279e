// Import of upstream MLIR ops into the fp8 dialect, where the mapping is exact:
//   linalg.matmul ins(%a, %b) outs(%zero)             -> fp8.matmul %a, %b
//   linalg.matmul_transpose_b ins(%x, %w) outs(%zero) -> fp8.linear %x, %w
//   arith.addf (that linear), (linalg.broadcast %bias dimensions = [0])
//                                                    -> fp8.linear %x, %w, %bias
//   arith.addf / arith.mulf of two tensors of one type -> fp8.add / fp8.mul
// on tensors of one f32, f16 or bf16 element type, where `%zero` is a linalg.fill of 0.0 (fp8c's
// matmul does not accumulate into an init operand). fp8c accumulates in f32 and rounds once
// (ir/IR.h); linalg accumulates in its output type, so for f16/bf16 fp8c is the more precise
// of the two. The init plumbing (tensor.empty, tensor.dim, linalg.fill, arith.constant) is
// erased once unused. Anything else that is not func / fp8 is an error naming the op.
#pragma once

#include "mlir/IR/BuiltinOps.h"

namespace fp8c::fp8 {

/// Rewrites `module` in place; fails after emitting one error per op it cannot import.
mlir::LogicalResult importUpstreamOps(mlir::ModuleOp module);

/// True when `module` holds an op of a dialect other than builtin, func and fp8.
bool hasUpstreamOps(mlir::ModuleOp module);

} // namespace fp8c::fp8
