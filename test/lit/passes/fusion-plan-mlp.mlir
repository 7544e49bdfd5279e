// The fusion plan of examples/mlp.mlir (linear + bias -> gelu (tanh) -> linear + bias)
// under each recipe, pinned line by line (docs/architecture.md).
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=TENSORWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=delayed --verify-each --print-fusion-plan | FileCheck %s --check-prefix=DELAYED --match-full-lines
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=ROWWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=blockwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=BLOCKWISE --match-full-lines

// TENSORWISE: // fusion plan for @mlp: 5 kernels
// TENSORWISE-NEXT: kernel #0 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// TENSORWISE-NEXT: kernel #1 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8
// TENSORWISE-NEXT: kernel #2 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8
// TENSORWISE-NEXT: kernel #3 gemm -> cublaslt
// TENSORWISE-NEXT:   main: fp8.scaled_matmul %h
// TENSORWISE-NEXT:   epilogue: fp8.gelu %g, fp8.amax %g_amax
// TENSORWISE-NEXT: kernel #4 gemm -> generated (casts A to FP8 in a prologue launch)
// TENSORWISE-NEXT:   prologue: fp8.scale %g_scale, fp8.cast %g_fp8
// TENSORWISE-NEXT:   main: fp8.scaled_matmul %y
// TENSORWISE-NEXT: not fused:
// TENSORWISE-NEXT:   fp8.cast %g_fp8 not in the epilogue of kernel #3: its scale needs the whole-tensor amax of %g, known only after the kernel finishes; it is in kernel #4 (prologue)
// TENSORWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #3: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// TENSORWISE-NOT: {{.}}

// DELAYED: // fusion plan for @mlp: 5 kernels
// DELAYED-NEXT: kernel #0 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w1_amax, fp8.history_scale %w1_scale, fp8.cast %w1_fp8
// DELAYED-NEXT: kernel #1 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w2_amax, fp8.history_scale %w2_scale, fp8.cast %w2_fp8
// DELAYED-NEXT: kernel #2 gemm -> generated (casts A to FP8 in a prologue launch)
// DELAYED-NEXT:   prologue: fp8.amax %x_amax, fp8.history_scale %x_scale, fp8.cast %x_fp8, fp8.history_scale %g_scale
// DELAYED-NEXT:   main: fp8.scaled_matmul %h
// DELAYED-NEXT:   epilogue: fp8.gelu %g, fp8.amax %g_amax, fp8.cast %g_fp8
// DELAYED-NEXT: kernel #3 gemm -> cublaslt
// DELAYED-NEXT:   main: fp8.scaled_matmul %y
// DELAYED-NEXT: kernel #4 reduce -> generated (the state update: each push joins the launch or GEMM that reduced its amax where all can, else one launch at the end)
// DELAYED-NEXT:   body: fp8.history_push %x_amax_history_next, fp8.history_push %w1_amax_history_next, fp8.history_push %g_amax_history_next, fp8.history_push %w2_amax_history_next
// DELAYED-NOT: {{.}}

// ROWWISE: // fusion plan for @mlp: 5 kernels
// ROWWISE-NEXT: kernel #0 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// ROWWISE-NEXT: kernel #1 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8
// ROWWISE-NEXT: kernel #2 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8
// ROWWISE-NEXT: kernel #3 gemm -> generated (cuBLASLt's row and block scale modes allow no epilogue but bias)
// ROWWISE-NEXT:   main: fp8.scaled_matmul %h
// ROWWISE-NEXT:   epilogue: fp8.gelu %g, fp8.amax %g_amax
// ROWWISE-NEXT: kernel #4 gemm -> generated (casts A to FP8 in a prologue launch)
// ROWWISE-NEXT:   prologue: fp8.scale %g_scale, fp8.cast %g_fp8
// ROWWISE-NEXT:   main: fp8.scaled_matmul %y
// ROWWISE-NEXT: not fused:
// ROWWISE-NEXT:   fp8.cast %g_fp8 not in the epilogue of kernel #3: its scale needs the amax of whole rows of %g, which span several output tiles; it is in kernel #4 (prologue)
// ROWWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #3: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// ROWWISE-NOT: {{.}}

// BLOCKWISE: // fusion plan for @mlp: 5 kernels
// BLOCKWISE-NEXT: kernel #0 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// BLOCKWISE-NEXT: kernel #1 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8
// BLOCKWISE-NEXT: kernel #2 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8
// BLOCKWISE-NEXT: kernel #3 gemm -> generated (cuBLASLt's row and block scale modes allow no epilogue but bias)
// BLOCKWISE-NEXT:   main: fp8.scaled_matmul %h
// BLOCKWISE-NEXT:   epilogue: fp8.gelu %g, fp8.amax %g_amax, fp8.scale %g_scale, fp8.cast %g_fp8
// BLOCKWISE-NEXT: kernel #4 gemm -> cublaslt
// BLOCKWISE-NEXT:   main: fp8.scaled_matmul %y
// BLOCKWISE-NEXT: not fused:
// BLOCKWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #3: a block_1x128 cast is not done in a GEMM prologue (tensor and row scales only); it is in kernel #0 (body)
// BLOCKWISE-NOT: {{.}}
