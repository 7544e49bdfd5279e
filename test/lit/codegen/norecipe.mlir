// A graph without a recipe compiles as written: the default pipeline minus `quantize`
// (shape-infer, canonicalize, cse, fuse, dce). Its linears run as cuBLASLt GEMMs in the graph's
// own precision (bf16, f16, f32) with the epilogues cuBLASLt has, the rest as generated kernels; --recipe=none names the same
// pipeline. Printing the IR and --run=cpu alone see the graph as written.
// RUN: fp8c %s --emit=cuda | FileCheck %s
// RUN: fp8c %s --recipe=none --emit=cuda | FileCheck %s
// RUN: fp8c %s --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fp8c %s --func mlp --run=cpu --compare --random-inputs=1 | FileCheck %s --check-prefix=CMP
// RUN: fp8c %s --func f32_block --run=cpu --compare --random-inputs=1 | FileCheck %s --check-prefix=CMP
// RUN: fp8c %s --func f16_linear --recipe=none --run=cpu --compare --random-inputs=1 | FileCheck %s --check-prefix=CMP
// RUN: fp8c %s --recipe=none --emit=ir | FileCheck %s --check-prefix=IR
// RUN: fp8c %s | FileCheck %s --check-prefix=ASIS

func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>, %w2: tensor<256x512xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<512x256xbf16>, tensor<512xbf16>) -> tensor<?x512xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x512xbf16>, tensor<256x512xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

func.func @f32_block(%x: tensor<?x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %g = fp8.silu %h : (tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = fp8.linear %g, %w2 : (tensor<?x128xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  %r = fp8.add %y, %x : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

func.func @f16_linear(%x: tensor<?x64xf16>, %w: tensor<32x64xf16>) -> tensor<?x32xf16> {
  %y = fp8.linear %x, %w : (tensor<?x64xf16>, tensor<32x64xf16>) -> tensor<?x32xf16>
  %r = fp8.relu %y : (tensor<?x32xf16>) -> tensor<?x32xf16>
  return %r : tensor<?x32xf16>
}

// The bf16 MLP: two cuBLASLt GEMMs with their bias and GELU epilogues, nothing quantized.
// CHECK-LABEL: // fp8c CUDA for @mlp: 0 generated launches, 2 cuBLASLt GEMMs
// CHECK-NOT: quantize
// CHECK: // ===== step 0: cuBLASLt GEMM fp8c_mlp_k0_gemm =====
// CHECK-NEXT: //   ops: fp8.linear %h, fp8.gelu %g
// CHECK-NEXT: //   D[M, 512] = A[M, 256] * B[512, 256]^T (TN)
// CHECK-NEXT: //   A #0 %x, B #1 %w1, D #{{[0-9]+}} %g
// CHECK-NEXT: //   epilogue GELU_BIAS, bias #2 %b1
// CHECK: // ===== step 1: cuBLASLt GEMM fp8c_mlp_k1_gemm =====
// CHECK-NEXT: //   ops: fp8.linear %y
// CHECK-NEXT: //   D[M, 256] = A[M, 512] * B[256, 512]^T (TN)
// CHECK-NEXT: //   A #{{[0-9]+}} %g, B #3 %w2, D #{{[0-9]+}} %y
// CHECK-NEXT: //   epilogue BIAS, bias #4 %b2

// f32: cuBLASLt GEMMs on f32 buffers; silu and the residual add as generated kernels.
// CHECK-LABEL: // fp8c CUDA for @f32_block: 2 generated launches, 2 cuBLASLt GEMMs
// CHECK-NOT: quantize
// CHECK: // ===== step 0: cuBLASLt GEMM fp8c_f32_block_k0_gemm =====
// CHECK-NEXT: //   ops: fp8.linear %h
// CHECK-NEXT: //   D[M, 128] = A[M, 64] * B[128, 64]^T (TN)
// CHECK: // ===== step 1: launch fp8c_f32_block_k0_epilogue =====
// CHECK: fp8c::InDesc::full(0, fp8c::Dt::F32, 128), // %h
// CHECK: fp8c::roundTo<fp8c::Dt::F32>(fp8c::op::silu(x[0]))
// CHECK: // ===== step 2: cuBLASLt GEMM fp8c_f32_block_k1_gemm =====
// CHECK-NEXT: //   ops: fp8.linear %y
// CHECK: // ===== step 3: launch fp8c_f32_block_k1_epilogue =====
// CHECK: fp8c::op::add(

// f16: a cuBLASLt GEMM with its RELU epilogue.
// CHECK-LABEL: // fp8c CUDA for @f16_linear: 0 generated launches, 1 cuBLASLt GEMMs
// CHECK: // ===== step 0: cuBLASLt GEMM fp8c_f16_linear_k0_gemm =====
// CHECK-NEXT: //   ops: fp8.linear %y, fp8.relu %r
// CHECK-NEXT: //   D[M, 32] = A[M, 64] * B[32, 64]^T (TN)
// CHECK-NEXT: //   A #0 %x, B #1 %w, D #2 %r
// CHECK-NEXT: //   epilogue RELU

// PLAN-LABEL: // fusion plan for @mlp: 2 kernels
// PLAN-NEXT: kernel #0 gemm -> cublaslt
// PLAN-NEXT:   main: fp8.linear %h
// PLAN-NEXT:   epilogue: fp8.gelu %g
// PLAN-LABEL: // fusion plan for @f32_block: 2 kernels
// PLAN-LABEL: // fusion plan for @f16_linear: 1 kernel
// PLAN-NEXT: kernel #0 gemm -> cublaslt

// PTX: .entry fp8c_f32_block_k0_epilogue

// CMP: vs the graph before the passes: relative Frobenius error 0

// IR-LABEL: func.func @mlp
// IR: fp8.kernel "gemm"
// IR-NOT: fp8.scaled_matmul
// IR-NOT: fp8.cast

// ASIS-LABEL: func.func @mlp
// ASIS-NEXT: %h = fp8.linear %x, %w1, %b1
