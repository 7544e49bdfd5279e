// The GEMM backend (fp8c --backend) in the plan: generated runs every FP8 GEMM on the generated
// sm90 kernel (no cuBLASLt fallbacks: the bias and M % 4 fallbacks are not printed), cublaslt
// says there is no generated fallback, auto (the default) prints nothing for the steps it
// decides at run time.
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=blockwise --emit=cuda --backend=generated | FileCheck %s --check-prefix=GEN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=LT
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=AUTO
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --print-fusion-plan --backend=generated | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --print-fusion-plan | FileCheck %s --check-prefix=PLAN-AUTO
// --backend reaches the fuse of a --passes pipeline too, and so does fuse{gemm-backend=B}.
// RUN: fp8c %fp8c_src/examples/mlp.mlir --passes='shape-infer,canonicalize,quantize{recipe=rowwise},canonicalize,cse,fuse,dce' --print-fusion-plan --backend=generated | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --passes='shape-infer,canonicalize,quantize{recipe=rowwise},canonicalize,cse,fuse{gemm-backend=generated},dce' --print-fusion-plan | FileCheck %s --check-prefix=PLAN

// GEN-LABEL: // fp8c CUDA for @mlp: {{[0-9]+}} generated launches, 0 cuBLASLt GEMMs, 2 generated sm90 GEMMs, 0 of the steps at load
// GEN: // ===== step {{[0-9]+}}: generated sm90 GEMM fp8c_mlp_k3_gemm =====
// GEN: //   backend generated: runtime/gpu/GemmSm90 (gemm_sm90.cuh), any M, no fallbacks
// GEN-NOT: M rounded up to 4
// GEN: // ===== step {{[0-9]+}}: generated sm90 GEMM fp8c_mlp_k4_gemm =====
// GEN-NOT: cuBLASLt GEMM

// LT-LABEL: // fp8c CUDA for @mlp: {{[0-9]+}} generated launches, 2 cuBLASLt GEMMs, 0 of the steps at load
// LT: // ===== step {{[0-9]+}}: cuBLASLt GEMM fp8c_mlp_k3_gemm =====
// LT: //   backend cublaslt: no generated fallback where cuBLASLt refuses
// LT: // ===== step {{[0-9]+}}: cuBLASLt GEMM fp8c_mlp_k4_gemm =====
// LT: //   backend cublaslt: no generated fallback where cuBLASLt refuses
// LT: fallback (where cuBLASLt takes no bias)

// Auto: the rowwise GEMM 1 has GELU and a row amax in its epilogue, which only the generated
// GEMM computes, so that step runs on it; GEMM 2 (bias only) stays auto.
// AUTO-LABEL: // fp8c CUDA for @mlp: {{[0-9]+}} generated launches, 1 cuBLASLt GEMMs, 1 generated sm90 GEMMs, 0 of the steps at load
// AUTO: // ===== step {{[0-9]+}}: generated sm90 GEMM fp8c_mlp_k3_gemm =====
// AUTO: //   backend generated
// AUTO: // ===== step {{[0-9]+}}: cuBLASLt GEMM fp8c_mlp_k4_gemm =====
// AUTO-NOT: backend

// PLAN: kernel #3 gemm -> generated (cuBLASLt's row and block scale modes allow no epilogue but bias) [FP8 GEMM: generated]
// PLAN: kernel #4 gemm -> generated (casts A to FP8 in a prologue launch) [FP8 GEMM: generated]
// PLAN-AUTO-NOT: FP8 GEMM:
