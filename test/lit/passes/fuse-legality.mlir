// `fuse`: legality is checked, not assumed (docs/architecture.md). Each negative test shows the
// op that stays out, where it goes instead, and the reason --print-fusion-plan gives.
// RUN: fp8c %s --passes=fuse --verify-each --emit=ir | FileCheck %s
// RUN: fp8c %s --passes=fuse --verify-each --print-fusion-plan | FileCheck %s --check-prefix=PLAN

// A GEMM output with two pointwise users is written out; each user is a kernel of its own.
// CHECK-LABEL: func.func @second_user(
// CHECK:        %[[H:.+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[L:.+]] = fp8.linear
// CHECK-NEXT:     fp8.yield %[[L]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[R:.+]] = fp8.kernel "pointwise" (%[[H]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.relu
// CHECK:        %[[G:.+]] = fp8.kernel "pointwise" (%[[H]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.gelu
// PLAN-LABEL: // fusion plan for @second_user: 3 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:  kernel #1 pointwise -> generated
// PLAN-NEXT:    body: fp8.relu %r
// PLAN-NEXT:  kernel #2 pointwise -> generated
// PLAN-NEXT:    body: fp8.gelu %g
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.relu %r not in the epilogue of kernel #0: %h has 2 users outside the kernel, so it is written out and fp8.relu reads it back; it is in kernel #1 (body)
// PLAN-NEXT:    fp8.gelu %g not in the epilogue of kernel #0: %h has 2 users outside the kernel, so it is written out and fp8.gelu reads it back; it is in kernel #2 (body)
func.func @second_user(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %r = fp8.relu %h : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %g = fp8.gelu %h : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  return %r, %g : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// An epilogue stores f32 (positive), but no unscaled FP8 (negative).
// CHECK-LABEL: func.func @convert_in_epilogue(
// CHECK:        fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[L:.+]] = fp8.linear
// CHECK-NEXT:     %[[F:.+]] = fp8.convert %[[L]] {fp8.role = "epilogue"} : (tensor<?x128xbf16>) -> tensor<?x128xf32>
// CHECK-NEXT:     fp8.yield %[[F]]
// CHECK:        %[[H2:.+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[L2:.+]] = fp8.linear
// CHECK-NEXT:     fp8.yield %[[L2]]
// CHECK-NEXT:   }
// CHECK-NEXT:   fp8.kernel "pointwise" (%[[H2]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.convert {{.+}} -> tensor<?x128xf8E4M3FN>
// PLAN-LABEL: // fusion plan for @convert_in_epilogue: 3 kernels
// PLAN-NEXT:  kernel #0 gemm -> generated (cuBLASLt has no fp8.convert epilogue)
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.convert %f
// PLAN-NEXT:  kernel #1 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h2
// PLAN-NEXT:  kernel #2 pointwise -> generated
// PLAN-NEXT:    body: fp8.convert %c
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.convert %c not in the epilogue of kernel #1: a GEMM epilogue stores f32, f16 or bf16, and FP8 only through a scaled fp8.cast; an unscaled convert to f8E4M3FN is left to a pointwise kernel; it is in kernel #2 (body)
func.func @convert_in_epilogue(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> (tensor<?x128xf32>, tensor<?x128xf8E4M3FN>) {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %f = fp8.convert %h : (tensor<?x128xbf16>) -> tensor<?x128xf32>
  %h2 = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %c = fp8.convert %h2 : (tensor<?x128xbf16>) -> tensor<?x128xf8E4M3FN>
  return %f, %c : tensor<?x128xf32>, tensor<?x128xf8E4M3FN>
}

// The mul's other operand is computed from the kernel's own amax: it must wait for the kernel.
// CHECK-LABEL: func.func @operand_from_kernel(
// CHECK:        %[[R:[^,]+]], %[[M:[^ ]+]] = fp8.kernel "gemm"
// CHECK:        fp8.kernel "pointwise" (%[[M]], %[[R]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.convert
// CHECK-NEXT:     fp8.mul
// PLAN-LABEL: // fusion plan for @operand_from_kernel: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.relu %r, fp8.amax %m
// PLAN-NEXT:  kernel #1 pointwise -> generated
// PLAN-NEXT:    body: fp8.convert %mb, fp8.mul %y
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.mul %y not in the epilogue of kernel #0: another operand of it is computed from this kernel's output; it is in kernel #1 (body)
func.func @operand_from_kernel(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x128xbf16> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %r = fp8.relu %h : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %m = fp8.amax %h : (tensor<?x128xbf16>) -> tensor<f32>
  %mb = fp8.convert %m : (tensor<f32>) -> tensor<bf16>
  %y = fp8.mul %r, %mb : (tensor<?x128xbf16>, tensor<bf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// The first GEMM's output is returned too, so the pointwise chain after it cannot be its
// epilogue: add, gelu and silu become one kernel between the GEMMs.
// CHECK-LABEL: func.func @chain_between_gemms(
// CHECK:        %[[H:.+]] = fp8.kernel "gemm"
// CHECK:        %[[S:.+]] = fp8.kernel "pointwise" (%[[H]], %{{.+}})
// CHECK-NEXT:   ^bb0(%[[KH:[^:]+]]: tensor<?x128xbf16>, %[[KR:[^:]+]]: tensor<?x128xbf16>):
// CHECK-NEXT:     %[[A:.+]] = fp8.add %[[KH]], %[[KR]]
// CHECK-NEXT:     %[[G:.+]] = fp8.gelu %[[A]]
// CHECK-NEXT:     %[[SS:.+]] = fp8.silu %[[G]]
// CHECK-NEXT:     fp8.yield %[[SS]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[S]], %{{.+}})
// CHECK:        return %[[H]], %[[Y]]
// PLAN-LABEL: // fusion plan for @chain_between_gemms: 3 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:  kernel #1 pointwise -> generated
// PLAN-NEXT:    body: fp8.add %a, fp8.gelu %g, fp8.silu %s
// PLAN-NEXT:  kernel #2 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %y
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.add %a not in the epilogue of kernel #0: %h has 2 users outside the kernel, so it is written out and fp8.add reads it back; it is in kernel #1 (body)
func.func @chain_between_gemms(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>, %w2: tensor<64x128xbf16>, %r: tensor<?x128xbf16>) -> (tensor<?x128xbf16>, tensor<?x64xbf16>) {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %a = fp8.add %h, %r : (tensor<?x128xbf16>, tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %g = fp8.gelu %a {approximate = "tanh"} : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %s = fp8.silu %g : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %y = fp8.linear %s, %w2 : (tensor<?x128xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %h, %y : tensor<?x128xbf16>, tensor<?x64xbf16>
}

// A cast whose scale needs the whole output's amax stays out of the epilogue (the reduction
// must finish first); with no GEMM to take it, scale + cast are one single-pass kernel.
// CHECK-LABEL: func.func @whole_tensor_cast(
// CHECK:        %[[H:[^,]+]], %[[A:[^ ]+]] = fp8.kernel "gemm"
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     %[[L:.+]] = fp8.linear
// CHECK-NEXT:     %[[KA:.+]] = fp8.amax %[[L]]
// CHECK-NEXT:     fp8.yield %[[L]], %[[KA]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[Q:.+]] = fp8.kernel "pointwise" (%[[A]], %[[H]])
// CHECK-NEXT:   ^bb0(%[[KA2:[^:]+]]: tensor<f32>, %[[KH:[^:]+]]: tensor<?x128xbf16>):
// CHECK-NEXT:     %[[S:.+]] = fp8.scale %[[KA2]]
// CHECK-NEXT:     %[[KQ:.+]] = fp8.cast %[[KH]], %[[S]]
// CHECK-NEXT:     fp8.yield %[[KQ]]
// PLAN-LABEL: // fusion plan for @whole_tensor_cast: 2 kernels
// PLAN-NEXT:  kernel #0 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.linear %h
// PLAN-NEXT:    epilogue: fp8.amax %a
// PLAN-NEXT:  kernel #1 pointwise -> generated
// PLAN-NEXT:    prologue: fp8.scale %s
// PLAN-NEXT:    body: fp8.cast %q
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.cast %q not in the epilogue of kernel #0: its scale needs the whole-tensor amax of %h, known only after the kernel finishes; it is in kernel #1 (body)
func.func @whole_tensor_cast(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x128xf8E4M3FN> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %a = fp8.amax %h : (tensor<?x128xbf16>) -> tensor<f32>
  %s = fp8.scale %a : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %h, %s : (tensor<?x128xbf16>, tensor<f32>) -> tensor<?x128xf8E4M3FN>
  return %q : tensor<?x128xf8E4M3FN>
}

// The FP8 A is also returned: the cast cannot be done privately in the GEMM's prologue, so
// amax + scale + cast of x are one kernel.
// CHECK-LABEL: func.func @prologue_cast_used_twice(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>
// CHECK-NEXT:   %[[S:[^,]+]], %[[Q:[^ ]+]] = fp8.kernel "reduce" (%[[X]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     fp8.amax
// CHECK-NEXT:     fp8.scale
// CHECK-NEXT:     fp8.cast
// CHECK-NEXT:     fp8.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[Q]], %{{.+}}, %[[S]], %{{.+}})
// CHECK:        return %[[Y]], %[[Q]]
// PLAN-LABEL: // fusion plan for @prologue_cast_used_twice: 2 kernels
// PLAN-NEXT:  kernel #0 reduce -> generated
// PLAN-NEXT:    body: fp8.amax %a, fp8.scale %s, fp8.cast %q
// PLAN-NEXT:  kernel #1 gemm -> cublaslt
// PLAN-NEXT:    main: fp8.scaled_matmul %y
// PLAN-NEXT:  not fused:
// PLAN-NEXT:    fp8.cast %q not in the prologue of kernel #1: %q is also used outside the kernel; it is in kernel #0 (body)
func.func @prologue_cast_used_twice(%x: tensor<?x256xbf16>, %w8: tensor<128x256xf8E4M3FN>, %sw: tensor<f32>) -> (tensor<?x128xbf16>, tensor<?x256xf8E4M3FN>) {
  %a = fp8.amax %x : (tensor<?x256xbf16>) -> tensor<f32>
  %s = fp8.scale %a : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %x, %s : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
  %y = fp8.scaled_matmul %q, %w8, %s, %sw {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
  return %y, %q : tensor<?x128xbf16>, tensor<?x256xf8E4M3FN>
}

// A weight transposed for fp8.matmul is transposed in its quantization kernel.
// CHECK-LABEL: func.func @transpose_in_amax_kernel(
// CHECK-SAME: %[[B:[^:]+]]: tensor<256x128xbf16>
// CHECK-NEXT:   {{.+}} = fp8.kernel "reduce" (%[[B]])
// CHECK-NEXT:   ^bb0(%[[KB:[^:]+]]: tensor<256x128xbf16>):
// CHECK-NEXT:     %[[T:.+]] = fp8.transpose %[[KB]]
// CHECK-NEXT:     %[[A:.+]] = fp8.amax %[[T]]
// CHECK-NEXT:     %[[S:.+]] = fp8.scale %[[A]]
// CHECK-NEXT:     %[[Q:.+]] = fp8.cast %[[T]], %[[S]]
// CHECK-NEXT:     fp8.yield %[[S]], %[[Q]]
// PLAN-LABEL: // fusion plan for @transpose_in_amax_kernel: 1 kernel
// PLAN-NEXT:  kernel #0 reduce -> generated
// PLAN-NEXT:    body: fp8.transpose %t, fp8.amax %a, fp8.scale %s, fp8.cast %q
// PLAN-NOT:   not fused
func.func @transpose_in_amax_kernel(%b: tensor<256x128xbf16>) -> (tensor<128xf32>, tensor<128x256xf8E4M3FN>) {
  %t = fp8.transpose %b : (tensor<256x128xbf16>) -> tensor<128x256xbf16>
  %a = fp8.amax %t {granularity = "row"} : (tensor<128x256xbf16>) -> tensor<128xf32>
  %s = fp8.scale %a : (tensor<128xf32>) -> tensor<128xf32>
  %q = fp8.cast %t, %s {granularity = "row"} : (tensor<128x256xbf16>, tensor<128xf32>) -> tensor<128x256xf8E4M3FN>
  return %s, %q : tensor<128xf32>, tensor<128x256xf8E4M3FN>
}
