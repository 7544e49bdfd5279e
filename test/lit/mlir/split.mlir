// REQUIRES: mlir
// fp8c-opt splits --split-input-file cases itself: diagnostics name the file and its line
// numbers (as fp8c's do, not MLIR 19's "within split at ..."), outputs are separated by
// `// -----` as fp8c separates them, and a failing case fails the run without hiding the
// others. --verify-diagnostics checks expected-error annotations per case.
// RUN: %expect-exit 1 fp8c-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: fp8c-opt %s --split-input-file --verify-diagnostics

// CHECK-LABEL: func.func @first(
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-NEXT:  // -----
func.func @first(%x: tensor<4xf32>) {
  return
}

// -----

func.func @second(%x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<4xf32> {
  // CHECK: {{^}}{{.*}}split.mlir:[[@LINE+2]]:3: error: 'fp8.add' op operand shapes differ: [4] and [8]
  // expected-error@+1 {{'fp8.add' op operand shapes differ: [4] and [8]}}
  %s = fp8.add %x, %y : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @third(
func.func @third() {
  return
}
