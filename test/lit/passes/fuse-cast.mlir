// `fuse`: where the FP8 cast of a GEMM's output goes (docs/architecture.md). In the producer's
// epilogue when its scale is known when the tile is written (delayed: from the history;
// blockwise: the tile's own 1x128 amax); otherwise (tensorwise, rowwise: a global amax) the
// producer reduces the amax and the consumer casts in its prologue. The cast of A joins a GEMM
// prologue only with a tensor or row scale, and not where its amax is still to be taken.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise},fuse' --verify-each --emit=ir | FileCheck %s --check-prefix=TENSORWISE
// RUN: fp8c %s --passes='quantize{recipe=rowwise},fuse' --verify-each --emit=ir | FileCheck %s --check-prefix=ROWWISE
// RUN: fp8c %s --passes='quantize{recipe=delayed},fuse' --verify-each --emit=ir | FileCheck %s --check-prefix=DELAYED
// RUN: fp8c %s --passes='quantize{recipe=blockwise},fuse' --verify-each --emit=ir | FileCheck %s --check-prefix=BLOCKWISE
// RUN: fp8c %s --passes='quantize{recipe=tensorwise},fuse' --print-fusion-plan | FileCheck %s --check-prefix=TENSORWISE-PLAN
// RUN: fp8c %s --passes='quantize{recipe=rowwise},fuse' --print-fusion-plan | FileCheck %s --check-prefix=ROWWISE-PLAN
// RUN: fp8c %s --passes='quantize{recipe=delayed},fuse' --print-fusion-plan | FileCheck %s --check-prefix=DELAYED-PLAN
// RUN: fp8c %s --passes='quantize{recipe=blockwise},fuse' --print-fusion-plan | FileCheck %s --check-prefix=BLOCKWISE-PLAN

// Tensorwise: amax, scale and cast of x in one kernel (the scale needs the whole amax before
// any element is cast, so a prologue cast would be a second launch reading x again), then the
// GEMM with the amax of its output in its epilogue; the next GEMM casts that output in its
// prologue (its amax is already taken, by the producer).
// TENSORWISE-LABEL: func.func @mlp(
// TENSORWISE:        %[[XS:[^,]+]], %[[XQ:[^ ]+]] = fp8.kernel "reduce" (%[[X:[^)]+]])
// TENSORWISE-NEXT:   ^bb0(%[[KX:[^:]+]]: tensor<?x256xbf16>):
// TENSORWISE-NEXT:     %[[A:.+]] = fp8.amax %[[KX]] {fp8.role = "body", granularity = "tensor"}
// TENSORWISE-NEXT:     %[[S:.+]] = fp8.scale %[[A]]
// TENSORWISE-NEXT:     %[[Q:.+]] = fp8.cast %[[KX]], %[[S]] {fp8.role = "body", granularity = "tensor"}
// TENSORWISE-NEXT:     fp8.yield %[[S]], %[[Q]] : tensor<f32>, tensor<?x256xf8E4M3FN>
// TENSORWISE:        %[[G:[^,]+]], %[[GA:[^ ]+]] = fp8.kernel "gemm" (%[[XQ]], %{{[^,]+}}, %[[XS]], {{.+}}) {backend = "cublaslt", gemm_backend = "auto"} : {{.+}} -> (tensor<?x512xbf16>, tensor<f32>) {
// TENSORWISE-NEXT:   ^bb0(%[[KQ:[^:]+]]: tensor<?x256xf8E4M3FN>,
// TENSORWISE-NEXT:     %[[H:.+]] = fp8.scaled_matmul %[[KQ]],
// TENSORWISE-NEXT:     %[[R:.+]] = fp8.relu %[[H]]
// TENSORWISE-NEXT:     %[[RA:.+]] = fp8.amax %[[R]] {fp8.role = "epilogue", granularity = "tensor"}
// TENSORWISE-NEXT:     fp8.yield %[[R]], %[[RA]] : tensor<?x512xbf16>, tensor<f32>
// TENSORWISE-NEXT:   }
// TENSORWISE-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[GA]], %[[G]], {{.+}}) {backend = "generated", gemm_backend = "auto"} : (tensor<f32>, tensor<?x512xbf16>,
// TENSORWISE-NEXT:   ^bb0(%[[KGA:[^:]+]]: tensor<f32>, %[[KG:[^:]+]]: tensor<?x512xbf16>,
// TENSORWISE-NEXT:     %[[S2:.+]] = fp8.scale %[[KGA]]
// TENSORWISE-NEXT:     %[[Q2:.+]] = fp8.cast %[[KG]], %[[S2]] {fp8.role = "prologue", granularity = "tensor"}
// TENSORWISE-NEXT:     %[[Y2:.+]] = fp8.scaled_matmul %[[Q2]],
// TENSORWISE-NEXT:     fp8.yield %[[Y2]]
// TENSORWISE-NEXT:   }
// TENSORWISE-NEXT:   return %[[Y]]
// TENSORWISE-PLAN-LABEL: // fusion plan for @mlp: 5 kernels
// TENSORWISE-PLAN-NEXT:  kernel #0 reduce -> generated
// TENSORWISE-PLAN-NEXT:    body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// TENSORWISE-PLAN-NEXT:  kernel #1 reduce -> generated
// TENSORWISE-PLAN-NEXT:    body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8
// TENSORWISE-PLAN-NEXT:  kernel #2 reduce -> generated
// TENSORWISE-PLAN-NEXT:    body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8
// TENSORWISE-PLAN-NEXT:  kernel #3 gemm -> cublaslt
// TENSORWISE-PLAN-NEXT:    main: fp8.scaled_matmul %h
// TENSORWISE-PLAN-NEXT:    epilogue: fp8.relu %g, fp8.amax %g_amax
// TENSORWISE-PLAN-NEXT:  kernel #4 gemm -> generated (casts A to FP8 in a prologue launch)
// TENSORWISE-PLAN-NEXT:    prologue: fp8.scale %g_scale, fp8.cast %g_fp8
// TENSORWISE-PLAN-NEXT:    main: fp8.scaled_matmul %y
// TENSORWISE-PLAN-NEXT:  not fused:
// TENSORWISE-PLAN-NEXT:    fp8.cast %g_fp8 not in the epilogue of kernel #3: its scale needs the whole-tensor amax of %g, known only after the kernel finishes; it is in kernel #4 (prologue)
// TENSORWISE-PLAN-NEXT:    fp8.cast %x_fp8 not in the prologue of kernel #3: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)

