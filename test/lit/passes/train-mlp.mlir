// fp8c --train on the MLP example (delayed): the backward's reduce kernel takes gelu's
// derivative, dh's amax, scale, cast, its FP8 transpose and db1 in one pass; a dynamic token
// dim needs --tokens.
// RUN: fp8c %S/../../../examples/mlp.mlir --train --recipe=delayed --tokens=16 --print-fusion-plan | FileCheck %s
// RUN: not fp8c %S/../../../examples/mlp.mlir --train 2>&1 | FileCheck %s --check-prefix=DYN

// CHECK-LABEL: // fusion plan for @mlp_bwd: 7 kernels
// CHECK: body: fp8.gelu_grad %h_grad, fp8.amax %h_grad_amax, fp8.history_scale %h_grad_scale, fp8.cast %h_grad_fp8, fp8.transpose %h_grad_fp8_t, fp8.col_sum %b1_grad
// CHECK: body: fp8.history_push %y_grad_amax_history_next, fp8.history_push %h_grad_amax_history_next

// DYN: mlp.mlir:3:1: error: training @mlp needs static shapes: input %x has type tensor<?x4096xbf16>; give the token count (--tokens=N)
