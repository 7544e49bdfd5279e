// Every kernel `fuse` builds lowers: a GEMM whose only user is a one-operand op the epilogue does
// not take (silu, convert, exact GELU), an unused GEMM under delayed scaling, one tensor as both
// operands under blockwise scaling, blockwise training of two linears back to back, and one
// GEMM result cast twice (two linears merged by cse, each with its own delayed history), and
// pointwise ops on a transposed token-dim activation ([K, ?]).
// Each graph is lowered with both GEMM backends and printed as CUDA and PTX.
//
// RUN: fp8c %s --split-input-file --recipe=tensorwise --backend=generated --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=delayed --backend=generated --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=rowwise --backend=generated --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=blockwise --backend=generated --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=tensorwise --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=delayed --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=blockwise --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=tensorwise --backend=generated --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fp8c %s --split-input-file --recipe=delayed --backend=generated --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fp8c %s --split-input-file --recipe=tensorwise --train --tokens=64 --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=delayed --train --tokens=64 --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=rowwise --train --tokens=64 --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %s --split-input-file --recipe=blockwise --train --tokens=64 --emit=cuda | FileCheck %s --check-prefix=CUDA
// The CPU interpreter gives the same values before and after the passes, within FP8's error.
// RUN: fp8c %s --split-input-file --recipe=delayed --run=cpu --compare --random-inputs=1 | FileCheck %s --check-prefix=CMP
// RUN: fp8c %s --split-input-file --recipe=blockwise --run=cpu --compare --random-inputs=1 | FileCheck %s --check-prefix=CMP

// CUDA-COUNT-9: __global__
// PTX-COUNT-9: .entry
// CMP-COUNT-9: relative Frobenius error {{0|0\.0[0-9]*|[0-9.]+e-0[2-9]}}{{$}}

func.func @silu(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<?x512xbf16> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  %g = fp8.silu %h : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %g : tensor<?x512xbf16>
}

// -----

func.func @exact_gelu(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %h = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %h {approximate = "none"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %g : tensor<?x512xbf16>
}

// -----

func.func @convert(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<?x512xf32> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  %g = fp8.convert %h : (tensor<?x512xbf16>) -> tensor<?x512xf32>
  return %g : tensor<?x512xf32>
}

// -----

func.func @convert_input(%x: tensor<?x256xf32>, %w: tensor<512x256xbf16>) -> tensor<?x512xbf16> {
  %xc = fp8.convert %x : (tensor<?x256xf32>) -> tensor<?x256xbf16>
  %h = fp8.linear %xc, %w : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  return %h : tensor<?x512xbf16>
}

// -----

func.func @unused_linear(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  %g = fp8.relu %x : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
  return %g : tensor<?x256xbf16>
}

// -----

func.func @both_operands(%x: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %h = fp8.linear %x, %x : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %h : tensor<256x256xbf16>
}

// -----

func.func @back_to_back(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %w2: tensor<256x512xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1 : (tensor<?x256xbf16>, tensor<512x256xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %h, %w2 : (tensor<?x512xbf16>, tensor<256x512xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

func.func @cast_twice(%x: tensor<17x100xbf16>, %w: tensor<16x100xbf16>, %w1: tensor<32x16xbf16>, %w2: tensor<48x16xbf16>) -> (tensor<17x32xbf16>, tensor<17x48xbf16>) {
  %y = fp8.linear %x, %w : (tensor<17x100xbf16>, tensor<16x100xbf16>) -> tensor<17x16xbf16>
  %y1 = fp8.linear %x, %w : (tensor<17x100xbf16>, tensor<16x100xbf16>) -> tensor<17x16xbf16>
  %y2 = fp8.linear %y1, %w1 : (tensor<17x16xbf16>, tensor<32x16xbf16>) -> tensor<17x32xbf16>
  %y3 = fp8.linear %y, %w2 : (tensor<17x16xbf16>, tensor<48x16xbf16>) -> tensor<17x48xbf16>
  return %y2, %y3 : tensor<17x32xbf16>, tensor<17x48xbf16>
}

// -----

func.func @transposed_tokens(%x: tensor<?x17xbf16>) -> tensor<17x?xbf16> {
  %t = fp8.transpose %x : (tensor<?x17xbf16>) -> tensor<17x?xbf16>
  %m = fp8.mul %t, %t : (tensor<17x?xbf16>, tensor<17x?xbf16>) -> tensor<17x?xbf16>
  %s = fp8.silu %m : (tensor<17x?xbf16>) -> tensor<17x?xbf16>
  return %s : tensor<17x?xbf16>
}
