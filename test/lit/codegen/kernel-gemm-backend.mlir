// Codegen takes who runs a kernel's FP8 GEMMs from the kernel (gemm_backend, written by `fuse`
// from --backend), so a graph fused for a backend and read back keeps it: without --backend,
// and under another one. A kernel fused for the generated GEMM has no other target than sm_90a.
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=tensorwise --backend=generated --emit=ir > %t.gen.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.gen.mlir
// RUN: fp8c %t.gen.mlir --emit=cuda | FileCheck %s --check-prefix=GEN
// RUN: fp8c %t.gen.mlir --emit=cuda --backend=cublaslt | FileCheck %s --check-prefix=GEN
// RUN: %expect-exit 1 fp8c %t.gen.mlir --emit=cuda --arch=sm_89 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: fp8c %fp8c_src/examples/linear.mlir --recipe=tensorwise --backend=cublaslt --emit=ir | fp8c - --emit=cuda | FileCheck %s --check-prefix=LT

// IR: fp8.kernel "gemm" ({{.+}}) {backend = "cublaslt", gemm_backend = "generated"} :
// IR: fp8.scaled_matmul {{.+}} {fast_accum = true, fp8.role = "main", out = bf16}

// GEN: // fp8c CUDA for @linear: {{[0-9]+}} generated launches, 0 cuBLASLt GEMMs, 1 generated sm90 GEMMs
// GEN: // ===== step {{[0-9]+}}: generated sm90 GEMM fp8c_linear_k{{[0-9]+}}_gemm =====

// ARCH: error: 'fp8.kernel' op codegen: the kernel's gemm_backend is generated, and the generated GEMM (wgmma) needs sm_90a; the target is sm_89

// LT: // ===== step {{[0-9]+}}: cuBLASLt GEMM fp8c_linear_k{{[0-9]+}}_gemm =====
// LT: //   backend cublaslt: no generated fallback where cuBLASLt refuses