// Rowwise: the same shape of plan with row amaxes (a row spans several output tiles); x's row
// amax, scale and cast are one pass over each row.
// ROWWISE-LABEL: func.func @mlp(
// ROWWISE:        fp8.amax %{{.+}} {fp8.role = "body", granularity = "row"} : (tensor<?x256xbf16>) -> tensor<?xf32>
// ROWWISE-NEXT:   %[[S:.+]] = fp8.scale
// ROWWISE-NEXT:   fp8.cast %{{.+}}, %[[S]] {fp8.role = "body", granularity = "row"}
// ROWWISE:        %[[G:[^,]+]], %[[GA:[^ ]+]] = fp8.kernel "gemm"
// ROWWISE-NEXT:   ^bb0(
// ROWWISE-NEXT:     %[[H:.+]] = fp8.scaled_matmul
// ROWWISE-NEXT:     %[[R:.+]] = fp8.relu %[[H]]
// ROWWISE-NEXT:     %[[RA:.+]] = fp8.amax %[[R]] {fp8.role = "epilogue", granularity = "row"}
// ROWWISE-NEXT:     fp8.yield %[[R]], %[[RA]] : tensor<?x512xbf16>, tensor<?xf32>
// ROWWISE-NEXT:   }
// ROWWISE-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[GA]], %[[G]], {{.+}})
// ROWWISE-NEXT:   ^bb0(
// ROWWISE-NEXT:     %[[S2:.+]] = fp8.scale
// ROWWISE-NEXT:     %[[Q2:.+]] = fp8.cast %{{.+}}, %[[S2]] {fp8.role = "prologue", granularity = "row"}
// ROWWISE-NEXT:     fp8.scaled_matmul %[[Q2]],
// ROWWISE-PLAN-LABEL: // fusion plan for @mlp: 5 kernels
// ROWWISE-PLAN:          not fused:
// ROWWISE-PLAN-NEXT:       fp8.cast %g_fp8 not in the epilogue of kernel #3: its scale needs the amax of whole rows of %g, which span several output tiles; it is in kernel #4 (prologue)
// ROWWISE-PLAN-NEXT:       fp8.cast %x_fp8 not in the prologue of kernel #3: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)

