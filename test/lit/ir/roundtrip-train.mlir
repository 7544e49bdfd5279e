// Round trip of the training ops (relu_grad, gelu_grad, silu_grad, swiglu_grad, col_sum) and
// the training attributes fp8.grad / fp8.saved on inputs and results.
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @bwd(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x16xbf16> {fp8.saved = "h"}, %[[U:[^:]+]]: tensor<8x16xbf16>, %[[DY:[^:]+]]: tensor<8x16xbf16> {fp8.grad = "y"})
// CHECK-SAME: -> (tensor<8x16xbf16> {fp8.grad = "h"}, tensor<16xbf16> {fp8.grad = "b"})
// CHECK: %[[R:.+]] = fp8.relu_grad %[[DY]], %[[H]] : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[G:.+]] = fp8.gelu_grad %[[R]], %[[H]] {approximate = "tanh"} : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[E:.+]] = fp8.gelu_grad %[[G]], %[[H]] : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[S:.+]] = fp8.silu_grad %[[E]], %[[H]] : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[SG:.+]] = fp8.swiglu_grad %[[S]], %[[H]], %[[U]] {wrt = "gate"} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[SU:.+]] = fp8.swiglu_grad %[[SG]], %[[H]], %[[U]] {wrt = "up"} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[B:.+]] = fp8.col_sum %[[SU]] : (tensor<8x16xbf16>) -> tensor<16xbf16>
// CHECK: return %[[SU]], %[[B]] : tensor<8x16xbf16>, tensor<16xbf16>
func.func @bwd(%h: tensor<8x16xbf16> {fp8.saved = "h"}, %u: tensor<8x16xbf16>, %dy: tensor<8x16xbf16> {fp8.grad = "y"}) -> (tensor<8x16xbf16> {fp8.grad = "h"}, tensor<16xbf16> {fp8.grad = "b"}) {
  %r = fp8.relu_grad %dy, %h : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g = fp8.gelu_grad %r, %h {approximate = "tanh"} : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %e = fp8.gelu_grad %g, %h : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %s = fp8.silu_grad %e, %h : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %sg = fp8.swiglu_grad %s, %h, %u {wrt = "gate"} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %su = fp8.swiglu_grad %sg, %h, %u {wrt = "up"} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %b = fp8.col_sum %su : (tensor<8x16xbf16>) -> tensor<16xbf16>
  return %su, %b : tensor<8x16xbf16>, tensor<16xbf16>
}
