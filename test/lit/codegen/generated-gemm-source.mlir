// The generated Hopper GEMM kernels of the GEMM steps it runs, in --emit=cuda and --emit=ptx: the
// spec the runtime's tile heuristic picks without autotuning at M = --dynamic-dim (4 unless
// given) on a 132-SM sm_90a, its source a config struct of named members instantiating
// gemm_sm90.cuh's template, its PTX FP8 wgmma.
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --backend=generated --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --backend=generated --emit=cuda --dynamic-dim=8192 | FileCheck %s --check-prefix=BIG
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --backend=generated --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --backend=cublaslt --emit=cuda | FileCheck %s --check-prefix=LT

// M = 4: the decode tiles, 64 x 128.
// CUDA: // ----- generated GEMM of step fp8c_mlp_k{{[0-9]+}}_gemm (tile heuristic at M = 4, 132 SMs)
// CUDA: #include "fp8c/gemm_sm90.cuh"
// CUDA: struct GemmConfig {
// CUDA:   static constexpr int kBM = 64;
// CUDA:   static constexpr int kBN = 128;
// CUDA: fp8c::sm90::gemmSm90<GemmConfig>(
// CUDA: // ----- generated GEMM of step fp8c_mlp_k{{[0-9]+}}_gemm

// BIG: // ----- generated GEMM of step fp8c_mlp_k{{[0-9]+}}_gemm (tile heuristic at M = 8192, 132 SMs)
// BIG: static constexpr int kBM = 128;

// PTX: // ----- fp8c_gemm_sm90_e4m3_e4m3_{{.*}} (sm_90a)
// PTX: .entry fp8c_gemm_sm90_e4m3_e4m3_
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3

// LT-NOT: generated GEMM of step
// LT-NOT: gemmSm90<GemmConfig>
