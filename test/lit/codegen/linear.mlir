// `fp8c --emit=cuda` of one Linear layer, per recipe: which launches and cuBLASLt calls the
// plan has, which kernel template each launch instantiates and with what scale source.
// RUN: fp8c %s --recipe=tensorwise --emit=cuda | FileCheck %s --check-prefix=TW
// RUN: fp8c %s --recipe=delayed --emit=cuda | FileCheck %s --check-prefix=DL
// RUN: fp8c %s --recipe=rowwise --emit=cuda | FileCheck %s --check-prefix=RW
// RUN: fp8c %s --recipe=blockwise --emit=cuda | FileCheck %s --check-prefix=BW
// RUN: fp8c %s --recipe=tensorwise --emit=cuda --arch=sm_89 | FileCheck %s --check-prefix=TW

func.func @linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x4096xbf16>, %b: tensor<14336xbf16>) -> tensor<?x14336xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}

// Tensorwise: amax + scale + cast of x, then of w, each one cooperative launch (the amax over
// the grid, a grid barrier, the cast); then cuBLASLt with a bias.
// TW-LABEL: // fp8c CUDA for @linear: 2 generated launches, 1 cuBLASLt GEMMs
// TW: // ===== step 0: launch fp8c_linear_k0_quantize =====
// TW-NEXT: // grid: {{.*}}, persistent, cooperative; buffers: #0 %x
// TW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Tensor, 32)
// TW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false).scaleOut(2).invOut(3, fp8c::InvLayout::RowMajor).amaxOut(4);
// TW: static constexpr int kBarrierBuf = 5;
// TW: // ===== step 1: launch fp8c_linear_k1_quantize =====
// TW-NEXT: // grid: {{.*}}, persistent, cooperative; buffers: #1 %w
// TW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Tensor, 32)
// TW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false).scaleOut(2).invOut(3, fp8c::InvLayout::RowMajor).amaxOut(4);
// TW: static constexpr int kBarrierBuf = 5;
// TW: // ===== step 2: cuBLASLt GEMM fp8c_linear_k2_gemm =====
// TW-NEXT: //   ops: fp8.scaled_matmul %y
// TW-NEXT: //   D[M, 14336] = A[M, 4096] * B[14336, 4096]^T (TN)
// TW-NEXT: //   A #{{[0-9]+}} %x_fp8, B #{{[0-9]+}} %w_fp8, D #{{[0-9]+}} %y
// TW-NEXT: //   scales SCALAR_32F: 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_scale.inv, fast accumulation
// TW-NEXT: //   epilogue BIAS, bias #2 %b
// TW-NOT: ===== step 3

// Delayed: the scales come from the amax histories (known before the launch), so every cast is
// one pass that also reduces this step's amax; the last block of each cast pushes that amax
// into its history in place (kPush), so no state launch runs, and the amaxes are Scratch the
// casts put back to zero (no memset per run).
// DL-LABEL: // fp8c CUDA for @linear: 2 generated launches, 1 cuBLASLt GEMMs
// DL: //   #3 %x_amax_history tensor<16xf32> state 3 (returned as output 1)
// DL: //   #{{[0-9]+}} %w_amax tensor<f32> scratch
// DL: //   #{{[0-9]+}} %x_amax tensor<f32> scratch
// DL: //   #{{[0-9]+}} %push_counter tensor<i32> scratch
// DL: // ===== step 0: launch fp8c_linear_k0_quantize =====
// DL: fp8.cast %w_fp8,
// DL-NEXT: //    fp8.history_push %w_amax_history_next (in place)
// DL: static constexpr fp8c::AmaxDesc kAmax = fp8c::AmaxDesc::to(1, fp8c::Gran::Tensor, 32);
// DL: .slotScale(0);
// DL: static constexpr fp8c::PushDesc kPush = fp8c::PushDesc::to(3, 16, 4, true);
// DL: fp8c::historyScale<fp8c::Dt::E4M3, fp8c::HistoryAlgo::Max>(fp8c::f32p(buf[3]), 16, 0, false);
// DL: // ===== step 1: launch fp8c_linear_k1_prologue =====
// DL: //    fp8.history_push %x_amax_history_next (in place)
// DL: static constexpr fp8c::PushDesc kPush = fp8c::PushDesc::to(3, 16, 4, true);
// DL: // ===== step 2: cuBLASLt GEMM fp8c_linear_k1_gemm =====
// DL-NOT: ===== step 3
// DL-NOT: smallKernel

// Rowwise: each row of x and of the weight in one pass (its amax, scale and cast, the row in
// registers); cuBLASLt's outer-vector scale mode.
// RW-LABEL: // fp8c CUDA for @linear: 2 generated launches, 1 cuBLASLt GEMMs
// RW: // ===== step 0: launch fp8c_linear_k0_quantize =====
// RW-NEXT: // grid: ceil((M) / 1) blocks of 256, persistent; buffers: #0 %x
// RW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Row, 32)
// RW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false).scaleOut(2).invOut(3, fp8c::InvLayout::RowMajor);
// RW: // ===== step 1: launch fp8c_linear_k1_quantize =====
// RW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Row, 32)
// RW-NEXT: .localScale(fp8c::Dt::E4M3, 0, false).scaleOut(2).invOut(3, fp8c::InvLayout::RowMajor);
// RW: //   scales OUTER_VEC_32F: 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_scale.inv, fast accumulation
// RW-NEXT: //   epilogue BIAS, bias #2 %b

// Blockwise: 1x128 activations in one pass (warp-shuffle group amax), 128x128 weights through
// the tile template, cuBLASLt's 128-block scale modes (no fast accumulation).
// BW-LABEL: // fp8c CUDA for @linear: 2 generated launches, 1 cuBLASLt GEMMs
// BW: //   #{{[0-9]+}} %x_scale.inv tensor<32x?xf32> temp, pitch roundup(M, 4)
// BW: // ===== step 0: launch fp8c_linear_k0_quantize =====
// BW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Block1x128, 32)
// BW-NEXT: .localScale(fp8c::Dt::E4M3, 0, true).scaleOut(2).invOut(3, fp8c::InvLayout::KBlockMajor);
// BW: fp8c::rowsKernel<Spec>(args);
// BW: // ===== step 1: launch fp8c_linear_k1_quantize =====
// BW: #include "fp8c/tiles.cuh"
// BW: fp8c::CastDesc::to(1, fp8c::Dt::E4M3, 4096, fp8c::Gran::Block128x128, 32)
// BW-NEXT: .localScale(fp8c::Dt::E4M3, 0, true).scaleOut(2).invOut(3, fp8c::InvLayout::RowMajorPad4);
// BW: fp8c::tilesKernel<Spec>(args);
// BW: // ===== step 2: cuBLASLt GEMM fp8c_linear_k2_gemm =====
// BW: //   scales VEC128_32F (A) x BLK128x128_32F (B): 1/sA #{{[0-9]+}} %x_scale.inv, 1/sB #{{[0-9]+}} %w_scale.inv{{$}}
