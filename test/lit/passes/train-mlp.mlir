// fp8c --train on the MLP example (delayed); a dynamic token dim needs --tokens.
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --tokens=16 --print-fusion-plan | FileCheck %s
// RUN: %expect-exit 1 fp8c %S/../../../examples/mlp.mlir --train 2>&1 | FileCheck %s --check-prefix=DYN
// The forward's first GEMM takes the GELU, the amax, the FP8 cast with the history's scale and
// its transpose, and writes the unscaled e4m3 copy of its pre-activation %h that the step saves
// for the GELU's derivative (gelu_saved=e4m3, delayed's default): only the generated GEMM can.
// With gelu_saved=input it saves %h itself (GELU_AUX). With current scaling (tensorwise) the
// generated GEMM writes the bf16 GELU and its amax beside %h, and one launch casts and
// transposes the GELU with the scale of that amax (not the cooperative launch that read %h
// twice); with the e4m3 copy too (gelu_saved=e4m3), or --backend=cublaslt, the GELU
// cast-transpose reads %h back (and writes the e4m3 copy from it), and the plan says why.
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --recipe-options='gelu_saved=input' --tokens=16 --print-fusion-plan | FileCheck %s --check-prefix=IN
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=tensorwise --tokens=16 --print-fusion-plan | FileCheck %s --check-prefix=TW
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=tensorwise --recipe-options='gelu_saved=e4m3' --tokens=16 --print-fusion-plan | FileCheck %s --check-prefix=TW8
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --tokens=16 --backend=cublaslt --print-fusion-plan | FileCheck %s --check-prefix=LT
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --recipe-options='gelu_saved=input' --tokens=16 --backend=cublaslt --print-fusion-plan | FileCheck %s --check-prefix=LTIN
// With weights=static the weights are cast with their own amax in kernels that run at load
// (GpuTraining::forward with WeightCasts::Cast, or once per accumulation with Reuse), and the
// forward keeps no history for them: its state launch pushes x's and the GELU's only.
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --recipe-options='weights=static' --tokens=16 --print-fusion-plan | FileCheck %s --check-prefix=STATIC
// STATIC-LABEL: // fusion plan for @mlp_fwd: 6 kernels
// STATIC: kernel #1 reduce -> generated [at load: parameters only]
// STATIC-NEXT: body: fp8.amax %w1_amax, fp8.scale %w1_scale, fp8.cast %w1_fp8, fp8.transpose %w1_fp8_t
// STATIC-NEXT: kernel #2 reduce -> generated [at load: parameters only]
// STATIC-NEXT: body: fp8.amax %w2_amax, fp8.scale %w2_scale, fp8.cast %w2_fp8, fp8.transpose %w2_fp8_t
// STATIC: kernel #5 reduce -> generated
// STATIC-NEXT: body: fp8.history_push %x_amax_history_next, fp8.history_push %g_amax_history_next{{$}}

// CHECK-LABEL: // fusion plan for @mlp_fwd: 6 kernels
// CHECK: kernel #3 gemm -> generated (the generated GEMM's epilogue writes the e4m3 copy %h_e4m3 of its pre-activation (gelu_saved=e4m3))
// CHECK-NEXT: prologue: fp8.history_scale %g_scale
// CHECK-NEXT: main: fp8.scaled_matmul %h
// CHECK-NEXT: epilogue: fp8.gelu %g, fp8.amax %g_amax, fp8.cast %g_fp8, fp8.transpose %g_fp8_t, fp8.convert %h_e4m3
// CHECK-NOT: fp8.gelu %g not in
// IN-LABEL: // fusion plan for @mlp_fwd: 6 kernels
// IN: kernel #3 gemm -> generated (the transposed FP8 output is written by the generated GEMM's epilogue (after cuBLASLt, by a transpose launch))
// IN-NEXT: prologue: fp8.history_scale %g_scale
// IN-NEXT: main: fp8.scaled_matmul %h
// IN-NEXT: epilogue: fp8.gelu %g, fp8.amax %g_amax, fp8.cast %g_fp8, fp8.transpose %g_fp8_t{{$}}
// IN-NOT: fp8.gelu %g not in
// TW: kernel #3 gemm -> generated (the generated GEMM writes the bf16 GELU, its amax and its input (cuBLASLt takes the amax of an FP8 D only))
// TW-NEXT: main: fp8.scaled_matmul %h
// TW-NEXT: epilogue: fp8.gelu %g, fp8.amax %g_amax{{$}}
// TW-NEXT: kernel #4 pointwise -> generated
// TW-NEXT: prologue: fp8.scale %g_scale
// TW-NEXT: body: fp8.cast %g_fp8, fp8.transpose %g_fp8_t{{$}}
// TW: fp8.cast %g_fp8 not in the epilogue of kernel #3: its scale needs the whole-tensor amax of %g, known only after the kernel finishes
// TW-NOT: %h_e4m3
// TW8: body: fp8.gelu %g, fp8.amax %g_amax, fp8.scale %g_scale, fp8.cast %g_fp8, fp8.transpose %g_fp8_t, fp8.convert %h_e4m3
// TW8: fp8.gelu %g not in the epilogue of kernel #3: its FP8 cast needs a scale computed after the kernel (current scaling), and the generated GEMM writes the e4m3 copy %h_e4m3 beside an FP8 GELU only: the GELU cast-transpose reads %h back
// LT: body: fp8.gelu %g, fp8.amax %g_amax, fp8.history_scale %g_scale, fp8.cast %g_fp8, fp8.transpose %g_fp8_t, fp8.convert %h_e4m3
// LT-NOT: body: fp8.convert %h_e4m3
// LT: fp8.gelu %g not in the epilogue of kernel #3: only the generated GEMM writes the e4m3 copy %h_e4m3 of the GELU's input as an aux matrix (cuBLASLt forced, or not sm_90a): %h is written out, and the GELU cast-transpose reads it back and writes the copy
// LT: fp8.convert %h_e4m3 not in the epilogue of kernel #3: only the generated GEMM writes the e4m3 copy
// LTIN: fp8.gelu %g not in the epilogue of kernel #3: %h is also an output: cuBLASLt writing it as GELU_AUX beside the FP8 GELU, plus the transpose of that, was measured slower than the GELU cast-transpose reading %h back (--backend=cublaslt)

