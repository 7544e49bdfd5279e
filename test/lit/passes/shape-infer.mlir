// `shape-infer` (passes/ShapeInfer.cpp): result types recomputed from the inputs; with
// tokens=N, every dynamic leading dim becomes N first, through ops, kernel regions and the
// signature.
// RUN: fp8c %s --passes=shape-infer --verify-each --emit=ir | FileCheck %s --check-prefix=DYN
// RUN: fp8c %s --passes='shape-infer{tokens=5}' --verify-each --emit=ir | FileCheck %s --check-prefix=T5
// RUN: fp8c %s --passes='quantize{recipe=rowwise},fuse,shape-infer{tokens=3}' --verify-each --emit=ir | FileCheck %s --check-prefix=FUSED
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens=0}' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens=x}' 2>&1 | FileCheck %s --check-prefix=BAD-X

// BAD: fp8c: error: pass 'shape-infer': option tokens must be a positive integer, got '0'
// BAD-X: fp8c: error: pass 'shape-infer': option tokens must be a positive integer, got 'x'

// DYN-LABEL: func.func @mlp(
// DYN-SAME: %[[X:[^:]+]]: tensor<?x64xbf16>, %[[W1:[^:]+]]: tensor<256x64xbf16>, %[[B1:[^:]+]]: tensor<256xbf16>, %[[W2:[^:]+]]: tensor<64x256xbf16>) -> (tensor<?x64xbf16>, tensor<?xf32>) {
// DYN-NEXT:   %[[H:.+]] = fp8.linear %[[X]], %[[W1]], %[[B1]] : (tensor<?x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
// DYN-NEXT:   %[[G:.+]] = fp8.gelu %[[H]] {approximate = "tanh"} : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
// DYN-NEXT:   %[[Y:.+]] = fp8.linear %[[G]], %[[W2]] : (tensor<?x256xbf16>, tensor<64x256xbf16>) -> tensor<?x64xbf16>
// DYN-NEXT:   %[[A:.+]] = fp8.amax %[[Y]] {granularity = "row"} : (tensor<?x64xbf16>) -> tensor<?xf32>
// DYN-NEXT:   return %[[Y]], %[[A]] : tensor<?x64xbf16>, tensor<?xf32>

// T5-LABEL: func.func @mlp(
// T5-SAME: %[[X:[^:]+]]: tensor<5x64xbf16>, %[[W1:[^:]+]]: tensor<256x64xbf16>, %[[B1:[^:]+]]: tensor<256xbf16>, %[[W2:[^:]+]]: tensor<64x256xbf16>) -> (tensor<5x64xbf16>, tensor<5xf32>) {
// T5-NEXT:   %[[H:.+]] = fp8.linear %[[X]], %[[W1]], %[[B1]] : (tensor<5x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<5x256xbf16>
// T5-NEXT:   %[[G:.+]] = fp8.gelu %[[H]] {approximate = "tanh"} : (tensor<5x256xbf16>) -> tensor<5x256xbf16>
// T5-NEXT:   %[[Y:.+]] = fp8.linear %[[G]], %[[W2]] : (tensor<5x256xbf16>, tensor<64x256xbf16>) -> tensor<5x64xbf16>
// T5-NEXT:   %[[A:.+]] = fp8.amax %[[Y]] {granularity = "row"} : (tensor<5x64xbf16>) -> tensor<5xf32>
// T5-NEXT:   return %[[Y]], %[[A]] : tensor<5x64xbf16>, tensor<5xf32>

// The row scales of the 3 tokens, inside and outside the kernels.
// FUSED-LABEL: func.func @mlp(
// FUSED-SAME: %{{[^:]+}}: tensor<3x64xbf16>
// FUSED-SAME: -> (tensor<3x64xbf16>, tensor<3xf32>) {
// FUSED:        fp8.kernel "reduce" ({{.*}}) {backend = "generated"} : (tensor<3x64xbf16>) -> (tensor<3xf32>, tensor<3x64xf8E4M3FN>) {
// FUSED-NEXT:   ^bb0(%{{.+}}: tensor<3x64xbf16>):
// FUSED-NEXT:     fp8.amax {{.+}} {fp8.role = "body", granularity = "row"} : (tensor<3x64xbf16>) -> tensor<3xf32>
// FUSED:        fp8.kernel "gemm"
// FUSED-SAME:     -> (tensor<3x256xbf16>, tensor<3xf32>)
// FUSED-NOT:    ?x
// FUSED:        return {{.+}} : tensor<3x64xbf16>, tensor<3xf32>
func.func @mlp(%x: tensor<?x64xbf16>, %w1: tensor<256x64xbf16>, %b1: tensor<256xbf16>, %w2: tensor<64x256xbf16>) -> (tensor<?x64xbf16>, tensor<?xf32>) {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
  %y = fp8.linear %g, %w2 : (tensor<?x256xbf16>, tensor<64x256xbf16>) -> tensor<?x64xbf16>
  %a = fp8.amax %y {granularity = "row"} : (tensor<?x64xbf16>) -> tensor<?xf32>
  return %y, %a : tensor<?x64xbf16>, tensor<?xf32>
}
