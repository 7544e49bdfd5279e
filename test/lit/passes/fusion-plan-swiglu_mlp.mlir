// The fusion plan of examples/swiglu_mlp.mlir (down(swiglu(gate(x), up(x))), no biases)
// under each recipe, pinned line by line (docs/architecture.md).
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=tensorwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=TENSORWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=delayed --verify-each --print-fusion-plan | FileCheck %s --check-prefix=DELAYED --match-full-lines
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=rowwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=ROWWISE --match-full-lines
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=blockwise --verify-each --print-fusion-plan | FileCheck %s --check-prefix=BLOCKWISE --match-full-lines

// TENSORWISE: // fusion plan for @swiglu_mlp: 6 kernels
// TENSORWISE-NEXT: kernel #0 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// TENSORWISE-NEXT: kernel #1 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w_gate_amax, fp8.scale %w_gate_scale, fp8.cast %w_gate_fp8
// TENSORWISE-NEXT: kernel #2 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w_up_amax, fp8.scale %w_up_scale, fp8.cast %w_up_fp8
// TENSORWISE-NEXT: kernel #3 reduce -> generated
// TENSORWISE-NEXT:   body: fp8.amax %w_down_amax, fp8.scale %w_down_scale, fp8.cast %w_down_fp8
// TENSORWISE-NEXT: kernel #4 gemm -> generated (dual GEMM (gate and up share A) with a swiglu epilogue)
// TENSORWISE-NEXT:   main: fp8.scaled_matmul %gate, fp8.scaled_matmul %up
// TENSORWISE-NEXT:   epilogue: fp8.swiglu %h, fp8.amax %h_amax
// TENSORWISE-NEXT: kernel #5 gemm -> generated (casts A to FP8 in a prologue launch)
// TENSORWISE-NEXT:   prologue: fp8.scale %h_scale, fp8.cast %h_fp8
// TENSORWISE-NEXT:   main: fp8.scaled_matmul %y
// TENSORWISE-NEXT: not fused:
// TENSORWISE-NEXT:   fp8.cast %h_fp8 not in the epilogue of kernel #4: its scale needs the whole-tensor amax of %h, known only after the kernel finishes; it is in kernel #5 (prologue)
// TENSORWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #4: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// TENSORWISE-NOT: {{.}}

// DELAYED: // fusion plan for @swiglu_mlp: 6 kernels
// DELAYED-NEXT: kernel #0 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w_gate_amax, fp8.history_scale %w_gate_scale, fp8.cast %w_gate_fp8
// DELAYED-NEXT: kernel #1 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w_up_amax, fp8.history_scale %w_up_scale, fp8.cast %w_up_fp8
// DELAYED-NEXT: kernel #2 reduce -> generated
// DELAYED-NEXT:   body: fp8.amax %w_down_amax, fp8.history_scale %w_down_scale, fp8.cast %w_down_fp8
// DELAYED-NEXT: kernel #3 gemm -> generated (dual GEMM (gate and up share A) with a swiglu epilogue)
// DELAYED-NEXT:   prologue: fp8.amax %x_amax, fp8.history_scale %x_scale, fp8.cast %x_fp8, fp8.history_scale %h_scale
// DELAYED-NEXT:   main: fp8.scaled_matmul %gate, fp8.scaled_matmul %up
// DELAYED-NEXT:   epilogue: fp8.swiglu %h, fp8.amax %h_amax, fp8.cast %h_fp8
// DELAYED-NEXT: kernel #4 gemm -> cublaslt
// DELAYED-NEXT:   main: fp8.scaled_matmul %y
// DELAYED-NEXT: kernel #5 reduce -> generated (the state update: each push joins the launch or GEMM that reduced its amax where all can, else one launch at the end)
// DELAYED-NEXT:   body: fp8.history_push %x_amax_history_next, fp8.history_push %w_gate_amax_history_next, fp8.history_push %w_up_amax_history_next, fp8.history_push %h_amax_history_next, fp8.history_push %w_down_amax_history_next
// DELAYED-NOT: {{.}}

// ROWWISE: // fusion plan for @swiglu_mlp: 6 kernels
// ROWWISE-NEXT: kernel #0 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// ROWWISE-NEXT: kernel #1 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w_gate_amax, fp8.scale %w_gate_scale, fp8.cast %w_gate_fp8
// ROWWISE-NEXT: kernel #2 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w_up_amax, fp8.scale %w_up_scale, fp8.cast %w_up_fp8
// ROWWISE-NEXT: kernel #3 reduce -> generated
// ROWWISE-NEXT:   body: fp8.amax %w_down_amax, fp8.scale %w_down_scale, fp8.cast %w_down_fp8
// ROWWISE-NEXT: kernel #4 gemm -> generated (dual GEMM (gate and up share A) with a swiglu epilogue)
// ROWWISE-NEXT:   main: fp8.scaled_matmul %gate, fp8.scaled_matmul %up
// ROWWISE-NEXT:   epilogue: fp8.swiglu %h, fp8.amax %h_amax
// ROWWISE-NEXT: kernel #5 gemm -> generated (casts A to FP8 in a prologue launch)
// ROWWISE-NEXT:   prologue: fp8.scale %h_scale, fp8.cast %h_fp8
// ROWWISE-NEXT:   main: fp8.scaled_matmul %y
// ROWWISE-NEXT: not fused:
// ROWWISE-NEXT:   fp8.cast %h_fp8 not in the epilogue of kernel #4: its scale needs the amax of whole rows of %h, which span several output tiles; it is in kernel #5 (prologue)
// ROWWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #4: its scale needs %x_amax, the amax of %x, first: the amax, scale and cast are one launch of their own; it is in kernel #0 (body)
// ROWWISE-NOT: {{.}}

// BLOCKWISE: // fusion plan for @swiglu_mlp: 6 kernels
// BLOCKWISE-NEXT: kernel #0 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8
// BLOCKWISE-NEXT: kernel #1 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w_gate_amax, fp8.scale %w_gate_scale, fp8.cast %w_gate_fp8
// BLOCKWISE-NEXT: kernel #2 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w_up_amax, fp8.scale %w_up_scale, fp8.cast %w_up_fp8
// BLOCKWISE-NEXT: kernel #3 reduce -> generated
// BLOCKWISE-NEXT:   body: fp8.amax %w_down_amax, fp8.scale %w_down_scale, fp8.cast %w_down_fp8
// BLOCKWISE-NEXT: kernel #4 gemm -> generated (dual GEMM (gate and up share A) with a swiglu epilogue)
// BLOCKWISE-NEXT:   main: fp8.scaled_matmul %gate, fp8.scaled_matmul %up
// BLOCKWISE-NEXT:   epilogue: fp8.swiglu %h, fp8.amax %h_amax, fp8.scale %h_scale, fp8.cast %h_fp8
// BLOCKWISE-NEXT: kernel #5 gemm -> cublaslt
// BLOCKWISE-NEXT:   main: fp8.scaled_matmul %y
// BLOCKWISE-NEXT: not fused:
// BLOCKWISE-NEXT:   fp8.cast %x_fp8 not in the prologue of kernel #4: a block_1x128 cast is not done in a GEMM prologue (tensor and row scales only); it is in kernel #0 (body)
// BLOCKWISE-NOT: {{.}}
