// Any M, N, K: K = N = 100 (rows of 100 bytes in FP8, 200 in bf16) get padded pitches for
// cuBLASLt: the FP8 casts write rows of 112 with zeros in the pad, the GEMM writes D with a
// pitch of 104 and a launch copies it into the caller's compact output (rows of 200 bytes: the
// output walked as one flat array of 16-byte chunks, copy_compact.cuh).
// RUN: fp8c %s --recipe=tensorwise --emit=cuda | FileCheck %s
// RUN: fp8c %s --emit=cuda --passes=shape-infer,fuse | FileCheck %s --check-prefix=BF16

func.func @odd(%x: tensor<?x100xbf16>, %w: tensor<100x100xbf16>, %b: tensor<100xbf16>) -> tensor<?x100xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x100xbf16>, tensor<100x100xbf16>, tensor<100xbf16>) -> tensor<?x100xbf16>
  return %y : tensor<?x100xbf16>
}

// CHECK-LABEL: // fp8c CUDA for @odd:
// CHECK: //   #3 %y tensor<?x100xbf16> output 0
// CHECK: %x_fp8 tensor<?x100xf8E4M3FN> temp, pitch 112
// CHECK: %w_fp8 tensor<100x100xf8E4M3FN> temp, pitch 112
// CHECK: %y.padded tensor<?x100xbf16> temp, pitch 104
// CHECK: launch fp8c_odd_k0_quantize
// CHECK: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 112, fp8c::Gran::Tensor, 1)
// CHECK: launch fp8c_odd_k1_quantize
// CHECK: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 112, fp8c::Gran::Tensor, 1)
// CHECK: cuBLASLt GEMM fp8c_odd_k2_gemm
// CHECK-NEXT: ops: fp8.scaled_matmul %y
// CHECK-NEXT: D[M, 100] = A[M, 100] * B[100, 100]^T (TN){{$}}
// CHECK-NEXT: A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w_fp8, D #{{[0-9]+}} %y.padded
// CHECK: launch fp8c_odd_k2_copy
// CHECK: #include "fp8c/copy_compact.cuh"
// CHECK: static constexpr long long kCols = 100, kInLd = 104;
// CHECK-NEXT: static constexpr fp8c::Dt kDt = fp8c::Dt::BF16;
// CHECK: fp8c::compactCopyKernel<Spec>(args);

// Unquantized, the bf16 operands are copied into padded temporaries first, and cuBLASLt runs
// with K and N rounded up to 8 over their zero pad columns and rows (K = N = 100 has no
// tensor-core kernels): the weight's copy has 104 rows (zeroed first), the bias's 104 elements.
// BF16-LABEL: // fp8c CUDA for @odd: 4 generated launches, 1 cuBLASLt GEMMs
// BF16: %w.padded tensor<104x100xbf16> temp, pitch 104, zeroed before use
// BF16: %b.padded tensor<104xbf16> temp
// BF16: launch fp8c_odd_k0_pad
// BF16: fp8c::OutDesc::to(1, fp8c::Dt::BF16, 104);
// BF16: copy of %w with 104 rows
// BF16: copy of %b with 104 elements
// BF16: fp8c::OutDesc::to(1, fp8c::Dt::BF16, 104);
// BF16: cuBLASLt GEMM fp8c_odd_k0_gemm
// BF16: D[M, 100] = A[M, 100] * B[100, 100]^T (TN), run with K 104 (zero pad columns), run with N 104 (zero pad rows of B)
// BF16: A #{{[0-9]+}} %x.padded, B #{{[0-9]+}} %w.padded, D #{{[0-9]+}} %y.padded
