// REQUIRES: mlir
// `fp8c --frontend=mlir` reads the same text through MLIR's parser (and the import of
// upstream ops), and gives the same IR, plans and interpreter results as fp8c's own parser.
// RUN: fp8c --frontend=mlir %s --emit=ir > %t.mlir.ir
// RUN: fp8c %s --emit=ir > %t.fp8c.ir
// RUN: diff %t.mlir.ir %t.fp8c.ir
// RUN: fp8c --frontend=mlir %s --recipe=delayed --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c --frontend=mlir %s --run=cpu --random-inputs=3 --dynamic-dim=2 --print-outputs > %t.mlir.out
// RUN: fp8c %s --run=cpu --random-inputs=3 --dynamic-dim=2 --print-outputs > %t.fp8c.out
// RUN: diff %t.mlir.out %t.fp8c.out
// RUN: %expect-exit 1 fp8c --frontend=mlir %S/Inputs/frontend-invalid.mlir --emit=ir 2>&1 | FileCheck %s --check-prefix=ERR

// PLAN: // fusion plan for @small_mlp: 5 kernels
// PLAN: kernel #{{[0-9]+}} gemm
// PLAN: kernel #{{[0-9]+}} gemm
func.func @small_mlp(%x: tensor<?x64xbf16>, %w1: tensor<128x64xbf16>, %b1: tensor<128xbf16>, %w2: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<?x128xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %y = fp8.linear %g, %w2 : (tensor<?x128xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
// ERR: frontend-invalid.mlir:2:3: error: 'fp8.linear' op K mismatch: input has 64, weight has 32
