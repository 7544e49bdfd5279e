// The fusion plan of examples/linear.mlir (one Linear with bias)
// under each recipe, pinned line by line (docs/architecture.md).
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=tensorwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=TENSORWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=delayed --verify-each --print-fusion-plan | FileCheck %s --check-prefix=DELAYED --match-full-lines
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=rowwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=ROWWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=blockwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=BLOCKWISE --match-full-lines

// TENSORWISE: // fusion plan for @linear: 3 kernels
// TENSORWISE-NEXT: kernel #0 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// TENSORWISE-NEXT: kernel #1 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w_amax, fp8.scale %w_scale, fp8.cast %w_fp8
// TENSORWISE-NEXT: kernel #2 gemm -> cublaslt
// TENSORWISE-NEXT:   main: fp8.scaled_matmul %y
// TENSORWISE-NEXT: not fused:
// TENSORWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #2: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// TENSORWISE-NOT: {{.}}

// DELAYED: // fusion plan for @linear: 3 kernels
// DELAYED-NEXT: kernel #0 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w_amax, fp8.history_scale %w_scale, fp8.cast %w_fp8
// DELAYED-NEXT: kernel #1 gemm -> generated (casts A to FP8 in a prologue launch)
// DELAYED-NEXT:   prologue: fp8.amax %x_amax, fp8.history_scale %x_scale, fp8.cast %x_fp8
// DELAYED-NEXT:   main: fp8.scaled_matmul %y
// DELAYED-NEXT: kernel #2 reduce -> generated (the state update: each push joins the launch or GEMM that reduced its amax where all can, else one launch at the end)
// DELAYED-NEXT:   body: fp8.history_push %x_amax_history_next, fp8.history_push %w_amax_history_next
// DELAYED-NOT: {{.}}

// ROWWISE: // fusion plan for @linear: 3 kernels
// ROWWISE-NEXT: kernel #0 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// ROWWISE-NEXT: kernel #1 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w_amax, fp8.scale %w_scale, fp8.cast %w_fp8
// ROWWISE-NEXT: kernel #2 gemm -> cublaslt
// ROWWISE-NEXT:   main: fp8.scaled_matmul %y
// ROWWISE-NEXT: not fused:
// ROWWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #2: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// ROWWISE-NOT: {{.}}

// BLOCKWISE: // fusion plan for @linear: 3 kernels
// BLOCKWISE-NEXT: kernel #0 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// BLOCKWISE-NEXT: kernel #1 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w_amax, fp8.scale %w_scale, fp8.cast %w_fp8
// BLOCKWISE-NEXT: kernel #2 gemm -> cublaslt
// BLOCKWISE-NEXT:   main: fp8.scaled_matmul %y
// BLOCKWISE-NEXT: not fused:
// BLOCKWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #2: a block_1x128 cast is not done in a GEMM prologue (tensor and row scales only); it is in kernel #0 (body)
// BLOCKWISE-NOT: {{.}}
