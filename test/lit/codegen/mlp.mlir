// `fp8c --emit=cuda` of the MLP (linear + bias, GELU tanh, linear + bias), per recipe: what
// cuBLASLt's epilogue takes and what is left to generated launches.
// RUN: fp8c %s --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefix=TW
// RUN: fp8c %s --recipe=delayed --emit=cuda | FileCheck %s --check-prefix=DL
// RUN: fp8c %s --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=RW
// RUN: fp8c %s --recipe=blockwise --emit=cuda | FileCheck %s --check-prefix=BW
// RUN: fp8c %s --recipe=blockwise --emit=cuda --backend=generated | FileCheck %s --check-prefix=BW-GEN
// RUN: fp8c %s --recipe=blockwise --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=BW-LT

func.func @mlp(%x: tensor<?x4096xbf16>, %w1: tensor<14336x4096xbf16>, %b1: tensor<14336xbf16>, %w2: tensor<4096x14336xbf16>, %b2: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

// Tensorwise: x's amax, scale and cast in one cooperative launch; GEMM 1 takes bias and GELU;
// the amax of g is a generated epilogue launch (cuBLASLt's AMAX_D is for FP8 outputs only);
// GEMM 2's prologue computes g's scale from it.
// TW-LABEL: // fp8c CUDA for @mlp: 5 generated launches, 2 cuBLASLt GEMMs
// TW: // ===== step 0: launch fp8c_mlp_k0_quantize =====
// TW-NEXT: // grid: {{.*}}, persistent, cooperative; buffers: #0 %x
// TW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Tensor, 32)
// TW: // ===== step 1: launch fp8c_mlp_k1_quantize =====
// TW: .localScale(fp8c::Dt::E4M3, 0, false)
// TW: // ===== step 2: launch fp8c_mlp_k2_quantize =====
// TW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 14336, fp8c::Gran::Tensor, 112)
// TW: // ===== step 3: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// TW-NEXT: //   ops: fp8.scaled_matmul %h, fp8.gelu %g
// TW: //   epilogue GELU_BIAS, bias #2 %b1{{$}}
// TW: // ===== step 4: launch fp8c_mlp_k3_epilogue =====
// TW: fp8c_mlp_k3_epilogue: fp8.amax %g_amax
// TW: static constexpr fp8c::AmaxDesc kAmax = fp8c::AmaxDesc::to(1, fp8c::Gran::Tensor, 112);
// TW: // ===== step 5: launch fp8c_mlp_k4_prologue =====
// TW: fp8c::scaleFromAmax<fp8c::Dt::E4M3>(fp8c::f32p(buf[2])[0], 0, false);
// TW: // ===== step 6: cuBLASLt GEMM fp8c_mlp_k4_gemm =====
// TW: //   epilogue BIAS, bias #4 %b2
// TW-NOT: launch

// Delayed: g's scale comes from its history, known before GEMM 1, so cuBLASLt writes g in FP8
// directly (scaleD) and reduces its amax; then one block pushes that amax into g's history
// (the generated GEMM would push it from its last block). No state launch at the end: the
// casts push the other histories.
// DL-LABEL: // fp8c CUDA for @mlp: 3 generated launches, 2 cuBLASLt GEMMs
// DL: // ===== step 2: launch fp8c_mlp_k2_prologue =====
// DL: fp8c::historyScale<fp8c::Dt::E4M3, fp8c::HistoryAlgo::Max>(fp8c::f32p(buf[3]), 16, 0, false);
// DL: fp8c::historyScale<fp8c::Dt::E4M3, fp8c::HistoryAlgo::Max>(fp8c::f32p(buf[6]), 16, 0, false);
// DL: // ===== step 3: cuBLASLt GEMM fp8c_mlp_k2_gemm =====
// DL-NEXT: //   ops: fp8.scaled_matmul %h, fp8.gelu %g, fp8.amax %g_amax, fp8.cast %g_fp8
// DL: //   epilogue GELU_BIAS, bias #2 %b1, AMAX_D #{{[0-9]+}} %g_amax, FP8 D scale #{{[0-9]+}} %g_scale, the amax (rounded to bf16) pushed into #{{[0-9]+}} %g_amax_history in place, then zeroed (by the generated GEMM's last block; after cuBLASLt, by a launch)
// DL-EMPTY:
// DL-NEXT: // ===== step 3 after cuBLASLt (the history push), or instead at an M where it has no rows: launch fp8c_mlp_k4_push =====
// DL: fp8c::historyPushInPlace<16>(fp8c::f32p(buf[0]), fp8c::roundTo<fp8c::Dt::BF16>(fp8c::f32p(buf[1])[0]));
// DL-NEXT: if (threadIdx.x == 0) fp8c::f32p(buf[1])[0] = 0.0f;
// DL: // ===== step 4: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// DL-NEXT: //   ops: fp8.scaled_matmul %y
// DL-NOT: _state

// Rowwise: cuBLASLt's outer-vector scales take only the bias, so GEMM 1 (GELU and the row amax
// of g in its epilogue) runs on the generated GEMM; with --backend=cublaslt they are one
// generated epilogue launch.
// RUN: fp8c %s --recipe=rowwise --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=RW-LT
// RW-LABEL: // fp8c CUDA for @mlp: 4 generated launches, 1 cuBLASLt GEMMs, 1 generated sm90 GEMMs
// RW: // ===== step 0: launch fp8c_mlp_k0_quantize =====
// RW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Row, 32)
// RW: // ===== step 3: generated sm90 GEMM fp8c_mlp_k3_gemm =====
// RW-NEXT: //   ops: fp8.scaled_matmul %h, fp8.gelu %g, fp8.amax %g_amax
// RW: //   scales OUTER_VEC_32F:
// RW-NEXT: //   epilogue GELU_BIAS, bias #2 %b1, AMAX_D per row #{{[0-9]+}} %g_amax
// RW-NEXT: //   backend generated
// RW-NOT: fp8c_mlp_k3_epilogue
// RW: // ===== step 4: launch fp8c_mlp_k4_prologue =====
// RW: .amaxScale({{[0-9]+}}, fp8c::Dt::BF16, fp8c::Dt::E4M3, 0, false).invOut({{[0-9]+}}, fp8c::InvLayout::RowMajor);
// RW-LT-LABEL: // fp8c CUDA for @mlp: 5 generated launches, 2 cuBLASLt GEMMs
// RW-LT: // ===== step 3: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// RW-LT-NEXT: //   ops: fp8.scaled_matmul %h
// RW-LT: //   scales OUTER_VEC_32F:
// RW-LT-NEXT: //   epilogue BIAS, bias #2 %b1
// RW-LT: // ===== step 4: launch fp8c_mlp_k3_epilogue =====
// RW-LT: const float t0 = fp8c::roundTo<fp8c::Dt::BF16>(fp8c::op::geluTanh(x[0])); // fp8.gelu %g
// RW-LT: static constexpr fp8c::OutDesc kStore = fp8c::OutDesc::to(1, fp8c::Dt::BF16, 14336);
// RW-LT: static constexpr fp8c::AmaxDesc kAmax = fp8c::AmaxDesc::to(2, fp8c::Gran::Row, 112);
// RW-LT: // ===== step 5: launch fp8c_mlp_k4_prologue =====
// RW-LT: .amaxScale(2, fp8c::Dt::F32, fp8c::Dt::E4M3, 0, false).invOut(3, fp8c::InvLayout::RowMajor);

// Blockwise: GELU, the 1x128 amax, scale and cast of g in GEMM 1's epilogue: the generated
// GEMM computes them from its registers and writes g's FP8 copy, its scales and the inverse
// scales (K-block-major, for GEMM 2); after cuBLASLt (auto's other choice, whose 128-block mode
// takes no activation or FP8 output) a launch computes them from cuBLASLt's bf16 result.
// BW-LABEL: // fp8c CUDA for @mlp: 3 generated launches, 2 cuBLASLt GEMMs
// BW: // ===== step 3: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// BW-NEXT: //   ops: fp8.scaled_matmul %h, fp8.gelu %g, fp8.amax %g_amax, fp8.scale %g_scale, fp8.cast %g_fp8
// BW: //   A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w1_fp8, D #{{[0-9]+}} %g_fp8
// BW-NEXT: //   scales VEC128_32F (A) x BLK128x128_32F (B): 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w1_scale.inv{{$}}
// BW-NEXT: //   epilogue BIAS, bias #{{[0-9]+}} %b1, D cast per 1x128 block after gelu_tanh (margin 0, pow2), scales to #{{[0-9]+}} %g_scale, 1/scales to #{{[0-9]+}} %g_scale.inv (cuBLASLt: the result to #{{[0-9]+}} %h)
// BW: // ===== step 3 after cuBLASLt (the epilogue from its bf16 result #{{[0-9]+}} %h): launch fp8c_mlp_k3_block_cast_fallback =====
// BW: fp8c::op::geluTanh(x[0])
// BW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 14336, fp8c::Gran::Block1x128, 112)
// BW-NEXT: .localScale(fp8c::Dt::E4M3, 0, true).scaleOut(2).invOut(3, fp8c::InvLayout::KBlockMajor);
// BW: // ===== step 4: cuBLASLt GEMM fp8c_mlp_k4_gemm =====
// BW: //   scales VEC128_32F (A) x BLK128x128_32F (B): 1/sA #{{[0-9]+}} %g_scale.inv,

// Forced onto the generated GEMM: no bf16 h at all, no launch after GEMM 1.
// BW-GEN-LABEL: // fp8c CUDA for @mlp: 3 generated launches, 0 cuBLASLt GEMMs, 2 generated sm90 GEMMs
// BW-GEN-NOT: %h tensor
// BW-GEN: // ===== step 3: generated sm90 GEMM fp8c_mlp_k3_gemm =====
// BW-GEN: //   epilogue BIAS, bias #{{[0-9]+}} %b1, D cast per 1x128 block after gelu_tanh (margin 0, pow2), scales to #{{[0-9]+}} %g_scale, 1/scales to #{{[0-9]+}} %g_scale.inv{{$}}
// BW-GEN-NEXT: //   backend generated
// BW-GEN-NOT: block_cast_fallback
// BW-GEN: // ===== step 4: generated sm90 GEMM fp8c_mlp_k4_gemm =====

// Forced onto cuBLASLt: the unfused plan, GEMM 1 writes h and the epilogue launch casts it.
// BW-LT-LABEL: // fp8c CUDA for @mlp: 4 generated launches, 2 cuBLASLt GEMMs
// BW-LT: // ===== step 3: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// BW-LT-NOT: D cast per 1x128 block
// BW-LT: // ===== step 4: launch fp8c_mlp_k3_epilogue =====
// BW-LT: fp8c::Gran::Block1x128
