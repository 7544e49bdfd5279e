// `quantize{recipe=R}` (passes/Quantize.cpp): the rewrite of one linear
// with bias under each recipe: amax, scale and cast of both operands at the recipe's
// granularity, then scaled_matmul with the original output dtype and fast_accum on.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise}' --verify-each --emit=ir | FileCheck %s --check-prefix=TENSORWISE
// RUN: fp8c %s --passes='quantize{recipe=rowwise}' --verify-each --emit=ir | FileCheck %s --check-prefix=ROWWISE
// RUN: fp8c %s --passes='quantize{recipe=blockwise}' --verify-each --emit=ir | FileCheck %s --check-prefix=BLOCKWISE
// RUN: fp8c %s --passes='quantize{recipe=delayed}' --verify-each --emit=ir | FileCheck %s --check-prefix=DELAYED --implicit-check-not='fp8.scale %'
// RUN: fp8c %s --passes='quantize{recipe=delayed history_len=4 algo=most_recent margin=2 pow2=true}' --verify-each --emit=ir | FileCheck %s --check-prefix=DELAYED-OPTS --implicit-check-not='fp8.scale %'

// TENSORWISE-LABEL: func.func @linear(
// TENSORWISE-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16>, %[[B:[^:]+]]: tensor<384xbf16>) -> tensor<?x384xbf16> {
// TENSORWISE-NEXT:   %[[XA:.+]] = fp8.amax %[[X]] {granularity = "tensor"} : (tensor<?x256xbf16>) -> tensor<f32>
// TENSORWISE-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]] {dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
// TENSORWISE-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]] {granularity = "tensor"} : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
// TENSORWISE-NEXT:   %[[WA:.+]] = fp8.amax %[[W]] {granularity = "tensor"} : (tensor<384x256xbf16>) -> tensor<f32>
// TENSORWISE-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]] {dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
// TENSORWISE-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]] {granularity = "tensor"} : (tensor<384x256xbf16>, tensor<f32>) -> tensor<384x256xf8E4M3FN>
// TENSORWISE-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]] {fast_accum = true, out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<384xbf16>) -> tensor<?x384xbf16>
// TENSORWISE-NEXT:   return %[[Y]] : tensor<?x384xbf16>

// Per row of x (token), per row of w (output channel).
// ROWWISE-LABEL: func.func @linear(
// ROWWISE-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16>, %[[B:[^:]+]]: tensor<384xbf16>) -> tensor<?x384xbf16> {
// ROWWISE-NEXT:   %[[XA:.+]] = fp8.amax %[[X]] {granularity = "row"} : (tensor<?x256xbf16>) -> tensor<?xf32>
// ROWWISE-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]] {dtype = f8E4M3FN} : (tensor<?xf32>) -> tensor<?xf32>
// ROWWISE-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]] {granularity = "row"} : (tensor<?x256xbf16>, tensor<?xf32>) -> tensor<?x256xf8E4M3FN>
// ROWWISE-NEXT:   %[[WA:.+]] = fp8.amax %[[W]] {granularity = "row"} : (tensor<384x256xbf16>) -> tensor<384xf32>
// ROWWISE-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]] {dtype = f8E4M3FN} : (tensor<384xf32>) -> tensor<384xf32>
// ROWWISE-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]] {granularity = "row"} : (tensor<384x256xbf16>, tensor<384xf32>) -> tensor<384x256xf8E4M3FN>
// ROWWISE-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]] {fast_accum = true, out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E4M3FN>, tensor<?xf32>, tensor<384xf32>, tensor<384xbf16>) -> tensor<?x384xbf16>
// ROWWISE-NEXT:   return %[[Y]] : tensor<?x384xbf16>