// Delayed: x's scale comes from its history, so x's amax is taken while loading it; the
// output's scale too, so the epilogue writes FP8 and the next GEMM reads it directly.
// DELAYED-LABEL: func.func @mlp(
// DELAYED:        %[[XA:[^,]+]], %[[GA:[^,]+]], %[[GS:[^,]+]], %[[GQ:[^ ]+]] = fp8.kernel "gemm"
// DELAYED-NEXT:   ^bb0(%[[KX:[^:]+]]: tensor<?x256xbf16>, %[[KXH:[^:]+]]: tensor<16xf32>, {{.+}}, %[[KGH:[^:]+]]: tensor<16xf32>):
// DELAYED-NEXT:     %[[A:.+]] = fp8.amax %[[KX]]
// DELAYED-NEXT:     %[[S:.+]] = fp8.history_scale %[[KXH]]
// DELAYED-NEXT:     %[[Q:.+]] = fp8.cast %[[KX]], %[[S]]
// DELAYED-NEXT:     %[[H:.+]] = fp8.scaled_matmul %[[Q]],
// DELAYED-NEXT:     %[[R:.+]] = fp8.relu %[[H]]
// DELAYED-NEXT:     %[[RA:.+]] = fp8.amax %[[R]]
// DELAYED-NEXT:     %[[RS:.+]] = fp8.history_scale %[[KGH]]
// DELAYED-NEXT:     %[[RQ:.+]] = fp8.cast %[[R]], %[[RS]] {fp8.role = "epilogue", granularity = "tensor"} : (tensor<?x512xbf16>, tensor<f32>) -> tensor<?x512xf8E4M3FN>
// DELAYED-NEXT:     fp8.yield %[[A]], %[[RA]], %[[RS]], %[[RQ]] : tensor<f32>, tensor<f32>, tensor<f32>, tensor<?x512xf8E4M3FN>
// DELAYED-NEXT:   }
// DELAYED-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[GQ]], %{{.+}}, %[[GS]], %{{.+}})
// DELAYED-NEXT:   ^bb0(%[[KQ:[^:]+]]: tensor<?x512xf8E4M3FN>,
// DELAYED-NEXT:     %[[Y2:.+]] = fp8.scaled_matmul %[[KQ]],
// DELAYED-NEXT:     fp8.yield %[[Y2]]
// DELAYED-NEXT:   }
// DELAYED-NEXT:   {{.+}} = fp8.kernel "reduce" (%{{.+}}, %[[XA]], %{{.+}}, %{{.+}}, %{{.+}}, %[[GA]],
// DELAYED-COUNT-4: fp8.history_push
// DELAYED-PLAN-LABEL: // fusion plan for @mlp: 5 kernels
// DELAYED-PLAN-NEXT:  kernel #0 reduce -> generated
// DELAYED-PLAN-NEXT:    body: fp8.amax %w1_amax, fp8.history_scale %w1_scale, fp8.cast %w1_fp8
// DELAYED-PLAN-NEXT:  kernel #1 reduce -> generated
// DELAYED-PLAN-NEXT:    body: fp8.amax %w2_amax, fp8.history_scale %w2_scale, fp8.cast %w2_fp8
// DELAYED-PLAN-NEXT:  kernel #2 gemm -> generated (casts A to FP8 in a prologue launch)
// DELAYED-PLAN-NEXT:    prologue: fp8.amax %x_amax, fp8.history_scale %x_scale, fp8.cast %x_fp8, fp8.history_scale %g_scale
// DELAYED-PLAN-NEXT:    main: fp8.scaled_matmul %h
// DELAYED-PLAN-NEXT:    epilogue: fp8.relu %g, fp8.amax %g_amax, fp8.cast %g_fp8
// DELAYED-PLAN-NEXT:  kernel #3 gemm -> cublaslt
// DELAYED-PLAN-NEXT:    main: fp8.scaled_matmul %y
// DELAYED-PLAN-NEXT:  kernel #4 reduce -> generated
// DELAYED-PLAN-NEXT:    body: fp8.history_push %x_amax_history_next, fp8.history_push %w1_amax_history_next, fp8.history_push %g_amax_history_next, fp8.history_push %w2_amax_history_next
// DELAYED-PLAN-NOT:   not fused

