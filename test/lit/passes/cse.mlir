// `cse` (passes/CommonSubexpressionElimination.cpp): an op identical to an earlier one in the
// same block (kind, operands, attributes, result types) is replaced by it; kernel regions are
// handled on their own.
// RUN: fp8c %s --passes=cse --verify-each --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @same_ops(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x64xbf16>, %[[W:[^:]+]]: tensor<32x64xbf16>)
// CHECK-NEXT:   %[[A:.+]] = fp8.amax %[[X]] {granularity = "row"}
// CHECK-NEXT:   %[[S:.+]] = fp8.scale %[[A]] {margin = 1}
// CHECK-NEXT:   %[[Y:.+]] = fp8.linear %[[X]], %[[W]]
// CHECK-NEXT:   %[[G:.+]] = fp8.gelu %[[Y]] {approximate = "tanh"}
// CHECK-NEXT:   %[[Z:.+]] = fp8.add %[[G]], %[[G]]
// CHECK-NEXT:   return %[[S]], %[[S]], %[[Z]]
func.func @same_ops(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x32xbf16>) {
  %a = fp8.amax %x {granularity = "row"} : (tensor<?x64xbf16>) -> tensor<?xf32>
  %s = fp8.scale %a {margin = 1} : (tensor<?xf32>) -> tensor<?xf32>
  %a2 = fp8.amax %x {granularity = "row"} : (tensor<?x64xbf16>) -> tensor<?xf32>
  %s2 = fp8.scale %a2 {margin = 1} : (tensor<?xf32>) -> tensor<?xf32>
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  %y2 = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  %g = fp8.gelu %y {approximate = "tanh"} : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
  %g2 = fp8.gelu %y2 {approximate = "tanh"} : (tensor<?x32xbf16>) -> tensor<?x32xbf16>
  %z = fp8.add %g, %g2 : (tensor<?x32xbf16>, tensor<?x32xbf16>) -> tensor<?x32xbf16>
  return %s, %s2, %z : tensor<?xf32>, tensor<?xf32>, tensor<?x32xbf16>
}

// Negative: different attributes, operands, operand order or result types.
// CHECK-LABEL: func.func @different_ops(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64xbf16>, %[[Y:[^:]+]]: tensor<8x64xbf16>)
// CHECK-NEXT:   %[[A:.+]] = fp8.amax %[[X]] {granularity = "row"}
// CHECK-NEXT:   %[[B:.+]] = fp8.amax %[[X]] {granularity = "col"}
// CHECK-NEXT:   %[[S:.+]] = fp8.scale %[[A]] {margin = 1}
// CHECK-NEXT:   %[[S2:.+]] = fp8.scale %[[A]] {margin = 2}
// CHECK-NEXT:   %[[S3:.+]] = fp8.scale %[[A]] {dtype = f8E5M2}
// CHECK-NEXT:   %[[G:.+]] = fp8.gelu %[[X]] {approximate = "tanh"}
// CHECK-NEXT:   %[[G2:.+]] = fp8.gelu %[[X]] :
// CHECK-NEXT:   %[[G3:.+]] = fp8.gelu %[[Y]] {approximate = "tanh"}
// CHECK-NEXT:   %[[M:.+]] = fp8.mul %[[X]], %[[Y]]
// CHECK-NEXT:   %[[M2:.+]] = fp8.mul %[[Y]], %[[X]]
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[X]] : (tensor<8x64xbf16>) -> tensor<8x64xf32>
// CHECK-NEXT:   %[[C2:.+]] = fp8.convert %[[X]] : (tensor<8x64xbf16>) -> tensor<8x64xf16>
// CHECK-NEXT:   return
func.func @different_ops(%x: tensor<8x64xbf16>, %y: tensor<8x64xbf16>) -> (tensor<8xf32>, tensor<64xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xf32>, tensor<8x64xf16>) {
  %a = fp8.amax %x {granularity = "row"} : (tensor<8x64xbf16>) -> tensor<8xf32>
  %b = fp8.amax %x {granularity = "col"} : (tensor<8x64xbf16>) -> tensor<64xf32>
  %s = fp8.scale %a {margin = 1} : (tensor<8xf32>) -> tensor<8xf32>
  %s2 = fp8.scale %a {margin = 2} : (tensor<8xf32>) -> tensor<8xf32>
  %s3 = fp8.scale %a {dtype = f8E5M2} : (tensor<8xf32>) -> tensor<8xf32>
  %g = fp8.gelu %x {approximate = "tanh"} : (tensor<8x64xbf16>) -> tensor<8x64xbf16>
  %g2 = fp8.gelu %x : (tensor<8x64xbf16>) -> tensor<8x64xbf16>
  %g3 = fp8.gelu %y {approximate = "tanh"} : (tensor<8x64xbf16>) -> tensor<8x64xbf16>
  %m = fp8.mul %x, %y : (tensor<8x64xbf16>, tensor<8x64xbf16>) -> tensor<8x64xbf16>
  %m2 = fp8.mul %y, %x : (tensor<8x64xbf16>, tensor<8x64xbf16>) -> tensor<8x64xbf16>
  %c = fp8.convert %x : (tensor<8x64xbf16>) -> tensor<8x64xf32>
  %c2 = fp8.convert %x : (tensor<8x64xbf16>) -> tensor<8x64xf16>
  return %a, %b, %s, %s2, %s3, %g, %g2, %g3, %m, %m2, %c, %c2 : tensor<8xf32>, tensor<64xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xf32>, tensor<8x64xf16>
}

// Inside a kernel region: duplicates in the region go; a region op is never merged with one
// outside it, and two identical kernels stay two kernels.
// CHECK-LABEL: func.func @kernel_regions(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xbf16>)
// CHECK-NEXT:   %[[R:.+]] = fp8.relu %[[X]]
// CHECK-NEXT:   %[[K:.+]] = fp8.kernel "pointwise" (%[[X]])
// CHECK-NEXT:   ^bb0(%[[A:[^:]+]]: tensor<8xbf16>):
// CHECK-NEXT:     %[[RA:.+]] = fp8.relu %[[A]]
// CHECK-NEXT:     %[[S:.+]] = fp8.add %[[RA]], %[[RA]]
// CHECK-NEXT:     fp8.yield %[[S]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[K2:.+]] = fp8.kernel "pointwise" (%[[X]])
// CHECK-NEXT:   ^bb0(%[[B:[^:]+]]: tensor<8xbf16>):
// CHECK-NEXT:     %[[RB:.+]] = fp8.relu %[[B]]
// CHECK-NEXT:     %[[S2:.+]] = fp8.add %[[RB]], %[[RB]]
// CHECK-NEXT:     fp8.yield %[[S2]]
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[R]], %[[K]], %[[K2]]
func.func @kernel_regions(%x: tensor<8xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %r = fp8.relu %x : (tensor<8xbf16>) -> tensor<8xbf16>
  %k = fp8.kernel "pointwise" (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%a: tensor<8xbf16>):
    %r1 = fp8.relu %a : (tensor<8xbf16>) -> tensor<8xbf16>
    %r2 = fp8.relu %a : (tensor<8xbf16>) -> tensor<8xbf16>
    %s = fp8.add %r1, %r2 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
    fp8.yield %s : tensor<8xbf16>
  }
  %k2 = fp8.kernel "pointwise" (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%b: tensor<8xbf16>):
    %r3 = fp8.relu %b : (tensor<8xbf16>) -> tensor<8xbf16>
    %s2 = fp8.add %r3, %r3 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
    fp8.yield %s2 : tensor<8xbf16>
  }
  return %r, %k, %k2 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}
