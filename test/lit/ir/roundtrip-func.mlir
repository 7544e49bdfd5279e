// Round trip of function signatures and names: no inputs, no results, several results, quoted
// symbol names, `func.return` (printed `return`), SSA names of every legal spelling (numbers and
// `$ . - _`, kept as written), and an MLIR `module { }` wrapper (accepted, not printed).
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-NOT: module
module {

// CHECK-LABEL: func.func @no_results(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>) {
// CHECK-NEXT:   return{{$}}
// CHECK-NEXT: }
func.func @no_results(%x: tensor<4xf32>) {
  return
}

// CHECK-LABEL: func.func @no_inputs() {
// CHECK-NEXT:   return{{$}}
// CHECK-NEXT: }
func.func @no_inputs() -> () {
  func.return
}

// CHECK-LABEL: func.func @"quoted name.v2"(
// CHECK-SAME: %0: tensor<2x3xf32>, %1: tensor<f32>) -> (tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>) {
// CHECK-NEXT:   %7 = fp8.mul %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %x.y$z-1_ = fp8.relu %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %-neg = fp8.silu %x.y$z-1_ : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %.dot = fp8.add %-neg, %-neg : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   return %.dot, %1, %0 : tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>
// CHECK-NEXT: }
func.func @"quoted name.v2"(%0: tensor<2x3xf32>, %1: tensor<f32>)
    -> (tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>) {
  %7 = fp8.mul %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %x.y$z-1_ = fp8.relu %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %-neg = fp8.silu %x.y$z-1_ : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %.dot = fp8.add %-neg, %-neg : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %.dot, %1, %0 : tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>
}

}
