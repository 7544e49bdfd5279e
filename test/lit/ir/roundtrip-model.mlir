// Round trip of the model ops (fp8.linear, matmul, add, mul, relu, gelu, silu, swiglu, convert,
// transpose): printing keeps every op, operand, attribute and name; comments and line breaks of
// the input are not kept.
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4096xbf16>, %[[W1:[^:]+]]: tensor<14336x4096xbf16>, %[[B1:[^:]+]]: tensor<14336xbf16>,
// CHECK-SAME: %[[W2:[^:]+]]: tensor<4096x14336xbf16>, %[[B2:[^:]+]]: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
// CHECK-NEXT:   %[[H:.+]] = fp8.linear %[[X]], %[[W1]], %[[B1]] : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
// CHECK-NEXT:   %[[G:.+]] = fp8.gelu %[[H]] {approximate = "tanh"} : (tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
// CHECK-NEXT:   %[[Y:.+]] = fp8.linear %[[G]], %[[W2]], %[[B2]] : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
// CHECK-NEXT:   return %[[Y]] : tensor<?x4096xbf16>
// CHECK-NEXT: }
func.func @mlp(%x: tensor<?x4096xbf16>, %w1: tensor<14336x4096xbf16>, %b1: tensor<14336xbf16>,
               %w2: tensor<4096x14336xbf16>, %b2: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

// CHECK-LABEL: func.func @pointwise(
// CHECK-SAME: %[[A:[^:]+]]: tensor<16x32xf32>, %[[B:[^:]+]]: tensor<16x32xf32>, %[[S:[^:]+]]: tensor<f32>) -> tensor<16x32xf32> {
// CHECK-NEXT:   %[[ADD:.+]] = fp8.add %[[A]], %[[B]] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[MUL:.+]] = fp8.mul %[[ADD]], %[[S]] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[BC:.+]] = fp8.add %[[S]], %[[MUL]] : (tensor<f32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[R:.+]] = fp8.relu %[[BC]] : (tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[GN:.+]] = fp8.gelu %[[R]] {approximate = "none"} : (tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[GD:.+]] = fp8.gelu %[[GN]] : (tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[SI:.+]] = fp8.silu %[[GD]] : (tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.swiglu %[[SI]], %[[B]] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:   return %[[SW]] : tensor<16x32xf32>
// CHECK-NEXT: }
func.func @pointwise(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>, %s: tensor<f32>) -> tensor<16x32xf32> {
  %sum = fp8.add %a, %b : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %prod = fp8.mul %sum, %s : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %bcast = fp8.add %s, %prod : (tensor<f32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = fp8.relu %bcast : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %gn = fp8.gelu %r {approximate = "none"} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  // An absent attribute stays absent (its default, "none", is not printed).
  %gd = fp8.gelu %gn : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %si = fp8.silu %gd : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %sw = fp8.swiglu %si, %b : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %sw : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @layout(
// CHECK-SAME: %[[A:[^:]+]]: tensor<64x128xf16>, %[[B:[^:]+]]: tensor<128x32xf16>, %[[W:[^:]+]]: tensor<64x32xf16>) -> (tensor<32x64xbf16>, tensor<64x64xf16>) {
// CHECK-NEXT:   %[[M:.+]] = fp8.matmul %[[A]], %[[B]] : (tensor<64x128xf16>, tensor<128x32xf16>) -> tensor<64x32xf16>
// CHECK-NEXT:   %[[T:.+]] = fp8.transpose %[[M]] : (tensor<64x32xf16>) -> tensor<32x64xf16>
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[T]] : (tensor<32x64xf16>) -> tensor<32x64xbf16>
// CHECK-NEXT:   %[[L:.+]] = fp8.linear %[[M]], %[[W]] : (tensor<64x32xf16>, tensor<64x32xf16>) -> tensor<64x64xf16>
// CHECK-NEXT:   return %[[C]], %[[L]] : tensor<32x64xbf16>, tensor<64x64xf16>
// CHECK-NEXT: }
func.func @layout(%a: tensor<64x128xf16>, %b: tensor<128x32xf16>, %w: tensor<64x32xf16>)
    -> (tensor<32x64xbf16>, tensor<64x64xf16>) {
  %m = fp8.matmul %a, %b : (tensor<64x128xf16>, tensor<128x32xf16>) -> tensor<64x32xf16>
  %t = fp8.transpose %m : (tensor<64x32xf16>) -> tensor<32x64xf16>
  %c = fp8.convert %t : (tensor<32x64xf16>) -> tensor<32x64xbf16>
  %l = fp8.linear %m, %w : (tensor<64x32xf16>, tensor<64x32xf16>) -> tensor<64x64xf16>
  func.return %c, %l : tensor<32x64xbf16>, tensor<64x64xf16>
}

// fp8.linear on an input of rank > 2 (as nn.Linear): the leading dims are kept, the last is N.
// CHECK-LABEL: func.func @linear_rank3(
// CHECK-NEXT:   %[[Y3:.+]] = fp8.linear %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x4x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
// CHECK-NEXT:   %[[Y4:.+]] = fp8.linear %{{.+}}, %{{.+}} : (tensor<2x3x5x64xf32>, tensor<16x64xf32>) -> tensor<2x3x5x16xf32>
// CHECK-NEXT:   return %[[Y3]], %[[Y4]] : tensor<?x4x512xbf16>, tensor<2x3x5x16xf32>
func.func @linear_rank3(%x: tensor<?x4x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>, %x4: tensor<2x3x5x64xf32>, %w4: tensor<16x64xf32>) -> (tensor<?x4x512xbf16>, tensor<2x3x5x16xf32>) {
  %y = fp8.linear %x, %w, %b : (tensor<?x4x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
  %y4 = fp8.linear %x4, %w4 : (tensor<2x3x5x64xf32>, tensor<16x64xf32>) -> tensor<2x3x5x16xf32>
  return %y, %y4 : tensor<?x4x512xbf16>, tensor<2x3x5x16xf32>
}
