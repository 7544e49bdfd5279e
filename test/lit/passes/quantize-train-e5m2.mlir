// Training with e5m2 gradients: a backward GEMM whose other operand is e5m2 too would multiply
// two e5m2 operands, which no FP8 GEMM takes: a located error at the linear, naming the options.
// RUN: %expect-exit 1 fp8c %s --recipe=tensorwise --train --tokens=64 --recipe-options='weight_dtype=e5m2' 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: %expect-exit 1 fp8c %s --recipe=delayed --train --tokens=64 --recipe-options='weight_dtype=e5m2 grad_dtype=e5m2' 2>&1 | FileCheck %s --check-prefix=WEIGHT
// With e4m3 gradients the step quantizes. (e5m2 activations train with e5m2 gradients: the
// weight-gradient GEMM reads the transposed activation as its B operand, in weight_dtype.)
// RUN: fp8c %s --recipe=tensorwise --train --tokens=64 --recipe-options='weight_dtype=e5m2 grad_dtype=e4m3' | FileCheck %s --check-prefix=OK
// RUN: fp8c %s --recipe=tensorwise --train --tokens=64 --recipe-options='act_dtype=e5m2' | FileCheck %s --check-prefix=OK
// OK: func.func @f_bwd(

func.func @f(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %w2: tensor<256x512xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1 : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  // WEIGHT: {{^}}{{.*}}quantize-train-e5m2.mlir:[[@LINE+1]]:3: error: quantize: 'fp8.linear' would multiply two e5m2 operands (grad_dtype=e5m2 with weight_dtype=e5m2), which no FP8 GEMM takes; make one of them e4m3{{$}}
  %y = fp8.linear %h, %w2 : (tensor<?x512xbf16>, tensor<256x512xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
