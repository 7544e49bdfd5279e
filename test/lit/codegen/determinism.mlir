// The generated CUDA is deterministic: the same graph gives the same text, every recipe.
// RUN: fp8c %s --recipe=tensorwise --emit=cuda > %t.tw1 && fp8c %s --recipe=tensorwise --emit=cuda > %t.tw2 && diff %t.tw1 %t.tw2
// RUN: fp8c %s --recipe=delayed --emit=cuda > %t.dl1 && fp8c %s --recipe=delayed --emit=cuda > %t.dl2 && diff %t.dl1 %t.dl2
// RUN: fp8c %s --recipe=rowwise --emit=cuda > %t.rw1 && fp8c %s --recipe=rowwise --emit=cuda > %t.rw2 && diff %t.rw1 %t.rw2
// RUN: fp8c %s --recipe=blockwise --emit=cuda > %t.bw1 && fp8c %s --recipe=blockwise --emit=cuda > %t.bw2 && diff %t.bw1 %t.bw2
// RUN: FileCheck %s < %t.bw1

// CHECK-LABEL: // fp8c CUDA for @swiglu_mlp: 5 generated launches, 2 cuBLASLt GEMMs
// The dual GEMM (gate and up share x) with 128-block scales: one step (the generated kernel
// writes the bf16 swiglu; cuBLASLt's form writes %gate and %up, then a launch the swiglu), then
// a launch takes the 1x128 amax, scale and cast.
// CHECK: // ===== step 4: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm =====
// CHECK-NEXT: //   ops: fp8.scaled_matmul %gate, fp8.scaled_matmul %up, fp8.swiglu %h (one GEMM for both weights)
// CHECK: //   scales VEC128_32F (A) x BLK128x128_32F (B): 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_gate_scale.inv, 1/sB2 #{{[0-9]+}} %w_up_scale.inv
// CHECK: // ===== step 4 after cuBLASLt (the swiglu epilogue from #{{[0-9]+}} %gate and #{{[0-9]+}} %up): launch fp8c_swiglu_mlp_k4_dual_fallback =====
// CHECK: fp8c::InDesc::full(0, fp8c::Dt::BF16, 14336), // %gate
// CHECK-NEXT: fp8c::InDesc::full(1, fp8c::Dt::BF16, 14336), // %up
// CHECK: fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::swiglu(x[0], x[1])); // fp8.swiglu %h
// CHECK: // ===== step 5: launch fp8c_swiglu_mlp_k4_epilogue =====
// CHECK: // fp8c_swiglu_mlp_k4_epilogue: fp8.amax %h_amax, fp8.scale %h_scale, fp8.cast %h_fp8

func.func @swiglu_mlp(%x: tensor<?x4096xbf16>, %w_gate: tensor<14336x4096xbf16>, %w_up: tensor<14336x4096xbf16>, %w_down: tensor<4096x14336xbf16>) -> tensor<?x4096xbf16> {
  %gate = fp8.linear %x, %w_gate : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %up = fp8.linear %x, %w_up : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x14336xbf16>, tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %h, %w_down : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
