// REQUIRES: mlir
// Import of upstream ops where the mapping is exact (dialects/fp8/Import.h): linalg.matmul ->
// fp8.matmul, linalg.matmul_transpose_b -> fp8.linear, the arith.addf of a linalg.broadcast
// bias folded into fp8.linear, arith.addf / arith.mulf of equal tensors -> fp8.add / fp8.mul.
// The init plumbing (tensor.empty, tensor.dim, linalg.fill of 0.0) goes; names stay.
// RUN: fp8c-opt %s --split-input-file --fp8c-import | FileCheck %s
// The imported graph runs fp8c's pipeline like any other:
// RUN: fp8c-opt %s --split-input-file --fp8c-import --fp8c-pipeline=recipe=tensorwise | FileCheck %s --check-prefix=QUANT

// CHECK-LABEL: func.func @linear_bias(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
// CHECK-NEXT:    %y = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
// CHECK-NEXT:    %r = fp8.mul %y, %y : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
// CHECK-NEXT:    return %r : tensor<?x512xbf16>
// CHECK-NEXT:  }
// QUANT-LABEL: func.func @linear_bias(
// QUANT:         fp8.scaled_matmul
func.func @linear_bias(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : bf16
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %e = tensor.empty(%m) : tensor<?x512xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %mm = linalg.matmul_transpose_b ins(%x, %w : tensor<?x256xbf16>, tensor<512x256xbf16>) outs(%acc : tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %e2 = tensor.empty(%m) : tensor<?x512xbf16>
  %bias = linalg.broadcast ins(%b : tensor<512xbf16>) outs(%e2 : tensor<?x512xbf16>) dimensions = [0]
  %y = arith.addf %mm, %bias : tensor<?x512xbf16>
  %r = arith.mulf %y, %y : tensor<?x512xbf16>
  return %r : tensor<?x512xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
// CHECK-NEXT:    %p = fp8.matmul %a, %b : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
// CHECK-NEXT:    %s = fp8.add %c, %p : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
// CHECK-NEXT:    return %s : tensor<64x32xf32>
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%acc : tensor<64x32xf32>) -> tensor<64x32xf32>
  %s = arith.addf %c, %p : tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}
