// The autodiff pass alone: gradient inputs for the outputs, gradient results for the inputs,
// dgrad = dY · W as linear(dY, Wᵀ), wgrad = dYᵀ · X as linear(dYᵀ, Xᵀ), dbias = col_sum(dY),
// activation derivatives, and located errors.
// RUN: %expect-exit 1 fp8c %s --split-input-file --passes=autodiff --verify-each --emit=ir 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x32xf32>, %[[W1:[^:]+]]: tensor<64x32xf32>, %[[B1:[^:]+]]: tensor<64xf32>, %[[W2:[^:]+]]: tensor<16x64xf32>, %[[DY:[^:]+]]: tensor<8x16xf32> {fp8.grad = "y"})
// CHECK-SAME: -> (tensor<8x16xf32>, tensor<8x32xf32> {fp8.grad = "x"}, tensor<64x32xf32> {fp8.grad = "w1"}, tensor<64xf32> {fp8.grad = "b1"}, tensor<16x64xf32> {fp8.grad = "w2"})
// CHECK: %[[H:.+]] = fp8.linear %[[X]], %[[W1]], %[[B1]]
// CHECK: %[[G:.+]] = fp8.gelu %[[H]] {approximate = "tanh"}
// CHECK: %[[Y:.+]] = fp8.linear %[[G]], %[[W2]] :
// CHECK: %[[W2T:.+]] = fp8.transpose %[[W2]] : (tensor<16x64xf32>) -> tensor<64x16xf32>
// CHECK: %[[DG:.+]] = fp8.linear %[[DY]], %[[W2T]] : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
// CHECK: %[[DYT:.+]] = fp8.transpose %[[DY]] : (tensor<8x16xf32>) -> tensor<16x8xf32>
// CHECK: %[[GT:.+]] = fp8.transpose %[[G]] : (tensor<8x64xf32>) -> tensor<64x8xf32>
// CHECK: %[[DW2:.+]] = fp8.linear %[[DYT]], %[[GT]] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
// CHECK: %[[DH:.+]] = fp8.gelu_grad %[[DG]], %[[H]] {approximate = "tanh"}
// CHECK: %[[W1T:.+]] = fp8.transpose %[[W1]]
// CHECK: %[[DX:.+]] = fp8.linear %[[DH]], %[[W1T]] : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<8x32xf32>
// CHECK: %[[DHT:.+]] = fp8.transpose %[[DH]]
// CHECK: %[[XT:.+]] = fp8.transpose %[[X]]
// CHECK: %[[DW1:.+]] = fp8.linear %[[DHT]], %[[XT]] : (tensor<64x8xf32>, tensor<32x8xf32>) -> tensor<64x32xf32>
// CHECK: %[[DB1:.+]] = fp8.col_sum %[[DH]] : (tensor<8x64xf32>) -> tensor<64xf32>
// CHECK: return %[[Y]], %[[DX]], %[[DW1]], %[[DB1]], %[[DW2]]
func.func @mlp(%x: tensor<8x32xf32>, %w1: tensor<64x32xf32>, %b1: tensor<64xf32>, %w2: tensor<16x64xf32>) -> tensor<8x16xf32> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<8x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = fp8.linear %g, %w2 : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----
// A value used twice gets the sum of both gradients; swiglu gives both operands theirs.
// CHECK-LABEL: func.func @swiglu(
// CHECK: %[[GA:.+]] = fp8.swiglu_grad %{{.+}}, %[[A:[^,]+]], %[[B:[^ ]+]] {wrt = "gate"}
// CHECK: %[[GB:.+]] = fp8.swiglu_grad %{{.+}}, %[[A]], %[[B]] {wrt = "up"}
// CHECK: fp8.add %{{.+}}, %{{.+}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @swiglu(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = fp8.relu %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = fp8.swiglu %a, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----
// CHECK: autodiff.mlir:[[@LINE+2]]:3: error: autodiff: cannot differentiate 'fp8.cast': quantization, state and fused ops have no gradient here; run autodiff before quantize and fuse
func.func @quantized(%x: tensor<4x8xbf16>, %s: tensor<f32>) -> tensor<4x8xf8E4M3FN> {
  %q = fp8.cast %x, %s : (tensor<4x8xbf16>, tensor<f32>) -> tensor<4x8xf8E4M3FN>
  return %q : tensor<4x8xf8E4M3FN>
}

// -----
// CHECK: autodiff.mlir:[[@LINE+2]]:3: error: autodiff: cannot differentiate 'fp8.linear': training needs a 2-D input [M, K], got tensor<2x4x8xf32>; flatten the leading dims first
func.func @rank3(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>) -> tensor<2x4x16xf32> {
  %y = fp8.linear %x, %w : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----
// A value returned twice: two gradient inputs with distinct keys (the runtime binds gradients by
// key), summed into the value's gradient.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[DY:[^:]+]]: tensor<4x8xf32> {fp8.grad = "y"}, %[[DY1:[^:]+]]: tensor<4x8xf32> {fp8.grad = "y_1"}, %[[DZ:[^:]+]]: tensor<4x8xf32> {fp8.grad = "z"})
// CHECK: fp8.add %[[DY]], %[[DY1]]
func.func @twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = fp8.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = fp8.silu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %y, %z : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
