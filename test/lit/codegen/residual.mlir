// A residual add after a GEMM (and its bias and activation) joins the GEMM step: the generated
// GEMM reads r in its epilogue and writes z = act(x W^T + b) + r with z's amax and (delayed)
// its FP8 cast, so no launch reads the GEMM result back. On cuBLASLt (auto's other choice,
// measured against it) the result goes to a bf16 buffer and one launch computes the rest.
// --backend=generated gives that result no buffer; --backend=cublaslt keeps the epilogue
// launch; row scales keep the cuBLASLt form for a bare add (cuBLASLt's outer-vector mode then
// writes the result) but run on the generated GEMM with an activation before the add; an odd N
// (r's rows not whole 16-byte units) leaves the add to the epilogue launch.
// RUN: fp8c %s --recipe=delayed --emit=cuda | FileCheck %s --check-prefix=DELAYED
// RUN: fp8c %s --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefix=TW
// RUN: fp8c %s --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=ROW
// RUN: fp8c %fp8c_src/examples/linear_residual.mlir --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefix=EX
// RUN: fp8c %fp8c_src/examples/linear_residual.mlir --recipe=delayed --emit=cuda --backend=generated | FileCheck %s --check-prefix=GEN
// RUN: fp8c %fp8c_src/examples/linear_residual.mlir --recipe=delayed --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=LT
// RUN: fp8c %fp8c_src/examples/linear_residual.mlir --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=EXROW
// RUN: fp8c %S/Inputs/residual-odd.mlir --recipe=delayed --emit=cuda | FileCheck %s --check-prefix=ODD

func.func @block(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %r: tensor<?x512xbf16>, %w2: tensor<128x512xbf16>) -> tensor<?x128xbf16> {
  %y = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %y {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %z = fp8.add %r, %g : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %o = fp8.linear %z, %w2 : (tensor<?x512xbf16>, tensor<128x512xbf16>) -> tensor<?x128xbf16>
  return %o : tensor<?x128xbf16>
}

// Delayed: z's scale is known before the GEMM, so z leaves it in FP8 with its amax.
// DELAYED-LABEL: // fp8c CUDA for @block:
// DELAYED: // ===== step {{[0-9]+}}: cuBLASLt GEMM fp8c_block_k2_gemm =====
// DELAYED-NEXT: //   ops: fp8.scaled_matmul %y, fp8.gelu %g, fp8.add %z (the residual %r read in the epilogue), fp8.amax %z_amax, fp8.cast %z_fp8
// DELAYED: D #{{[0-9]+}} %z_fp8
// DELAYED: epilogue GELU_BIAS, bias #2 %b1, AMAX_D #{{[0-9]+}} %z_amax, FP8 D scale #{{[0-9]+}} %z_scale, D from result + residual #3 %r (cuBLASLt: the result to #{{[0-9]+}} %g)
// DELAYED: after cuBLASLt (the epilogue from its bf16 result #{{[0-9]+}} %g): launch fp8c_block_k2_residual_fallback
// DELAYED: fp8c::op::add
// DELAYED-NOT: launch fp8c_block_k2_epilogue
// DELAYED: cuBLASLt GEMM fp8c_block_k3_gemm
// DELAYED-NEXT: //   ops: fp8.scaled_matmul %o

// Tensorwise: z stays bf16 (its cast needs its own amax), the amax is the GEMM's.
// TW: //   ops: fp8.scaled_matmul %y, fp8.gelu %g, fp8.add %z (the residual %r read in the epilogue), fp8.amax %z_amax
// TW: epilogue GELU_BIAS, bias #2 %b1, AMAX_D #{{[0-9]+}} %z_amax, D from result + residual #3 %r (cuBLASLt: the result to #{{[0-9]+}} %g)
// TW-NOT: _k3_epilogue

// Row scales with a GELU before the add: only the generated GEMM computes it.
// ROW: generated sm90 GEMM fp8c_block_k3_gemm
// ROW-NEXT: //   ops: fp8.scaled_matmul %y, fp8.gelu %g, fp8.add %z (the residual %r read in the epilogue), fp8.amax %z_amax
// ROW: epilogue GELU_BIAS, bias #2 %b1, AMAX_D per row #{{[0-9]+}} %z_amax, D from result + residual #3 %r
// ROW-NEXT: //   backend generated
// ROW-NOT: residual_fallback

// EX-LABEL: // fp8c CUDA for @linear_residual:
// EX: cuBLASLt GEMM fp8c_linear_residual_k2_gemm
// EX-NEXT: //   ops: fp8.scaled_matmul %y, fp8.add %z (the residual %r read in the epilogue)
// EX: D #{{[0-9]+}} %z
// EX: epilogue DEFAULT, D from result + residual #2 %r (cuBLASLt: the result to #{{[0-9]+}} %y)
// EX: launch fp8c_linear_residual_k2_residual_fallback

// GEN-LABEL: // fp8c CUDA for @linear_residual:
// GEN-NOT: %y tensor
// GEN: generated sm90 GEMM fp8c_linear_residual_k1_gemm
// GEN: epilogue DEFAULT, D from result + residual #2 %r
// GEN-NEXT: //   backend generated
// GEN-NOT: residual_fallback

// LT: cuBLASLt GEMM fp8c_linear_residual_k1_gemm
// LT-NEXT: //   ops: fp8.scaled_matmul %y
// LT: launch fp8c_linear_residual_k1_epilogue
// LT: // fp8c_linear_residual_k1_epilogue: fp8.add %z

// A bare add with row scales: the cuBLASLt form stays possible (auto).
// EXROW: cuBLASLt GEMM fp8c_linear_residual_k2_gemm
// EXROW: scales OUTER_VEC_32F
// EXROW: D from result + residual #2 %r (cuBLASLt: the result to #{{[0-9]+}} %y)
// EXROW-NOT: backend generated
// EXROW: launch fp8c_linear_residual_k2_residual_fallback

// ODD: cuBLASLt GEMM fp8c_odd_k1_gemm
// ODD-NEXT: //   ops: fp8.scaled_matmul %y
// ODD: launch fp8c_odd_k1_epilogue
// ODD: // fp8c_odd_k1_epilogue: fp8.add %z
