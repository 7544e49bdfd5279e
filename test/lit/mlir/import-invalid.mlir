// REQUIRES: mlir
// What the import cannot map exactly is an error located at the op and naming it.
// RUN: %expect-exit 1 fp8c-opt %s --split-input-file --fp8c-import 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @accumulating(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: import-invalid.mlir:[[@LINE+1]]:8: error: 'linalg.matmul' accumulates into its init operand; fp8c imports it only where the init is a linalg.fill of 0.0
  %p = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// -----

func.func @mixed_types(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK: import-invalid.mlir:[[@LINE+1]]:8: error: 'linalg.matmul' with element types tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xf32>: fp8c imports it where all three are one of f32, f16, bf16
  %p = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// -----

func.func @unsupported(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: import-invalid.mlir:[[@LINE+1]]:8: error: unsupported op 'arith.maximumf': fp8c imports linalg.matmul
  %y = arith.maximumf %x, %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A bias broadcast that no linear takes stays, and is reported (not the tensor.empty under it).
func.func @broadcast_alone(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: import-invalid.mlir:[[@LINE+1]]:9: error: unsupported op 'linalg.broadcast'
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %y = arith.addf %x, %bb : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