// 1x128 blocks of x, 128x128 blocks of w, power-of-two scales by default.
// BLOCKWISE-LABEL: func.func @linear(
// BLOCKWISE-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16>, %[[B:[^:]+]]: tensor<384xbf16>) -> tensor<?x384xbf16> {
// BLOCKWISE-NEXT:   %[[XA:.+]] = fp8.amax %[[X]] {granularity = "block_1x128"} : (tensor<?x256xbf16>) -> tensor<?x2xf32>
// BLOCKWISE-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]] {dtype = f8E4M3FN, pow2 = true} : (tensor<?x2xf32>) -> tensor<?x2xf32>
// BLOCKWISE-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]] {granularity = "block_1x128"} : (tensor<?x256xbf16>, tensor<?x2xf32>) -> tensor<?x256xf8E4M3FN>
// BLOCKWISE-NEXT:   %[[WA:.+]] = fp8.amax %[[W]] {granularity = "block_128x128"} : (tensor<384x256xbf16>) -> tensor<3x2xf32>
// BLOCKWISE-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]] {dtype = f8E4M3FN, pow2 = true} : (tensor<3x2xf32>) -> tensor<3x2xf32>
// BLOCKWISE-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]] {granularity = "block_128x128"} : (tensor<384x256xbf16>, tensor<3x2xf32>) -> tensor<384x256xf8E4M3FN>
// BLOCKWISE-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]] {fast_accum = true, out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E4M3FN>, tensor<?x2xf32>, tensor<3x2xf32>, tensor<384xbf16>) -> tensor<?x384xbf16>
// BLOCKWISE-NEXT:   return %[[Y]] : tensor<?x384xbf16>

// One amax history per quantized tensor: a state input, history_scale for this step's scale,
// history_push of this step's amax returned as the state output of the same key.
// DELAYED-LABEL: func.func @linear(
// DELAYED-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16>, %[[B:[^:]+]]: tensor<384xbf16>,
// DELAYED-SAME: %[[XH:[^:]+]]: tensor<16xf32> {fp8.state = "x_amax_history"}, %[[WH:[^:]+]]: tensor<16xf32> {fp8.state = "w_amax_history"})
// DELAYED-SAME: -> (tensor<?x384xbf16>, tensor<16xf32> {fp8.state = "x_amax_history"}, tensor<16xf32> {fp8.state = "w_amax_history"}) {
// DELAYED-NEXT:   %[[XA:.+]] = fp8.amax %[[X]] {granularity = "tensor"} : (tensor<?x256xbf16>) -> tensor<f32>
// DELAYED-NEXT:   %[[XS:.+]] = fp8.history_scale %[[XH]] {algo = "max", dtype = f8E4M3FN} : (tensor<16xf32>) -> tensor<f32>
// DELAYED-NEXT:   %[[XN:.+]] = fp8.history_push %[[XH]], %[[XA]] : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
// DELAYED-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]] {granularity = "tensor"} : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
// DELAYED-NEXT:   %[[WA:.+]] = fp8.amax %[[W]] {granularity = "tensor"} : (tensor<384x256xbf16>) -> tensor<f32>
// DELAYED-NEXT:   %[[WS:.+]] = fp8.history_scale %[[WH]] {algo = "max", dtype = f8E4M3FN} : (tensor<16xf32>) -> tensor<f32>
// DELAYED-NEXT:   %[[WN:.+]] = fp8.history_push %[[WH]], %[[WA]] : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
// DELAYED-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]] {granularity = "tensor"} : (tensor<384x256xbf16>, tensor<f32>) -> tensor<384x256xf8E4M3FN>
// DELAYED-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]] {fast_accum = true, out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<384xbf16>) -> tensor<?x384xbf16>
// DELAYED-NEXT:   return %[[Y]], %[[XN]], %[[WN]] : tensor<?x384xbf16>, tensor<16xf32>, tensor<16xf32>

// DELAYED-OPTS-LABEL: func.func @linear(
// DELAYED-OPTS-SAME: %[[XH:[^:]+]]: tensor<4xf32> {fp8.state = "x_amax_history"}, %[[WH:[^:]+]]: tensor<4xf32> {fp8.state = "w_amax_history"})
// DELAYED-OPTS-SAME: -> (tensor<?x384xbf16>, tensor<4xf32> {fp8.state = "x_amax_history"}, tensor<4xf32> {fp8.state = "w_amax_history"}) {
// DELAYED-OPTS:      fp8.history_scale %[[XH]] {algo = "most_recent", dtype = f8E4M3FN, margin = 2, pow2 = true} : (tensor<4xf32>) -> tensor<f32>
// DELAYED-OPTS:      fp8.history_push %[[XH]], %{{.+}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// DELAYED-OPTS:      fp8.history_scale %[[WH]] {algo = "most_recent", dtype = f8E4M3FN, margin = 2, pow2 = true} : (tensor<4xf32>) -> tensor<f32>
// DELAYED-OPTS:      fp8.history_push %[[WH]], %{{.+}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @linear(%x: tensor<?x256xbf16>, %w: tensor<384x256xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  return %y : tensor<?x384xbf16>
}
