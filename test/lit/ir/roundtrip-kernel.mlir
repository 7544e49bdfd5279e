// Round trip of fused kernels: fp8.kernel with its kind printed positionally, other attributes
// in the dictionary, a region whose block arguments and ops print one level deeper, and
// fp8.yield with several, one or no operands; the fusion plan a gemm kernel carries (its
// backend and FP8 GEMM backend, each op's fp8.role) prints as attributes.
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @fused_mlp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<512x256xbf16>, %[[B:[^:]+]]: tensor<512xbf16>) -> (tensor<?x512xbf16>, tensor<f32>) {
// CHECK-NEXT:   %[[AX:.+]] = fp8.amax %[[X]] : (tensor<?x256xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[SX:.+]] = fp8.scale %[[AX]] : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   %[[QX:.+]] = fp8.kernel "pointwise" (%[[X]], %[[SX]]) : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN> {
// CHECK-NEXT:   ^bb0(%[[PX:[^:]+]]: tensor<?x256xbf16>, %[[PS:[^:]+]]: tensor<f32>):
// CHECK-NEXT:     %[[C:.+]] = fp8.cast %[[PX]], %[[PS]] : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
// CHECK-NEXT:     fp8.yield %[[C]] : tensor<?x256xf8E4M3FN>
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[AW:.+]] = fp8.amax %[[W]] : (tensor<512x256xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.scale %[[AW]] : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   %[[QW:.+]] = fp8.cast %[[W]], %[[SW]] : (tensor<512x256xbf16>, tensor<f32>) -> tensor<512x256xf8E4M3FN>
// CHECK-NEXT:   %[[Y:.+]], %[[AMAX:.+]] = fp8.kernel "gemm" (%[[QX]], %[[QW]], %[[SX]], %[[SW]], %[[B]]) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> (tensor<?x512xbf16>, tensor<f32>) {
// CHECK-NEXT:   ^bb0(%[[A:[^:]+]]: tensor<?x256xf8E4M3FN>, %[[BB:[^:]+]]: tensor<512x256xf8E4M3FN>, %[[SA:[^:]+]]: tensor<f32>, %[[SB:[^:]+]]: tensor<f32>, %[[BIAS:[^:]+]]: tensor<512xbf16>):
// CHECK-NEXT:     %[[MM:.+]] = fp8.scaled_matmul %[[A]], %[[BB]], %[[SA]], %[[SB]], %[[BIAS]] {fp8.role = "main", out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x512xbf16>
// CHECK-NEXT:     %[[G:.+]] = fp8.gelu %[[MM]] {approximate = "tanh", fp8.role = "epilogue"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
// CHECK-NEXT:     %[[AG:.+]] = fp8.amax %[[G]] {fp8.role = "epilogue"} : (tensor<?x512xbf16>) -> tensor<f32>
// CHECK-NEXT:     fp8.yield %[[G]], %[[AG]] : tensor<?x512xbf16>, tensor<f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[Y]], %[[AMAX]] : tensor<?x512xbf16>, tensor<f32>
// CHECK-NEXT: }
func.func @fused_mlp(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>)
    -> (tensor<?x512xbf16>, tensor<f32>) {
  %ax = fp8.amax %x : (tensor<?x256xbf16>) -> tensor<f32>
  %sx = fp8.scale %ax : (tensor<f32>) -> tensor<f32>
  %qx = fp8.kernel "pointwise" (%x, %sx) : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN> {
  ^bb0(%x_1: tensor<?x256xbf16>, %sx_1: tensor<f32>):
    %c = fp8.cast %x_1, %sx_1 : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
    fp8.yield %c : tensor<?x256xf8E4M3FN>
  }
  %aw = fp8.amax %w : (tensor<512x256xbf16>) -> tensor<f32>
  %sw = fp8.scale %aw : (tensor<f32>) -> tensor<f32>
  %qw = fp8.cast %w, %sw : (tensor<512x256xbf16>, tensor<f32>) -> tensor<512x256xf8E4M3FN>
  %y, %amax = fp8.kernel "gemm" (%qx, %qw, %sx, %sw, %b) {gemm_backend = "auto", backend = "cublaslt"} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> (tensor<?x512xbf16>, tensor<f32>) {
  ^bb0(%a: tensor<?x256xf8E4M3FN>, %bb: tensor<512x256xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>, %bias: tensor<512xbf16>):
    %mm = fp8.scaled_matmul %a, %bb, %sa, %sb, %bias {out = bf16, fp8.role = "main"} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x512xbf16>
    %g = fp8.gelu %mm {fp8.role = "epilogue", approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
    %ag = fp8.amax %g {fp8.role = "epilogue"} : (tensor<?x512xbf16>) -> tensor<f32>
    fp8.yield %g, %ag : tensor<?x512xbf16>, tensor<f32>
  }
  return %y, %amax : tensor<?x512xbf16>, tensor<f32>
}

// A reduce kernel, and a region with no
// arguments and no results (printed `^bb0:` and a bare `fp8.yield`).
// CHECK-LABEL: func.func @kernel_forms(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x128xf32>) -> tensor<8xf32> {
// CHECK-NEXT:   %[[R:.+]] = fp8.kernel "reduce" (%[[X]]) : (tensor<8x128xf32>) -> tensor<8xf32> {
// CHECK-NEXT:   ^bb0(%[[P:[^:]+]]: tensor<8x128xf32>):
// CHECK-NEXT:     %[[M:.+]] = fp8.amax %[[P]] {granularity = "row"} : (tensor<8x128xf32>) -> tensor<8xf32>
// CHECK-NEXT:     fp8.yield %[[M]] : tensor<8xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   fp8.kernel "pointwise" () : () -> () {
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:     fp8.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[R]] : tensor<8xf32>
// CHECK-NEXT: }
func.func @kernel_forms(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %r = fp8.kernel "reduce" (%x) : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%p: tensor<8x128xf32>):
    %m = fp8.amax %p {granularity = "row"} : (tensor<8x128xf32>) -> tensor<8xf32>
    fp8.yield %m : tensor<8xf32>
  }
  fp8.kernel "pointwise" () : () -> () {
  ^bb0:
    fp8.yield
  }
  return %r : tensor<8xf32>
}
