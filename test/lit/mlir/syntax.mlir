// REQUIRES: mlir
// The fp8 dialect's syntax is fp8c's: fp8c-opt prints fp8c's text form by default, and the
// dialect's own printers (MLIR's output with --print-mlir) print the same op syntax, with the
// result and kernel-argument names the parser recorded (NameLoc) and an op located at its
// first token.
// RUN: fp8c-opt %s | FileCheck %s
// RUN: fp8c-opt %s --print-mlir | FileCheck %s --check-prefix=MLIR
// RUN: fp8c-opt %s --print-mlir --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// MLIR's own round trip of its output (names then print as MLIR chooses):
// RUN: fp8c-opt %s --print-mlir | fp8c-opt --print-mlir | FileCheck %s --check-prefix=MLIR

// CHECK-LABEL: func.func @ops(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xbf16>) -> (tensor<?x32xbf16>, tensor<f32>) {
// CHECK-NEXT:   %h = fp8.linear %x, %w, %b : (tensor<?x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<?x32xbf16>
// CHECK-NEXT:   %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
// CHECK-NEXT:   %0 = fp8.amax %g {granularity = "row"} : (tensor<?x32xbf16>) -> tensor<?xf32>
// CHECK-NEXT:   %s = fp8.scale %0 {dtype = f8E5M2, margin = 3, pow2 = true} : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:   %y, %m = fp8.kernel "pointwise" (%g, %s) : (tensor<?x32xbf16>, tensor<?xf32>) -> (tensor<?x32xbf16>, tensor<f32>) {
// CHECK-NEXT:   ^bb0(%a: tensor<?x32xbf16>, %sa: tensor<?xf32>):
// CHECK-NEXT:     %q = fp8.cast %a, %sa {granularity = "row"} : (tensor<?x32xbf16>, tensor<?xf32>) -> tensor<?x32xf8E5M2>
// CHECK-NEXT:     %d = fp8.dequant %q, %sa {granularity = "row"} : (tensor<?x32xf8E5M2>, tensor<?xf32>) -> tensor<?x32xbf16>
// CHECK-NEXT:     %1 = fp8.amax %d : (tensor<?x32xbf16>) -> tensor<f32>
// CHECK-NEXT:     fp8.yield %d, %1 : tensor<?x32xbf16>, tensor<f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   return %y, %m : tensor<?x32xbf16>, tensor<f32>
// CHECK-NEXT: }

// MLIR:      module {
// MLIR-NEXT:   func.func @ops(%arg0: tensor<?x64xbf16>, %arg1: tensor<32x64xbf16>, %arg2: tensor<32xbf16>) -> (tensor<?x32xbf16>, tensor<f32>) {
// MLIR-NEXT:     %h = fp8.linear %arg0, %arg1, %arg2 : (tensor<?x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<?x32xbf16>
// MLIR-NEXT:     %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
// MLIR-NEXT:     %0 = fp8.amax %g {granularity = "row"} : (tensor<?x32xbf16>) -> tensor<?xf32>
// MLIR-NEXT:     %s = fp8.scale %0 {dtype = f8E5M2, margin = 3, pow2 = true} : (tensor<?xf32>) -> tensor<?xf32>
// MLIR-NEXT:     %y, %m = fp8.kernel "pointwise" (%g, %s) : (tensor<?x32xbf16>, tensor<?xf32>) -> (tensor<?x32xbf16>, tensor<f32>) {
// MLIR-NEXT:     ^bb0(%a: tensor<?x32xbf16>, %sa: tensor<?xf32>):
// MLIR-NEXT:       %q = fp8.cast %a, %sa {granularity = "row"} : (tensor<?x32xbf16>, tensor<?xf32>) -> tensor<?x32xf8E5M2>
// MLIR-NEXT:       %d = fp8.dequant %q, %sa {granularity = "row"} : (tensor<?x32xf8E5M2>, tensor<?xf32>) -> tensor<?x32xbf16>
// MLIR-NEXT:       %1 = fp8.amax %d : (tensor<?x32xbf16>) -> tensor<f32>
// MLIR-NEXT:       fp8.yield %d, %1 : tensor<?x32xbf16>, tensor<f32>
// MLIR-NEXT:     }
// MLIR-NEXT:     return %y, %m : tensor<?x32xbf16>, tensor<f32>
// MLIR-NEXT:   }

// An op is located at its first token (the result name), as in fp8c; names are NameLocs,
// one per result in a FusedLoc for an op with several.
// LOC: #[[H:loc[0-9]+]] = loc("{{.*}}syntax.mlir":[[@LINE+8]]:3)
// LOC: #[[K:loc[0-9]+]] = loc("{{.*}}syntax.mlir":[[@LINE+11]]:3)
// LOC: = loc("h"(#[[H]]))
// LOC: = loc(fused<["y", "m"]>[#[[K]]])
func.func @ops(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xbf16>)
    -> (tensor<?x32xbf16>, tensor<f32>) {
  // Comments are not kept; neither printer prints an empty attribute dictionary, and both
  // print attributes sorted by name.
  %h = fp8.linear %x, %w, %b : (tensor<?x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<?x32xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
  %0 = fp8.amax %g {granularity = "row"} : (tensor<?x32xbf16>) -> tensor<?xf32>
  %s = fp8.scale %0 {pow2 = true, margin = 3 : i64, dtype = f8E5M2} : (tensor<?xf32>) -> tensor<?xf32>
  %y, %m = fp8.kernel "pointwise" (%g, %s) {} : (tensor<?x32xbf16>, tensor<?xf32>) -> (tensor<?x32xbf16>, tensor<f32>) {
  ^bb0(%a: tensor<?x32xbf16>, %sa: tensor<?xf32>):
    %q = fp8.cast %a, %sa {granularity = "row"} : (tensor<?x32xbf16>, tensor<?xf32>) -> tensor<?x32xf8E5M2>
    %d = fp8.dequant %q, %sa {granularity = "row"} : (tensor<?x32xf8E5M2>, tensor<?xf32>) -> tensor<?x32xbf16>
    %1 = fp8.amax %d : (tensor<?x32xbf16>) -> tensor<f32>
    fp8.yield %d, %1 : tensor<?x32xbf16>, tensor<f32>
  }
  return %y, %m : tensor<?x32xbf16>, tensor<f32>
}
