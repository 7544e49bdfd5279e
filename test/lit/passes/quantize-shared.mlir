// `quantize` on fp8.matmul (its [K, N] right operand is transposed to the [N, K] weight layout)
// and on tensors that several GEMMs share: each is quantized once per role, with one history.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise}' --verify-each --emit=ir | FileCheck %s
// RUN: fp8c %s --passes='quantize{recipe=delayed}' --verify-each --emit=ir | FileCheck %s --check-prefix=DELAYED
// RUN: fp8c %s --passes='quantize{recipe=rowwise weights=static}' --verify-each --emit=ir | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<?x256xbf16>, %[[B:[^:]+]]: tensor<256x128xbf16>) -> tensor<?x128xbf16> {
// CHECK-NEXT:   %[[BT:.+]] = fp8.transpose %[[B]] : (tensor<256x128xbf16>) -> tensor<128x256xbf16>
// CHECK-NEXT:   %[[AA:.+]] = fp8.amax %[[A]] {granularity = "tensor"}
// CHECK-NEXT:   %[[AS:.+]] = fp8.scale %[[AA]]
// CHECK-NEXT:   %[[AQ:.+]] = fp8.cast %[[A]], %[[AS]]
// CHECK-NEXT:   %[[BA:.+]] = fp8.amax %[[BT]] {granularity = "tensor"} : (tensor<128x256xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[BS:.+]] = fp8.scale %[[BA]]
// CHECK-NEXT:   %[[BQ:.+]] = fp8.cast %[[BT]], %[[BS]] {granularity = "tensor"} : (tensor<128x256xbf16>, tensor<f32>) -> tensor<128x256xf8E4M3FN>
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[AQ]], %[[BQ]], %[[AS]], %[[BS]] {fast_accum = true, out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<?x128xbf16>
// CHECK-NEXT:   return %[[Y]]
// STATIC-LABEL: func.func @matmul(
// STATIC-SAME: %{{[^:]+}}: tensor<?x256xbf16>, %[[B:[^:]+]]: tensor<256x128xbf16> {fp8.param = true}) -> tensor<?x128xbf16> {
// STATIC-NEXT:   %[[BT:.+]] = fp8.transpose %[[B]]
// STATIC:        fp8.amax %[[BT]] {granularity = "row"} : (tensor<128x256xbf16>) -> tensor<128xf32>
func.func @matmul(%a: tensor<?x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<?x128xbf16> {
  %y = fp8.matmul %a, %b : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// One transpose and one quantization of b for both matmuls.
// CHECK-LABEL: func.func @matmul_shared_weight(
// CHECK-SAME: %{{[^:]+}}: tensor<?x256xbf16>, %{{[^:]+}}: tensor<?x256xbf16>, %[[B:[^:]+]]: tensor<256x128xbf16>)
// CHECK-NEXT:   %[[BT:.+]] = fp8.transpose %[[B]]
// CHECK-NOT:    fp8.transpose
// CHECK:        %[[BA:.+]] = fp8.amax %[[BT]]
// CHECK:        %[[BQ:.+]] = fp8.cast %[[BT]]
// CHECK:        fp8.scaled_matmul %{{.+}}, %[[BQ]],
// CHECK-NOT:    fp8.amax %[[BT]]
// CHECK:        fp8.scaled_matmul %{{.+}}, %[[BQ]],
// STATIC-LABEL: func.func @matmul_shared_weight(
// STATIC-SAME: %[[B:[^:]+]]: tensor<256x128xbf16> {fp8.param = true})
func.func @matmul_shared_weight(%a: tensor<?x256xbf16>, %c: tensor<?x256xbf16>, %b: tensor<256x128xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %y = fp8.matmul %a, %b : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xbf16>
  %z = fp8.matmul %c, %b : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xbf16>
  return %y, %z : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// x feeds two linears: one amax, scale and cast of x, used by both GEMMs.
// CHECK-LABEL: func.func @shared_activation(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W1:[^:]+]]: tensor<128x256xbf16>, %[[W2:[^:]+]]: tensor<64x256xbf16>)
// CHECK-NEXT:   %[[XA:.+]] = fp8.amax %[[X]]
// CHECK-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]]
// CHECK-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]]
// CHECK-NEXT:   %[[W1A:.+]] = fp8.amax %[[W1]]
// CHECK-NEXT:   %[[W1S:.+]] = fp8.scale %[[W1A]]
// CHECK-NEXT:   %[[W1Q:.+]] = fp8.cast %[[W1]], %[[W1S]]
// CHECK-NEXT:   %[[Y1:.+]] = fp8.scaled_matmul %[[XQ]], %[[W1Q]], %[[XS]], %[[W1S]]
// CHECK-NEXT:   %[[W2A:.+]] = fp8.amax %[[W2]]
// CHECK-NEXT:   %[[W2S:.+]] = fp8.scale %[[W2A]]
// CHECK-NEXT:   %[[W2Q:.+]] = fp8.cast %[[W2]], %[[W2S]]
// CHECK-NEXT:   %[[Y2:.+]] = fp8.scaled_matmul %[[XQ]], %[[W2Q]], %[[XS]], %[[W2S]]
// CHECK-NEXT:   return %[[Y1]], %[[Y2]]
// DELAYED-LABEL: func.func @shared_activation(
// DELAYED-SAME: %[[XH:[^:]+]]: tensor<16xf32> {fp8.state = "x_amax_history"}, %{{[^:]+}}: tensor<16xf32> {fp8.state = "w1_amax_history"}, %{{[^:]+}}: tensor<16xf32> {fp8.state = "w2_amax_history"})
// DELAYED-SAME: -> (tensor<?x128xbf16>, tensor<?x64xbf16>, tensor<16xf32> {fp8.state = "x_amax_history"}, tensor<16xf32> {fp8.state = "w1_amax_history"}, tensor<16xf32> {fp8.state = "w2_amax_history"})
// DELAYED-COUNT-3: fp8.history_push
// DELAYED-NOT:     fp8.history_push
// DELAYED:         return
func.func @shared_activation(%x: tensor<?x256xbf16>, %w1: tensor<128x256xbf16>, %w2: tensor<64x256xbf16>) -> (tensor<?x128xbf16>, tensor<?x64xbf16>) {
  %a = fp8.linear %x, %w1 : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %b = fp8.linear %x, %w2 : (tensor<?x256xbf16>, tensor<64x256xbf16>) -> tensor<?x64xbf16>
  return %a, %b : tensor<?x128xbf16>, tensor<?x64xbf16>
}

// w feeds two linears as their weight.
// CHECK-LABEL: func.func @shared_weight(
// CHECK-SAME: %[[W:[^:]+]]: tensor<128x256xbf16>)
// CHECK-COUNT-1: fp8.amax %[[W]]
// CHECK-NOT:     fp8.amax %[[W]]
// CHECK:         return
func.func @shared_weight(%x: tensor<?x256xbf16>, %z: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %a = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  %b = fp8.linear %z, %w : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  return %a, %b : tensor<?x128xbf16>, tensor<?x128xbf16>
}
