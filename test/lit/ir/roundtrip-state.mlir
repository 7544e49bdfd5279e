// Round trip of delayed scaling: fp8.history_scale / fp8.history_push, and `fp8.state`
// attribute dictionaries on function inputs and results (results with attributes print in
// parentheses even when there is one).
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @delayed_linear(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4096xbf16>, %[[W:[^:]+]]: tensor<1024x4096xbf16>, %[[HX:[^:]+]]: tensor<16xf32> {fp8.state = "x_amax"}, %[[HW:[^:]+]]: tensor<1024xf32> {fp8.state = "w_amax"})
// CHECK-SAME: -> (tensor<?x1024xbf16>, tensor<16xf32> {fp8.state = "x_amax"}, tensor<1024xf32> {fp8.state = "w_amax"}) {
// CHECK-NEXT:   %[[SX:.+]] = fp8.history_scale %[[HX]] {algo = "max", dtype = f8E4M3FN, margin = 0} : (tensor<16xf32>) -> tensor<f32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.history_scale %[[HW]] {algo = "most_recent", dtype = f8E5M2, margin = 2, pow2 = true} : (tensor<1024xf32>) -> tensor<f32>
// CHECK-NEXT:   %[[QX:.+]] = fp8.cast %[[X]], %[[SX]] : (tensor<?x4096xbf16>, tensor<f32>) -> tensor<?x4096xf8E4M3FN>
// CHECK-NEXT:   %[[QW:.+]] = fp8.cast %[[W]], %[[SW]] : (tensor<1024x4096xbf16>, tensor<f32>) -> tensor<1024x4096xf8E5M2>
// CHECK-NEXT:   %[[AX:.+]] = fp8.amax %[[X]] : (tensor<?x4096xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[AW:.+]] = fp8.amax %[[W]] : (tensor<1024x4096xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[NX:.+]] = fp8.history_push %[[HX]], %[[AX]] : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
// CHECK-NEXT:   %[[NW:.+]] = fp8.history_push %[[HW]], %[[AW]] : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[QX]], %[[QW]], %[[SX]], %[[SW]] {out = bf16} : (tensor<?x4096xf8E4M3FN>, tensor<1024x4096xf8E5M2>, tensor<f32>, tensor<f32>) -> tensor<?x1024xbf16>
// CHECK-NEXT:   return %[[Y]], %[[NX]], %[[NW]] : tensor<?x1024xbf16>, tensor<16xf32>, tensor<1024xf32>
// CHECK-NEXT: }
func.func @delayed_linear(%x: tensor<?x4096xbf16>, %w: tensor<1024x4096xbf16>,
                          %hx: tensor<16xf32> {fp8.state = "x_amax"},
                          %hw: tensor<1024xf32> {"fp8.state" = "w_amax"})
    -> (tensor<?x1024xbf16>, tensor<16xf32> {fp8.state = "x_amax"}, tensor<1024xf32> {fp8.state = "w_amax"}) {
  %sx = fp8.history_scale %hx {algo = "max", dtype = f8E4M3FN, margin = 0} : (tensor<16xf32>) -> tensor<f32>
  %sw = fp8.history_scale %hw {algo = "most_recent", dtype = f8E5M2, margin = 2, pow2 = true} : (tensor<1024xf32>) -> tensor<f32>
  %qx = fp8.cast %x, %sx : (tensor<?x4096xbf16>, tensor<f32>) -> tensor<?x4096xf8E4M3FN>
  %qw = fp8.cast %w, %sw : (tensor<1024x4096xbf16>, tensor<f32>) -> tensor<1024x4096xf8E5M2>
  %ax = fp8.amax %x : (tensor<?x4096xbf16>) -> tensor<f32>
  %aw = fp8.amax %w : (tensor<1024x4096xbf16>) -> tensor<f32>
  %nx = fp8.history_push %hx, %ax : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %nw = fp8.history_push %hw, %aw : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw {out = bf16} : (tensor<?x4096xf8E4M3FN>, tensor<1024x4096xf8E5M2>, tensor<f32>, tensor<f32>) -> tensor<?x1024xbf16>
  return %y, %nx, %nw : tensor<?x1024xbf16>, tensor<16xf32>, tensor<1024xf32>
}

// One state result: printed in parentheses because it carries an attribute.
// CHECK-LABEL: func.func @push_only(
// CHECK-SAME: %[[H:[^:]+]]: tensor<4xf32> {fp8.state = "h"}, %[[A:[^:]+]]: tensor<f32>) -> (tensor<4xf32> {fp8.state = "h"}) {
// CHECK-NEXT:   %[[N:.+]] = fp8.history_push %[[H]], %[[A]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:   return %[[N]] : tensor<4xf32>
// CHECK-NEXT: }
func.func @push_only(%h: tensor<4xf32> {fp8.state = "h"}, %a: tensor<f32>) -> (tensor<4xf32> {fp8.state = "h"}) {
  %n = fp8.history_push %h, %a : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}
