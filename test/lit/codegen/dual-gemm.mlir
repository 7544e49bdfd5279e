// The SwiGLU MLP's gate and up projections (two FP8 GEMMs sharing x, meeting only in one
// swiglu) lower to one dual-GEMM step: the generated GEMM loads both weights into one tile and
// writes the swiglu, its amax and (delayed) its FP8 cast from the epilogue; on cuBLASLt (auto's
// other choice) the step runs the two GEMMs into %gate and %up and one launch computes the
// epilogue. --backend=generated gives %gate and %up no buffers; --backend=cublaslt and block
// scales keep two GEMM steps and an epilogue launch. Row scales (rowwise) form it with the
// swiglu's per-row amax in the epilogue; h's row cast stays the next GEMM's prologue launch.
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=delayed --emit=cuda | FileCheck %s --check-prefix=AUTO
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefix=TW
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=delayed --emit=cuda --backend=generated | FileCheck %s --check-prefix=GEN
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=delayed --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=LT
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=ROW
// RUN: fp8c %fp8c_src/examples/swiglu_mlp.mlir --recipe=blockwise --emit=cuda | FileCheck %s --check-prefix=BLOCK

// AUTO-LABEL: // fp8c CUDA for @swiglu_mlp: 4 generated launches, 2 cuBLASLt GEMMs, 0 of the steps at load
// AUTO: // ===== step 4: cuBLASLt GEMM fp8c_swiglu_mlp_k3_gemm =====
// AUTO-NEXT: //   ops: fp8.scaled_matmul %gate, fp8.scaled_matmul %up, fp8.swiglu %h, fp8.amax %h_amax, fp8.cast %h_fp8 (one GEMM for both weights)
// AUTO-NEXT: //   D[M, 14336] = A[M, 4096] * B[14336, 4096]^T (TN)
// AUTO-NEXT: //   A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w_gate_fp8 (gate), B2 #{{[0-9]+}} %w_up_fp8 (up), D #{{[0-9]+}} %h_fp8
// AUTO-NEXT: //   scales SCALAR_32F: 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_gate_scale.inv, 1/sB2 #{{[0-9]+}} %w_up_scale.inv, fast accumulation
// AUTO-NEXT: //   epilogue DEFAULT, AMAX_D #{{[0-9]+}} %h_amax, FP8 D scale #{{[0-9]+}} %h_scale, D from swiglu(A B^T, A B2^T) (cuBLASLt: the results to #{{[0-9]+}} %gate and #{{[0-9]+}} %up)
// AUTO: // ===== step 4 after cuBLASLt (the swiglu epilogue from #{{[0-9]+}} %gate and #{{[0-9]+}} %up): launch fp8c_swiglu_mlp_k3_dual_fallback =====
// AUTO: fp8c::op::swiglu
// AUTO: static constexpr fp8c::PushDesc kPush = fp8c::PushDesc::to(
// AUTO: // ===== step 4 instead, at an M where it has no rows (the history push): launch fp8c_swiglu_mlp_k5_push =====
// AUTO: // ===== step 5: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm =====
// AUTO-NOT: k3_gemm1
// AUTO-NOT: _state

// Tensorwise: h stays bf16 (its cast needs h's own amax first), the amax is fused.
// TW: // ===== step 4: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm =====
// TW-NEXT: //   ops: fp8.scaled_matmul %gate, fp8.scaled_matmul %up, fp8.swiglu %h, fp8.amax %h_amax (one GEMM for both weights)
// TW: B2 #{{[0-9]+}} %w_up_fp8 (up), D #{{[0-9]+}} %h
// TW: epilogue DEFAULT, AMAX_D #{{[0-9]+}} %h_amax, D from swiglu(A B^T, A B2^T)

// GEN-LABEL: // fp8c CUDA for @swiglu_mlp: 4 generated launches, 0 cuBLASLt GEMMs, 2 generated sm90 GEMMs, 0 of the steps at load
// GEN-NOT: %gate tensor
// GEN: // ===== step 4: generated sm90 GEMM fp8c_swiglu_mlp_k3_gemm =====
// GEN: //   epilogue DEFAULT, AMAX_D #{{[0-9]+}} %h_amax, FP8 D scale #{{[0-9]+}} %h_scale, D from swiglu(A B^T, A B2^T), the amax (rounded to bf16) pushed into #{{[0-9]+}} %h_amax_history in place, then zeroed (by the generated GEMM's last block){{$}}
// GEN-NOT: dual_fallback
// GEN-NOT: _state

// With cuBLASLt the swiglu, the amax of h and its cast run in a launch after the two GEMMs,
// which also pushes that amax into h's history (every history push joins the launch that
// reduced its amax here, so no state launch runs).
// LT-LABEL: // fp8c CUDA for @swiglu_mlp: 5 generated launches, 3 cuBLASLt GEMMs, 0 of the steps at load
// LT: cuBLASLt GEMM fp8c_swiglu_mlp_k3_gemm0 =====
// LT: cuBLASLt GEMM fp8c_swiglu_mlp_k3_gemm1 =====
// LT: launch fp8c_swiglu_mlp_k3_epilogue =====
// LT-NEXT: grid
// LT-NEXT: fp8c_swiglu_mlp_k3_epilogue: fp8.swiglu %h, fp8.amax %h_amax, fp8.cast %h_fp8, fp8.history_push
// LT: static constexpr fp8c::PushDesc kPush = fp8c::PushDesc::to(
// LT-NOT: B2 #
// LT-NOT: _state

// ROW: // ===== step 4: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm =====
// ROW-NEXT: //   ops: fp8.scaled_matmul %gate, fp8.scaled_matmul %up, fp8.swiglu %h, fp8.amax %h_amax (one GEMM for both weights)
// ROW-NEXT: //   D[M, 14336] = A[M, 4096] * B[14336, 4096]^T (TN)
// ROW-NEXT: //   A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w_gate_fp8 (gate), B2 #{{[0-9]+}} %w_up_fp8 (up), D #{{[0-9]+}} %h{{$}}
// ROW-NEXT: //   scales OUTER_VEC_32F: 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_gate_scale.inv, 1/sB2 #{{[0-9]+}} %w_up_scale.inv, fast accumulation
// ROW-NEXT: //   epilogue DEFAULT, AMAX_D per row #{{[0-9]+}} %h_amax, D from swiglu(A B^T, A B2^T) (cuBLASLt: the results to #{{[0-9]+}} %gate and #{{[0-9]+}} %up)
// ROW: launch fp8c_swiglu_mlp_k4_dual_fallback =====
// ROW: fp8c::AmaxDesc::to({{[0-9]+}}, fp8c::Gran::Row
// ROW: launch fp8c_swiglu_mlp_k5_prologue =====
// ROW-NEXT: grid
// ROW-NEXT: fp8c_swiglu_mlp_k5_prologue: fp8.scale %h_scale, fp8.cast %h_fp8
// ROW-NOT: k4_gemm1

// BLOCK: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm0 =====
// BLOCK: cuBLASLt GEMM fp8c_swiglu_mlp_k4_gemm1 =====
// BLOCK-NOT: B2 #
