// Where `quantize` may stand in a pipeline (passes/PassManager.cpp): after `fuse` (which moves
// every linear and matmul into an fp8.kernel region) or after another `quantize` it would
// rewrite nothing, so both are pipeline errors naming the passes' positions. A graph that is
// fused already, read from a file, is a located error at its first kernel (passes/Quantize.cpp).
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer,fuse,quantize{recipe=tensorwise}' 2>&1 | FileCheck %s --check-prefix=AFTER-FUSE
// AFTER-FUSE: {{^}}fp8c: error: pass 3 of the pipeline, 'quantize', comes after pass 2 ('fuse'), which leaves no linear or matmul for it to quantize; run quantize before fuse{{$}}
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise},cse,quantize{recipe=delayed},fuse' 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: {{^}}fp8c: error: pass 3 of the pipeline, 'quantize', would quantize a graph that pass 1 ('quantize') already quantized; give quantize once{{$}}
// Nothing is printed on stdout.
// RUN: %expect-exit 1 fp8c %s --passes='fuse,quantize{recipe=tensorwise}' --emit=ir 2>/dev/null | count 0
// A pipeline with fuse twice, or quantize once before fuse, is fine.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise},fuse,fuse' --emit=ir | FileCheck %s --check-prefix=OK
// OK: fp8.kernel
//
// RUN: fp8c %s --passes='shape-infer,fuse' --emit=ir > %t.fused.mlir
// RUN: %expect-exit 1 fp8c %t.fused.mlir --recipe=tensorwise 2>&1 | FileCheck %s --check-prefix=FUSED-FILE
// FUSED-FILE: {{^}}{{.*}}pass-order.mlir.tmp.fused.mlir:2:3: error: quantize: @f is already fused (this fp8.kernel holds its ops, which quantize does not rewrite); quantize before fuse{{$}}

func.func @f(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
