// `fuse`: what a GEMM's epilogue takes (docs/architecture.md): bias, activations (relu, gelu in
// both forms, silu, swiglu of a dual GEMM), a residual add, and one amax of its output.
// The IR is checked region by region, the plan line by line.
// RUN: fp8c %s --passes=fuse --verify-each --emit=ir | FileCheck %s
// RUN: fp8c %s --passes=fuse --verify-each --print-fusion-plan | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<128x256xbf16>, %[[B:[^:]+]]: tensor<128xbf16>)
// CHECK-NEXT:   %[[K:.+]] = fp8.kernel "gemm" (%[[X]], %[[W]], %[[B]]) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<?x256xbf16>, tensor<128x256xbf16>, tensor<128xbf16>) -> tensor<?x128xbf16> {
// CHECK-NEXT:   ^bb0(%[[KX:[^:]+]]: tensor<?x256xbf16>, %[[KW:[^:]+]]: tensor<128x256xbf16>, %[[KB:[^:]+]]: tensor<128xbf16>):
// CHECK-NEXT:     %[[H:.+]] = fp8.linear %[[KX]], %[[KW]], %[[KB]]
// CHECK-NEXT:     %[[R:.+]] = fp8.relu %[[H]]
// CHECK-NEXT:     fp8.yield %[[R]] : tensor<?x128xbf16>
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[K]] : tensor<?x128xbf16>
// PLAN-LABEL: // fusion plan for @bias_relu: 1 kernel
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.relu %r
// PLAN-NOT:   not fused
func.func @bias_relu(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>, %b: tensor<128xbf16>) -> tensor<?x128xbf16> {
  %h = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<128x256xbf16>, tensor<128xbf16>) -> tensor<?x128xbf16>
  %r = fp8.relu %h : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  return %r : tensor<?x128xbf16>
}

// Both forms fuse; cuBLASLt's GELU epilogue is the tanh form, so the erf form needs the
// generated kernel.
// CHECK-LABEL: func.func @gelu_forms(
// CHECK:        %[[G:.+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[H:.+]] = fp8.linear
// CHECK-NEXT:     %[[G1:.+]] = fp8.gelu %[[H]] {approximate = "tanh", fp8.role = "epilogue"}
// CHECK-NEXT:     fp8.yield %[[G1]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[G2:.+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[H2:.+]] = fp8.linear
// CHECK-NEXT:     %[[G3:.+]] = fp8.gelu %[[H2]] {fp8.role = "epilogue"} :
// CHECK-NEXT:     fp8.yield %[[G3]]
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[G]], %[[G2]]
// PLAN-LABEL: // fusion plan for @gelu_forms: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.gelu %g
// PLAN-NEXT:  kernel #1 gemm -> generated (cuBLASLt's GELU epilogue is the tanh form only)
// PLAN-NEXT:    main: fp8.linear %h2
// PLAN-NEXT:    epilogue: fp8.gelu %g2
// PLAN-NOT:   not fused
func.func @gelu_forms(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>, %w2: tensor<128x256xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %h2 = fp8.linear %x, %w2 : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %g2 = fp8.gelu %h2 : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  return %g, %g2 : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// A residual add of the GEMM's own input after silu: x enters the kernel once.
// CHECK-LABEL: func.func @silu_residual(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<256x256xbf16>)
// CHECK-NEXT:   %[[K:.+]] = fp8.kernel "gemm" (%[[X]], %[[W]])
// CHECK-NEXT:   ^bb0(%[[KX:[^:]+]]: tensor<?x256xbf16>, %[[KW:[^:]+]]: tensor<256x256xbf16>):
// CHECK-NEXT:     %[[H:.+]] = fp8.linear %[[KX]], %[[KW]]
// CHECK-NEXT:     %[[S:.+]] = fp8.silu %[[H]]
// CHECK-NEXT:     %[[Y:.+]] = fp8.add %[[S]], %[[KX]]
// CHECK-NEXT:     fp8.yield %[[Y]]
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[K]]
// PLAN-LABEL: // fusion plan for @silu_residual: 1 kernel
// PLAN-NEXT:  kernel #0 gemm -> generated (cuBLASLt has no fp8.silu epilogue)
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.silu %s, fp8.add %y
// PLAN-NOT:   not fused
func.func @silu_residual(%x: tensor<?x256xbf16>, %w: tensor<256x256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<256x256xbf16>) -> tensor<?x256xbf16>
  %s = fp8.silu %h : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
  %y = fp8.add %s, %x : (tensor<?x256xbf16>, tensor<?x256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// A residual from elsewhere (another GEMM): that GEMM runs first.
// CHECK-LABEL: func.func @residual_from_other_gemm(
// CHECK:        %[[R:.+]] = fp8.kernel "gemm"
// CHECK:        %[[Y:.+]] = fp8.kernel "gemm" ({{.*}}%[[R]]{{.*}})
// CHECK-NEXT:   ^bb0({{.*}}, %[[KR:[^:]+]]: tensor<?x128xbf16>):
// CHECK-NEXT:     %[[H:.+]] = fp8.linear
// CHECK-NEXT:     %[[S:.+]] = fp8.add %[[H]], %[[KR]]
// CHECK-NEXT:     fp8.yield %[[S]]
// PLAN-LABEL: // fusion plan for @residual_from_other_gemm: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %r
// PLAN-NEXT:  kernel #1 gemm -> generated (cuBLASLt has no fp8.add epilogue)
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.add %s
// PLAN-NOT:   not fused
func.func @residual_from_other_gemm(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>, %w2: tensor<128x256xbf16>) -> tensor<?x128xbf16> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %r = fp8.linear %x, %w2 : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %s = fp8.add %h, %r : (tensor<?x128xbf16>, tensor<?x128xbf16>) -> tensor<?x128xbf16>
  return %s : tensor<?x128xbf16>
}