// Blockwise: x's 1x128 cast is no prologue cast, so amax + scale + cast of x is one kernel;
// the output's 1x128 amax, scale and cast are in the epilogue.
// BLOCKWISE-LABEL: func.func @mlp(
// BLOCKWISE-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>
// BLOCKWISE-NEXT:   %[[XS:[^,]+]], %[[XQ:[^ ]+]] = fp8.kernel "reduce" (%[[X]])
// BLOCKWISE-NEXT:   ^bb0(%[[KX:[^:]+]]: tensor<?x256xbf16>):
// BLOCKWISE-NEXT:     %[[A:.+]] = fp8.amax %[[KX]] {fp8.role = "body", granularity = "block_1x128"}
// BLOCKWISE-NEXT:     %[[S:.+]] = fp8.scale %[[A]] {dtype = f8E4M3FN, fp8.role = "body", pow2 = true}
// BLOCKWISE-NEXT:     %[[Q:.+]] = fp8.cast %[[KX]], %[[S]] {fp8.role = "body", granularity = "block_1x128"}
// BLOCKWISE-NEXT:     fp8.yield %[[S]], %[[Q]]
// BLOCKWISE:        %[[GS:[^,]+]], %[[GQ:[^ ]+]] = fp8.kernel "gemm" (%[[XQ]], %{{.+}}, %[[XS]], %{{.+}})
// BLOCKWISE-NEXT:   ^bb0(
// BLOCKWISE-NEXT:     %[[H:.+]] = fp8.scaled_matmul
// BLOCKWISE-NEXT:     %[[R:.+]] = fp8.relu %[[H]]
// BLOCKWISE-NEXT:     %[[RA:.+]] = fp8.amax %[[R]] {fp8.role = "epilogue", granularity = "block_1x128"}
// BLOCKWISE-NEXT:     %[[RS:.+]] = fp8.scale %[[RA]]
// BLOCKWISE-NEXT:     %[[RQ:.+]] = fp8.cast %[[R]], %[[RS]] {fp8.role = "epilogue", granularity = "block_1x128"} : (tensor<?x512xbf16>, tensor<?x4xf32>) -> tensor<?x512xf8E4M3FN>
// BLOCKWISE-NEXT:     fp8.yield %[[RS]], %[[RQ]] : tensor<?x4xf32>, tensor<?x512xf8E4M3FN>
// BLOCKWISE-NEXT:   }
// BLOCKWISE-NEXT:   %[[Y:.+]] = fp8.kernel "gemm" (%[[GQ]], %{{.+}}, %[[GS]], %{{.+}})
// BLOCKWISE-PLAN-LABEL: // fusion plan for @mlp: 5 kernels
// BLOCKWISE-PLAN-NEXT:  kernel #0 reduce -> generated
// BLOCKWISE-PLAN-NEXT:    body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// BLOCKWISE-PLAN-NEXT:  kernel #1 reduce -> generated
// BLOCKWISE-PLAN-NEXT:    body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8
// BLOCKWISE-PLAN-NEXT:  kernel #2 reduce -> generated
// BLOCKWISE-PLAN-NEXT:    body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8
// BLOCKWISE-PLAN-NEXT:  kernel #3 gemm -> generated (cuBLASLt's row and block scale modes allow no epilogue but bias)
// BLOCKWISE-PLAN-NEXT:    main: fp8.scaled_matmul %h
// BLOCKWISE-PLAN-NEXT:    epilogue: fp8.relu %g, fp8.amax %g_amax, fp8.scale %g_scale, fp8.cast %g_fp8
// BLOCKWISE-PLAN-NEXT:  kernel #4 gemm -> cublaslt
// BLOCKWISE-PLAN-NEXT:    main: fp8.scaled_matmul %y
// BLOCKWISE-PLAN-NEXT:  not fused:
// BLOCKWISE-PLAN-NEXT:    fp8.cast %x_fp8 not in the prologue of kernel #3: a block_1x128 cast is not done in a GEMM prologue (tensor and row scales only); it is in kernel #0 (body)
func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %w2: tensor<128x512xbf16>) -> tensor<?x128xbf16> {
  %h = fp8.linear %x, %w1 : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  %g = fp8.relu %h : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2 : (tensor<?x512xbf16>, tensor<128x512xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
