// REQUIRES: mlir
// fp8c's pass pipeline as an MLIR pass: --fp8c-pipeline translates the module into fp8c's IR,
// verifies it, runs fp8c's PassManager and translates back. Its output is fp8c's own
// (`fp8c --recipe` / `--passes`) for every recipe, and the quantized and fused graph keeps the
// names the passes give.
//
// RUN: fp8c %s --recipe=tensorwise --emit=ir > %t.a && fp8c-opt %s --fp8c-pipeline=recipe=tensorwise > %t.b && diff %t.a %t.b
// RUN: fp8c %s --recipe=delayed --emit=ir > %t.a && fp8c-opt %s --fp8c-pipeline=recipe=delayed > %t.b && diff %t.a %t.b
// RUN: fp8c %s --recipe=rowwise --emit=ir > %t.a && fp8c-opt %s --fp8c-pipeline=recipe=rowwise > %t.b && diff %t.a %t.b
// RUN: fp8c %s --recipe=blockwise --emit=ir > %t.a && fp8c-opt %s --fp8c-pipeline=recipe=blockwise > %t.b && diff %t.a %t.b
// RUN: fp8c %s --recipe=none --emit=ir > %t.a && fp8c-opt %s --fp8c-pipeline=recipe=none > %t.b && diff %t.a %t.b
// RUN: fp8c %s '--passes=canonicalize,quantize{recipe=rowwise pow2=true},cse,dce' --emit=ir > %t.a
// RUN: fp8c-opt %s '--fp8c-pipeline=passes=canonicalize,quantize{recipe=rowwise pow2=true},cse,dce' > %t.b && diff %t.a %t.b
//
// RUN: fp8c-opt %s --fp8c-pipeline=recipe=tensorwise | FileCheck %s --check-prefix=TENSOR
// RUN: fp8c-opt %s --fp8c-pipeline=recipe=delayed | FileCheck %s --check-prefix=DELAYED
// RUN: fp8c-opt %s --fp8c-pipeline=recipe=rowwise | FileCheck %s --check-prefix=ROW
// RUN: fp8c-opt %s --fp8c-pipeline=recipe=blockwise | FileCheck %s --check-prefix=BLOCK
// RUN: fp8c-opt %s '--fp8c-pipeline=passes=canonicalize,cse,dce' | FileCheck %s --check-prefix=CLEAN
// RUN: fp8c-opt %s '--fp8c-pipeline=passes=quantize{recipe=tensorwise}' --fp8c-verify | FileCheck %s --check-prefix=QUANT
// And with MLIR's textual pipeline syntax, between MLIR's own passes:
// RUN: fp8c-opt %s '--pass-pipeline=builtin.module(fp8c-pipeline{passes=quantize{recipe=tensorwise} verify-each=true},canonicalize,cse)' | FileCheck %s --check-prefix=QUANT
// RUN: %expect-exit 1 fp8c-opt %s --fp8c-pipeline=passes=bogus 2>&1 | FileCheck %s --check-prefix=BAD

// TENSOR-LABEL: func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>) -> tensor<?x256xbf16> {
// TENSOR:         %[[XS:[^,]+]], %[[XQ:[^ ]+]] = fp8.kernel "reduce" (%x)
// TENSOR:           fp8.amax {{.*}}{fp8.role = "body", granularity = "tensor"}
// TENSOR:           fp8.cast {{.*}} -> tensor<?x256xf8E4M3FN>
// TENSOR:         = fp8.kernel "reduce" (%w1)
// TENSOR:           fp8.cast {{.*}} -> tensor<512x256xf8E4M3FN>
// TENSOR:         = fp8.kernel "gemm" (%[[XQ]], %w1_fp8, %[[XS]],
// TENSOR:           fp8.scaled_matmul {{.*}} {fast_accum = true, fp8.role = "main", out = bf16}
// TENSOR:         %y = fp8.kernel "gemm"
// TENSOR:         return %y : tensor<?x256xbf16>

// The delayed recipe adds an amax history per quantized tensor: state inputs and outputs.
// DELAYED-LABEL: func.func @mlp(
// DELAYED-SAME:    %x_amax_history: tensor<16xf32> {fp8.state = "x_amax_history"}
// DELAYED-SAME:    -> (tensor<?x256xbf16>, tensor<16xf32> {fp8.state = "x_amax_history"}
// DELAYED:         fp8.history_scale
// DELAYED:         fp8.history_push

// ROW-LABEL: func.func @mlp(
// ROW:         fp8.amax {{.*}} {fp8.role = "body", granularity = "row"} : (tensor<?x256xbf16>) -> tensor<?xf32>
// ROW:         fp8.scaled_matmul {{.*}} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<?xf32>, tensor<512xf32>, tensor<512xbf16>) -> tensor<?x512xbf16>

// BLOCK-LABEL: func.func @mlp(
// BLOCK:         fp8.amax {{.*}} {fp8.role = "body", granularity = "block_1x128"} : (tensor<?x256xbf16>) -> tensor<?x2xf32>
// BLOCK:         fp8.scale {{.*}} {dtype = f8E4M3FN, fp8.role = "body", pow2 = true}
// BLOCK:         fp8.amax {{.*}} {fp8.role = "body", granularity = "block_128x128"} : (tensor<512x256xbf16>) -> tensor<4x2xf32>

// canonicalize folds the double convert; cse merges the two identical gelus; dce drops %dead.
// CLEAN-LABEL: func.func @mlp(
// CLEAN-NEXT:    %h = fp8.linear %x, %w1, %b1
// CLEAN-NEXT:    %g = fp8.gelu %h {approximate = "tanh"}
// CLEAN-NEXT:    %y = fp8.linear %g, %w2 :
// CLEAN-NEXT:    return %y
// CLEAN-NEXT:  }

// QUANT-LABEL: func.func @mlp(
// QUANT-NOT:     fp8.linear
// QUANT-COUNT-2: fp8.scaled_matmul
// QUANT:         return %y

// BAD: error: fp8c-pipeline: unknown pass 'bogus'; known passes: {{.*}}quantize
func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %c = fp8.convert %h : (tensor<?x512xbf16>) -> tensor<?x512xf32>
  %c2 = fp8.convert %c : (tensor<?x512xf32>) -> tensor<?x512xbf16>
  %g = fp8.gelu %c2 {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %g2 = fp8.gelu %c2 {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %dead = fp8.relu %g2 : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2 : (tensor<?x512xbf16>, tensor<256x512xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
