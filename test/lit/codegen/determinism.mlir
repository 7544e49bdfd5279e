// The generated CUDA is deterministic: the same graph gives the same text, every recipe.
// RUN: fp8c %s --recipe=tensorwise --emit=cuda > %t.tw1 && fp8c %s --recipe=tensorwise --emit=cuda > %t.tw2 && diff %t.tw1 %t.tw2
// RUN: fp8c %s --recipe=delayed --emit=cuda > %t.dl1 && fp8c %s --recipe=delayed --emit=cuda > %t.dl2 && diff %t.dl1 %t.dl2
// RUN: fp8c %s --recipe=rowwise --emit=cuda > %t.rw1 && fp8c %s --recipe=rowwise --emit=cuda > %t.rw2 && diff %t.rw1 %t.rw2
// RUN: fp8c %s --recipe=blockwise --emit=cuda > %t.bw1 && fp8c %s --recipe=blockwise --emit=cuda > %t.bw2 && diff %t.bw1 %t.bw2
// RUN: FileCheck %s < %t.bw1

// CHECK-LABEL: // fp8c CUDA for @swiglu_mlp: 5 generated launches, 3 cuBLASLt GEMMs
// The dual GEMM (gate and up share x): two cuBLASLt calls, then swiglu + 1x128 quantize.
// CHECK: // ===== step 4: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm0 =====
// CHECK: // ===== step 5: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm1 =====
// CHECK: // ===== step 6: launch fp8c_swiglu_mlp_k4_epilogue =====
// CHECK: fp8c::InDesc::full(0, fp8c::Dt::BF16, 14336), // %gate
// CHECK-NEXT: fp8c::InDesc::full(1, fp8c::Dt::BF16, 14336), // %up
// CHECK: fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::swiglu(x[0], x[1])); // fp8.swiglu %h

func.func @swiglu_mlp(%x: tensor<?x4096xbf16>, %w_gate: tensor<14336x4096xbf16>, %w_up: tensor<14336x4096xbf16>, %w_down: tensor<4096x14336xbf16>) -> tensor<?x4096xbf16> {
  %gate = fp8.linear %x, %w_gate : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %up = fp8.linear %x, %w_up : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x14336xbf16>, tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %h, %w_down : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