// One amax of the output joins the epilogue; each other amax of it is a reduce kernel of its
// own (a launch reduces one amax per tensor, and tiles it in 128x128 blocks or not at all),
// with the reason in the plan.
// CHECK-LABEL: func.func @output_amax(
// CHECK-NEXT:   %[[H:[^,]+]], %[[T:[^ ]+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[KH:.+]] = fp8.linear
// CHECK-NEXT:     %[[KT:.+]] = fp8.amax %[[KH]] {fp8.role = "epilogue", granularity = "tensor"}
// CHECK-NEXT:     fp8.yield %[[KH]], %[[KT]] :
// CHECK-NEXT:   }
// CHECK-COUNT-4: fp8.kernel "reduce" (%[[H]])
// PLAN-LABEL: // fusion plan for @output_amax: 5 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.amax %t
// PLAN:       not fused:
// PLAN-NEXT:    fp8.amax %r not in the epilogue of kernel #0: the kernel already reduces an amax of %h (fp8.amax %t); it is in kernel #1 (body)
// PLAN-NEXT:    fp8.amax %c not in the epilogue of kernel #0: the kernel already reduces an amax of %h (fp8.amax %t); it is in kernel #2 (body)
// PLAN-NEXT:    fp8.amax %b1 not in the epilogue of kernel #0: the kernel already reduces an amax of %h (fp8.amax %t); it is in kernel #3 (body)
// PLAN-NEXT:    fp8.amax %b2 not in the epilogue of kernel #0: a launch tiles %h in 128x128 blocks or not at all, and the kernel holds fp8.amax %t; it is in kernel #4 (body)
// The kernels lower.
// RUN: fp8c %s --passes=fuse,dce --func output_amax --emit=cuda | FileCheck %s --check-prefix=LOWER
// LOWER-COUNT-5: __global__
func.func @output_amax(%x: tensor<?x256xbf16>, %w: tensor<256x256xbf16>) -> (tensor<?x256xbf16>, tensor<f32>, tensor<?xf32>, tensor<256xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<256x256xbf16>) -> tensor<?x256xbf16>
  %t = fp8.amax %h {granularity = "tensor"} : (tensor<?x256xbf16>) -> tensor<f32>
  %r = fp8.amax %h {granularity = "row"} : (tensor<?x256xbf16>) -> tensor<?xf32>
  %c = fp8.amax %h {granularity = "col"} : (tensor<?x256xbf16>) -> tensor<256xf32>
  %b1 = fp8.amax %h {granularity = "block_1x128"} : (tensor<?x256xbf16>) -> tensor<?x2xf32>
  %b2 = fp8.amax %h {granularity = "block_128x128"} : (tensor<?x256xbf16>) -> tensor<?x2xf32>
  return %h, %t, %r, %c, %b1, %b2 : tensor<?x256xbf16>, tensor<f32>, tensor<?xf32>, tensor<256xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// Gate and up read the same FP8 A with the same scale and feed only one swiglu: one dual GEMM.
