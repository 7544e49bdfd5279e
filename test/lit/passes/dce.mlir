// `dce` (passes/DeadCodeElimination.cpp): ops whose results nobody uses go, chains of them in
// one run, inside kernel regions too; a kernel none of whose results is used goes whole.
// RUN: fp8c %s --passes=dce --verify-each --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @dead_chain(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x64xbf16>, %[[W:[^:]+]]: tensor<32x64xbf16>)
// CHECK-NEXT:   %[[Y:.+]] = fp8.linear %[[X]], %[[W]]
// CHECK-NEXT:   return %[[Y]]
func.func @dead_chain(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %a = fp8.amax %x : (tensor<?x64xbf16>) -> tensor<f32>
  %s = fp8.scale %a : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %x, %s : (tensor<?x64xbf16>, tensor<f32>) -> tensor<?x64xf8E4M3FN>
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  %g = fp8.gelu %y : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// Negative: every op here feeds the result, one of them twice; state updates are results.
// CHECK-LABEL: func.func @all_live(
// CHECK-NEXT:   %[[A:.+]] = fp8.amax
// CHECK-NEXT:   %[[S:.+]] = fp8.history_scale
// CHECK-NEXT:   %[[Q:.+]] = fp8.cast %{{.+}}, %[[S]]
// CHECK-NEXT:   %[[N:.+]] = fp8.history_push %{{.+}}, %[[A]]
// CHECK-NEXT:   return %[[Q]], %[[N]]
func.func @all_live(%x: tensor<8x64xbf16>, %h: tensor<16xf32> {fp8.state = "h"}) -> (tensor<8x64xf8E4M3FN>, tensor<16xf32> {fp8.state = "h"}) {
  %a = fp8.amax %x : (tensor<8x64xbf16>) -> tensor<f32>
  %s = fp8.history_scale %h : (tensor<16xf32>) -> tensor<f32>
  %q = fp8.cast %x, %s : (tensor<8x64xbf16>, tensor<f32>) -> tensor<8x64xf8E4M3FN>
  %n = fp8.history_push %h, %a : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  return %q, %n : tensor<8x64xf8E4M3FN>, tensor<16xf32>
}

// In a kernel region: the dead relu goes, the kernel stays; a kernel whose results are unused
// goes as a whole.
// CHECK-LABEL: func.func @kernel_regions(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xbf16>)
// CHECK-NEXT:   %[[K:.+]] = fp8.kernel "pointwise" (%[[X]])
// CHECK-NEXT:   ^bb0(%[[A:[^:]+]]: tensor<8xbf16>):
// CHECK-NEXT:     %[[G:.+]] = fp8.gelu %[[A]]
// CHECK-NEXT:     fp8.yield %[[G]]
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[K]]
// CHECK-NOT:    fp8.kernel
func.func @kernel_regions(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%a: tensor<8xbf16>):
    %r = fp8.relu %a : (tensor<8xbf16>) -> tensor<8xbf16>
    %g = fp8.gelu %a : (tensor<8xbf16>) -> tensor<8xbf16>
    fp8.yield %g : tensor<8xbf16>
  }
  %k2 = fp8.kernel "pointwise" (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%b: tensor<8xbf16>):
    %s = fp8.silu %b : (tensor<8xbf16>) -> tensor<8xbf16>
    fp8.yield %s : tensor<8xbf16>
  }
  return %k : tensor<8xbf16>
}
