// fp8.linear on inputs of rank 3 and 4 on the CPU interpreter, per recipe, against the graph as
// written (--compare): the leading dims flatten into M. Without a recipe the compiled graph
// computes the same values; tensorwise and delayed add only their FP8 rounding (a few percent
// relative); rowwise and blockwise refuse the rank-3 input with a located error.
// RUN: fp8c %s --func linear3d --recipe=none --run=cpu --compare --random-inputs=1 --dynamic-dim=3 | FileCheck %s --check-prefix=EXACT
// RUN: fp8c %s --func linear3d --run=cpu --compare --random-inputs=1 --dynamic-dim=3 | FileCheck %s --check-prefix=EXACT
// RUN: fp8c %s --func linear3d --recipe=tensorwise --run=cpu --compare --random-inputs=1 --dynamic-dim=3 | FileCheck %s --check-prefix=FP8
// RUN: fp8c %s --func linear3d --recipe=delayed --run=cpu --compare --random-inputs=1 --dynamic-dim=3 | FileCheck %s --check-prefix=FP8
// RUN: fp8c %s --func mlp4d --recipe=none --run=cpu --compare --random-inputs=2 | FileCheck %s --check-prefix=EXACT4
// RUN: fp8c %s --func mlp4d --recipe=tensorwise --run=cpu --compare --random-inputs=2 | FileCheck %s --check-prefix=FP8-4
// RUN: fp8c %s --func mlp4d --recipe=delayed --run=cpu --compare --random-inputs=2 | FileCheck %s --check-prefix=FP8-4
// RUN: %expect-exit 1 fp8c %s --func linear3d --recipe=rowwise --run=cpu --compare --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RW
// RUN: %expect-exit 1 fp8c %s --func linear3d --recipe=blockwise --run=cpu --compare --random-inputs=1 2>&1 | FileCheck %s --check-prefix=BW

func.func @linear3d(%x: tensor<?x4x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x4x512xbf16> {
  // RW: linear-rank3.mlir:[[@LINE+2]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe rowwise
  // BW: linear-rank3.mlir:[[@LINE+1]]:3: error: quantize: the input of 'fp8.linear' must be 2-D under recipe blockwise
  %y = fp8.linear %x, %w, %b : (tensor<?x4x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
  return %y : tensor<?x4x512xbf16>
}

// A static rank-4 input with K = 100 (not a multiple of 16: the FP8 copy has a padded pitch),
// a GELU between the linears and a residual add.
func.func @mlp4d(%x: tensor<2x3x5x100xbf16>, %w1: tensor<64x100xbf16>, %b1: tensor<64xbf16>, %w2: tensor<100x64xbf16>) -> tensor<2x3x5x100xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<2x3x5x100xbf16>, tensor<64x100xbf16>, tensor<64xbf16>) -> tensor<2x3x5x64xbf16>
  %g = fp8.gelu %h : (tensor<2x3x5x64xbf16>) -> tensor<2x3x5x64xbf16>
  %y = fp8.linear %g, %w2 : (tensor<2x3x5x64xbf16>, tensor<100x64xbf16>) -> tensor<2x3x5x100xbf16>
  %r = fp8.add %y, %x : (tensor<2x3x5x100xbf16>, tensor<2x3x5x100xbf16>) -> tensor<2x3x5x100xbf16>
  return %r : tensor<2x3x5x100xbf16>
}

// EXACT: output #0 'y' tensor<3x4x512xbf16>:
// EXACT-NEXT: vs the graph before the passes: relative Frobenius error 0{{$}}
// FP8: output #0 'y' tensor<3x4x512xbf16>:
// FP8-NEXT: vs the graph before the passes: relative Frobenius error 0.0{{[0-9]+}}
// EXACT4: output #0 'r' tensor<2x3x5x100xbf16>:
// EXACT4-NEXT: vs the graph before the passes: relative Frobenius error 0{{$}}
// FP8-4: output #0 'r' tensor<2x3x5x100xbf16>:
// FP8-4-NEXT: vs the graph before the passes: relative Frobenius error 0.0{{[0-9]+}}