// CHECK-LABEL: func.func @swiglu_dual(
// CHECK-SAME: %[[XQ:[^:]+]]: tensor<?x256xf8E4M3FN>, %[[WG:[^:]+]]: tensor<512x256xf8E4M3FN>, %[[WU:[^:]+]]: tensor<512x256xf8E4M3FN>, %[[SX:[^:]+]]: tensor<f32>, %[[SG:[^:]+]]: tensor<f32>, %[[SU:[^:]+]]: tensor<f32>)
// CHECK-NEXT:   %[[K:.+]] = fp8.kernel "gemm" (%[[XQ]], %[[WG]], %[[SX]], %[[SG]], %[[WU]], %[[SU]])
// CHECK-NEXT:   ^bb0(%[[KX:[^:]+]]: {{[^,]+}}, %[[KG:[^:]+]]: {{[^,]+}}, %[[KS:[^:]+]]: {{[^,]+}}, %[[KSG:[^:]+]]: {{[^,]+}}, %[[KU:[^:]+]]: {{[^,]+}}, %[[KSU:[^:]+]]: {{[^,]+}}):
// CHECK-NEXT:     %[[GATE:.+]] = fp8.scaled_matmul %[[KX]], %[[KG]], %[[KS]], %[[KSG]]
// CHECK-NEXT:     %[[UP:.+]] = fp8.scaled_matmul %[[KX]], %[[KU]], %[[KS]], %[[KSU]]
// CHECK-NEXT:     %[[H:.+]] = fp8.swiglu %[[GATE]], %[[UP]]
// CHECK-NEXT:     fp8.yield %[[H]]
// CHECK-NEXT:   }
// CHECK-NEXT:   return %[[K]]
// PLAN-LABEL: // fusion plan for @swiglu_dual: 1 kernel
// PLAN-NEXT:  kernel #0 gemm -> generated (dual GEMM (gate and up share A) with a swiglu epilogue)
// PLAN-NEXT:    main: fp8.scaled_matmul %gate, fp8.scaled_matmul %up
// PLAN-NEXT:    epilogue: fp8.swiglu %h
// PLAN-NOT:   not fused
func.func @swiglu_dual(%xq: tensor<?x256xf8E4M3FN>, %wg: tensor<512x256xf8E4M3FN>, %wu: tensor<512x256xf8E4M3FN>, %sx: tensor<f32>, %sg: tensor<f32>, %su: tensor<f32>) -> tensor<?x512xbf16> {
  %gate = fp8.scaled_matmul %xq, %wg, %sx, %sg {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %up = fp8.scaled_matmul %xq, %wu, %sx, %su {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %h : tensor<?x512xbf16>
}

// Negative: another A. Two GEMMs; the swiglu joins the epilogue of one, which reads the other's
// output.
// CHECK-LABEL: func.func @swiglu_other_a(
// CHECK:        %[[UP:.+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.scaled_matmul
// CHECK-NEXT:     fp8.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[H:.+]] = fp8.kernel "gemm" ({{.*}}%[[UP]])
// CHECK-NEXT:   ^bb0({{.*}}, %[[KUP:[^:]+]]: tensor<?x512xbf16>):
// CHECK-NEXT:     %[[GATE:.+]] = fp8.scaled_matmul
// CHECK-NEXT:     %[[S:.+]] = fp8.swiglu %[[GATE]], %[[KUP]]
// CHECK-NEXT:     fp8.yield %[[S]]
// PLAN-LABEL: // fusion plan for @swiglu_other_a: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.scaled_matmul %up
// PLAN-NEXT:  kernel #1 gemm -> generated (cuBLASLt has no fp8.swiglu epilogue)
// PLAN-NEXT:    main: fp8.scaled_matmul %gate
// PLAN-NEXT:    epilogue: fp8.swiglu %h
// PLAN-NOT:   not fused
func.func @swiglu_other_a(%xq: tensor<?x256xf8E4M3FN>, %zq: tensor<?x256xf8E4M3FN>, %wg: tensor<512x256xf8E4M3FN>, %wu: tensor<512x256xf8E4M3FN>, %sx: tensor<f32>, %sg: tensor<f32>, %su: tensor<f32>) -> tensor<?x512xbf16> {
  %gate = fp8.scaled_matmul %xq, %wg, %sx, %sg {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %up = fp8.scaled_matmul %zq, %wu, %sx, %su {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %h : tensor<?x512xbf16>
}

// Negative: gate is also returned, so it is written out; no dual GEMM.
// CHECK-LABEL: func.func @swiglu_gate_used_twice(
// CHECK-COUNT-2: fp8.kernel "gemm"
// PLAN-LABEL: // fusion plan for @swiglu_gate_used_twice: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.scaled_matmul %gate
// PLAN-NEXT:  kernel #1 gemm -> generated (cuBLASLt has no fp8.swiglu epilogue)
// PLAN-NEXT:    main: fp8.scaled_matmul %up
// PLAN-NEXT:    epilogue: fp8.swiglu %h
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.swiglu %h not in the epilogue of kernel #0: %gate has 2 users outside the kernel, so it is written out and fp8.swiglu reads it back; it is in kernel #1 (epilogue)
func.func @swiglu_gate_used_twice(%xq: tensor<?x256xf8E4M3FN>, %wg: tensor<512x256xf8E4M3FN>, %wu: tensor<512x256xf8E4M3FN>, %sx: tensor<f32>, %sg: tensor<f32>, %su: tensor<f32>) -> (tensor<?x512xbf16>, tensor<?x512xbf16>) {
  %gate = fp8.scaled_matmul %xq, %wg, %sx, %sg {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %up = fp8.scaled_matmul %xq, %wu, %sx, %su {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x512xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %h, %gate : tensor<?x512xbf16>, tensor<?x512xbf16>
}
