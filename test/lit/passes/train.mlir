// fp8c --train: autodiff, the recipe's quantization of the backward, the split into @F_fwd
// (returning the saved tensors) and @F_bwd, each fused. Pins e5m2 gradients (tensorwise,
// delayed), blockwise e4m3 1x128 gradients, fast_accum off in dgrad/wgrad, the transposed FP8
// copies the forward saves, and the backward's fusion plan.
// RUN: fp8c %s --train --recipe=tensorwise --emit=ir | FileCheck %s --check-prefix=TW
// RUN: fp8c %s --train --recipe=delayed --emit=ir | FileCheck %s --check-prefix=DELAYED
// RUN: fp8c %s --train --recipe=blockwise --emit=ir | FileCheck %s --check-prefix=BLOCK
// RUN: fp8c %s --train --recipe=none --emit=ir | FileCheck %s --check-prefix=NONE
// RUN: fp8c %s --train --recipe=tensorwise --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %s --train --recipe=tensorwise --emit=ir | fp8c - --emit=ir | FileCheck %s --check-prefix=TW

// TW-LABEL: func.func @lin_fwd(
// TW-SAME: -> (tensor<16x128xbf16>, tensor<256x128xf8E4M3FN> {fp8.saved = "w_fp8_t"}, tensor<f32> {fp8.saved = "w_scale"}, tensor<256x16xf8E4M3FN> {fp8.saved = "x_fp8_t"}, tensor<f32> {fp8.saved = "x_scale"})
// TW: fp8.cast %{{.+}}, %{{.+}} {fp8.role = "body", granularity = "tensor"} : (tensor<16x256xbf16>, tensor<f32>) -> tensor<16x256xf8E4M3FN>
// TW-NEXT: fp8.transpose %{{.+}} : (tensor<16x256xf8E4M3FN>) -> tensor<256x16xf8E4M3FN>
// TW: fp8.scaled_matmul {{.+}} {fast_accum = true, fp8.role = "main", out = bf16}
// TW-LABEL: func.func @lin_bwd(
// TW-SAME: %[[WT:[^:]+]]: tensor<256x128xf8E4M3FN> {fp8.saved = "w_fp8_t"}, %[[WS:[^:]+]]: tensor<f32> {fp8.saved = "w_scale"}, %[[XT:[^:]+]]: tensor<256x16xf8E4M3FN> {fp8.saved = "x_fp8_t"}, %[[XS:[^:]+]]: tensor<f32> {fp8.saved = "x_scale"}, %[[DY:[^:]+]]: tensor<16x128xbf16> {fp8.grad = "y"})
// TW-SAME: -> (tensor<16x256xbf16> {fp8.grad = "x"}, tensor<128x256xbf16> {fp8.grad = "w"}, tensor<128xbf16> {fp8.grad = "b"})
// TW: fp8.scale %{{.+}} {dtype = f8E5M2, fp8.role = "body"}
// TW: fp8.cast %{{.+}} {fp8.role = "body", granularity = "tensor"} : (tensor<16x128xbf16>, tensor<f32>) -> tensor<16x128xf8E5M2>
// TW: fp8.transpose %{{.+}} : (tensor<16x128xf8E5M2>) -> tensor<128x16xf8E5M2>
// TW: fp8.col_sum %{{.+}} : (tensor<16x128xbf16>) -> tensor<128xbf16>
// TW: fp8.scaled_matmul %{{.+}} {fp8.role = "main", out = bf16} : (tensor<16x128xf8E5M2>, tensor<256x128xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<16x256xbf16>
// TW: fp8.scaled_matmul %{{.+}} {fp8.role = "main", out = bf16} : (tensor<128x16xf8E5M2>, tensor<256x16xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<128x256xbf16>

// The gradient's history is the backward's state; the forward's histories stay forward.
// DELAYED-LABEL: func.func @lin_fwd(
// DELAYED-SAME: {fp8.state = "x_amax_history"}
// DELAYED-NOT: y_grad_amax_history
// DELAYED-LABEL: func.func @lin_bwd(
// DELAYED-SAME: %[[H:[^:]+]]: tensor<16xf32> {fp8.state = "y_grad_amax_history"}
// DELAYED-SAME: tensor<16xf32> {fp8.state = "y_grad_amax_history"})
// DELAYED: fp8.history_scale %{{.+}} {algo = "max", dtype = f8E5M2, fp8.role = "body"}
// DELAYED: fp8.history_push

// Blockwise: dY in e4m3 with 1x128 blocks, dYᵀ requantized with its own 1x128 blocks; Wᵀ's
// 128x128 blocks are W's, transposed (FP8 copy and scales).
// BLOCK-LABEL: func.func @lin_fwd(
// BLOCK: fp8.amax %{{.+}} {fp8.role = "body", granularity = "block_128x128"} : (tensor<128x256xbf16>) -> tensor<1x2xf32>
// BLOCK-LABEL: func.func @lin_bwd(
// BLOCK: fp8.amax %{{.+}} {fp8.role = "body", granularity = "block_1x128"} : (tensor<16x128xbf16>) -> tensor<16x1xf32>
// BLOCK: fp8.cast %{{.+}} {fp8.role = "body", granularity = "block_1x128"} : (tensor<16x128xbf16>, tensor<16x1xf32>) -> tensor<16x128xf8E4M3FN>
// BLOCK: fp8.transpose %{{.+}} : (tensor<16x128xbf16>) -> tensor<128x16xbf16>
// BLOCK-NEXT: fp8.amax %{{.+}} {fp8.role = "body", granularity = "block_1x128"} : (tensor<128x16xbf16>) -> tensor<128x1xf32>
// BLOCK: fp8.transpose %{{.+}} : (tensor<1x2xf32>) -> tensor<2x1xf32>

// Unquantized: the forward saves nothing but reads its inputs again (shared by name).
// NONE-LABEL: func.func @lin_fwd(
// NONE-SAME: -> tensor<16x128xbf16>
// NONE-LABEL: func.func @lin_bwd(
// NONE-SAME: %w: tensor<128x256xbf16>, %x: tensor<16x256xbf16>, %y_grad: tensor<16x128xbf16> {fp8.grad = "y"}

// PLAN-LABEL: // fusion plan for @lin_fwd: 3 kernels
// PLAN: body: fp8.amax %x_amax, fp8.scale %x_scale, fp8.cast %x_fp8, fp8.transpose %x_fp8_t
// PLAN-LABEL: // fusion plan for @lin_bwd: 3 kernels
// PLAN: kernel #0 reduce -> generated
// PLAN-NEXT: body: fp8.amax %y_grad_amax, fp8.scale %y_grad_scale, fp8.cast %y_grad_fp8, fp8.transpose %y_grad_fp8_t, fp8.col_sum %b_grad
// PLAN: main: fp8.scaled_matmul %x_grad
// PLAN: main: fp8.scaled_matmul %w_grad
func.func @lin(%x: tensor<16x256xbf16>, %w: tensor<128x256xbf16>, %b: tensor<128xbf16>) -> tensor<16x128xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<16x256xbf16>, tensor<128x256xbf16>, tensor<128xbf16>) -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}
