// `fuse` never groups ops into kernels that would need each other's results (a cycle between
// kernels), and leaves existing kernels alone. Regression tests: each graph here made the
// planner fail with "the fusion plan has a cycle between kernels".
// RUN: fp8c %s --passes=fuse --verify-each --print-fusion-plan | FileCheck %s
// RUN: fp8c %s --passes=fuse,fuse,dce --verify-each --emit=ir | FileCheck %s --check-prefix=TWICE

// The scale both GEMMs read: in the first GEMM's kernel, the second GEMM (whose output the
// first GEMM's epilogue adds) would wait for it. It runs first, on its own.
// CHECK-LABEL: // fusion plan for @scale_shared_by_two_gemms: 3 kernels
// CHECK-NEXT:  kernel #0 reduce -> generated
// CHECK-NEXT:    body: fp8.scale %s
// CHECK-NEXT:  kernel #1 gemm -> cublaslt
// CHECK-NEXT:    main: fp8.scaled_matmul %hb
// CHECK-NEXT:  kernel #2 gemm -> generated (cuBLASLt has no fp8.add epilogue)
// CHECK-NEXT:    main: fp8.scaled_matmul %ha
// CHECK-NEXT:    epilogue: fp8.add %z
// CHECK-NOT:   not fused
func.func @scale_shared_by_two_gemms(%xa: tensor<?x256xf8E4M3FN>, %xb: tensor<?x256xf8E4M3FN>, %w8: tensor<128x256xf8E4M3FN>, %am: tensor<f32>, %sw: tensor<f32>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %s = fp8.scale %am : (tensor<f32>) -> tensor<f32>
  %ha = fp8.scaled_matmul %xa, %w8, %s, %sw {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
  %hb = fp8.scaled_matmul %xb, %w8, %s, %sw {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
  %z = fp8.add %ha, %hb : (tensor<?x128xbf16>, tensor<?x128xbf16>) -> tensor<?x128xbf16>
  return %z, %hb : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// One history scale for x, w and the output: the output's cast joins the epilogue, but the
// scale, which the weight's cast needs before the GEMM, runs before it.
// CHECK-LABEL: // fusion plan for @one_scale_for_all: 3 kernels
// CHECK-NEXT:  kernel #0 pointwise -> generated
// CHECK-NEXT:    prologue: fp8.history_scale %s
// CHECK-NEXT:    body: fp8.cast %wq
// CHECK-NEXT:  kernel #1 gemm -> generated (casts A to FP8 in a prologue launch)
// CHECK-NEXT:    prologue: fp8.cast %xq
// CHECK-NEXT:    main: fp8.scaled_matmul %h
// CHECK-NEXT:    epilogue: fp8.cast %hq, fp8.amax %a
// CHECK-NEXT:  kernel #2 reduce -> generated
// CHECK-NEXT:    body: fp8.history_push %n
// CHECK-NOT:   not fused
func.func @one_scale_for_all(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>, %hist: tensor<16xf32> {fp8.state = "h"}) -> (tensor<?x128xf8E4M3FN>, tensor<16xf32> {fp8.state = "h"}) {
  %s = fp8.history_scale %hist : (tensor<16xf32>) -> tensor<f32>
  %xq = fp8.cast %x, %s : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
  %wq = fp8.cast %w, %s : (tensor<128x256xbf16>, tensor<f32>) -> tensor<128x256xf8E4M3FN>
  %h = fp8.scaled_matmul %xq, %wq, %s, %s {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
  %hq = fp8.cast %h, %s : (tensor<?x128xbf16>, tensor<f32>) -> tensor<?x128xf8E4M3FN>
  %a = fp8.amax %h : (tensor<?x128xbf16>) -> tensor<f32>
  %n = fp8.history_push %hist, %a : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  return %hq, %n : tensor<?x128xf8E4M3FN>, tensor<16xf32>
}

// A GEMM reads an updated history, and another history takes that GEMM's amax: the two
// updates cannot share the trailing state kernel.
// CHECK-LABEL: // fusion plan for @reads_updated_history: 4 kernels
// CHECK-NEXT:  kernel #0 reduce -> generated
// CHECK-NEXT:    body: fp8.amax %a1
// CHECK-NEXT:  kernel #1 reduce -> generated
// CHECK-NEXT:    body: fp8.history_push %n1
// CHECK-NEXT:  kernel #2 gemm -> generated (casts A to FP8 in a prologue launch)
// CHECK-NEXT:    prologue: fp8.history_scale %s, fp8.cast %zq
// CHECK-NEXT:    main: fp8.scaled_matmul %y
// CHECK-NEXT:    epilogue: fp8.amax %a2
// CHECK-NEXT:  kernel #3 reduce -> generated
// CHECK-NEXT:    body: fp8.history_push %n2
// CHECK-NOT:   not fused
func.func @reads_updated_history(%x: tensor<?x256xbf16>, %z: tensor<?x256xbf16>, %w8: tensor<128x256xf8E4M3FN>, %sw: tensor<f32>, %h1: tensor<16xf32> {fp8.state = "h1"}, %h2: tensor<16xf32> {fp8.state = "h2"}) -> (tensor<?x128xbf16>, tensor<16xf32> {fp8.state = "h1"}, tensor<16xf32> {fp8.state = "h2"}) {
  %a1 = fp8.amax %x : (tensor<?x256xbf16>) -> tensor<f32>
  %n1 = fp8.history_push %h1, %a1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %s = fp8.history_scale %n1 : (tensor<16xf32>) -> tensor<f32>
  %zq = fp8.cast %z, %s : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
  %y = fp8.scaled_matmul %zq, %w8, %s, %sw {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
  %a2 = fp8.amax %y : (tensor<?x128xbf16>) -> tensor<f32>
  %n2 = fp8.history_push %h2, %a2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  return %y, %n1, %n2 : tensor<?x128xbf16>, tensor<16xf32>, tensor<16xf32>
}

// Fusing a fused graph again changes nothing: existing kernels are kept as they are.
// CHECK-LABEL: // fusion plan for @already_fused: 1 kernel
// CHECK-NEXT:  kernel #0 pointwise -> generated [already fused]
// CHECK-NEXT:    body: fp8.kernel %k
// TWICE-LABEL: func.func @already_fused(
// TWICE-NEXT:    %[[K:.+]] = fp8.kernel "pointwise"
// TWICE-NEXT:    ^bb0(
// TWICE-NEXT:      fp8.relu
// TWICE-NEXT:      fp8.yield
// TWICE-NEXT:    }
// TWICE-NEXT:    return %[[K]]
func.func @already_fused(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%a: tensor<8xbf16>):
    %r = fp8.relu %a : (tensor<8xbf16>) -> tensor<8xbf16>
    fp8.yield %r : tensor<8xbf16>
  }
  return %k : tensor<8xbf16>
}