// The backward's gelu_grad joins the second layer's dgrad GEMM: its epilogue reads the saved
// e4m3 copy (the convert joins the kernel; the derivative from tables) and writes the FP8 cast of
// %h_grad with its amax, transpose and column sums (db1) itself (codegen adds the GEMM on cuBLASLt
// plus a cast-transpose launch as auto's other choice). With gelu_saved=input the epilogue reads
// %h instead; with current scaling or --backend=cublaslt the gelu_grad cast-transpose reads
// %g_grad back, and the plan says why.
// Quantize options reach the training pipeline through --recipe-options.
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --recipe-options='bwd_fast_accum=true gelu_saved=input' --tokens=16 --print-fusion-plan | FileCheck %s --check-prefix=IN
// RUN: %expect-exit 1 fp8c %S/../../../examples/mlp.mlir --recipe=delayed --recipe-options='bwd_fast_accum=true' 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: %expect-exit 1 fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --recipe-options='gelu_saved=bf16' --tokens=16 2>&1 | FileCheck %s --check-prefix=BADOPT
// CHECK-LABEL: // fusion plan for @mlp_bwd: 6 kernels
// CHECK: kernel #1 gemm -> generated (gelu_grad reads the GELU's saved e4m3 copy in the generated GEMM's epilogue (after cuBLASLt, a cast-transpose launch from its bf16 result))
// CHECK-NEXT: prologue: fp8.convert %h_saved, fp8.history_scale %h_grad_scale
// CHECK-NEXT: main: fp8.scaled_matmul %g_grad
// CHECK-NEXT: epilogue: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.cast %h_grad_fp8, fp8.transpose %h_grad_fp8_t, fp8.col_sum %b1_grad
// CHECK: body: fp8.history_push %y_grad_amax_history_next, fp8.history_push %h_grad_amax_history_next
// CHECK-NOT: fp8.gelu_grad %h_grad not in
// IN-LABEL: // fusion plan for @mlp_bwd: 6 kernels
// IN: kernel #1 gemm -> generated (gelu_grad reads the GELU's saved input in the generated GEMM's epilogue (after cuBLASLt, a cast-transpose launch from its bf16 result))
// IN-NEXT: prologue: fp8.history_scale %h_grad_scale
// IN-NEXT: main: fp8.scaled_matmul %g_grad
// IN-NEXT: epilogue: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.cast %h_grad_fp8, fp8.transpose %h_grad_fp8_t, fp8.col_sum %b1_grad
// IN: body: fp8.history_push %y_grad_amax_history_next, fp8.history_push %h_grad_amax_history_next
// IN-NOT: fp8.gelu_grad %h_grad not in
// OPTS: --recipe-options applies to --train
// BADOPT: option gelu_saved must be e4m3 or input, got 'bf16'
// TW-LABEL: // fusion plan for @mlp_bwd:
// TW: body: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax
// TW: fp8.gelu_grad %h_grad not in the epilogue of kernel #1: its FP8 cast needs a scale computed after the kernel (current scaling), so a launch reads %g_grad back
// LT-LABEL: // fusion plan for @mlp_bwd:
// LT: body: fp8.convert %h_saved, fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.history_scale %h_grad_scale, fp8.cast %h_grad_fp8, fp8.transpose %h_grad_fp8_t, fp8.col_sum %b1_grad
// LT: fp8.gelu_grad %h_grad not in the epilogue of kernel #1: only the generated GEMM reads the GELU's saved input %h_saved in its epilogue (cuBLASLt forced, or not sm_90a): a launch reads %g_grad back
// LTIN-LABEL: // fusion plan for @mlp_bwd:
// LTIN: fp8.gelu_grad %h_grad not in the epilogue of kernel #1: only the generated GEMM reads the GELU's saved input %h in its epilogue (cuBLASLt forced, or not sm_90a): a launch reads %g_grad back

// DYN: mlp.mlir:3:1: error: training @mlp needs static shapes: input %x has type tensor<?x4096xbf16>; give the token count (--tokens=N)
