// Round trip of the quantization ops (fp8.amax, scale, cast, dequant, scaled_matmul) with every
// granularity and their attributes; attribute dictionaries print sorted by name.
// RUN: fp8c %s --emit=ir | FileCheck %s
// RUN: fp8c %s --emit=ir | fp8c - --emit=ir | FileCheck %s

// CHECK-LABEL: func.func @per_tensor(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4096xbf16>, %[[W:[^:]+]]: tensor<1024x4096xbf16>, %[[B:[^:]+]]: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
// CHECK-NEXT:   %[[AX:.+]] = fp8.amax %[[X]] : (tensor<?x4096xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[SX:.+]] = fp8.scale %[[AX]] : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   %[[QX:.+]] = fp8.cast %[[X]], %[[SX]] : (tensor<?x4096xbf16>, tensor<f32>) -> tensor<?x4096xf8E4M3FN>
// CHECK-NEXT:   %[[AW:.+]] = fp8.amax %[[W]] {granularity = "tensor"} : (tensor<1024x4096xbf16>) -> tensor<f32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.scale %[[AW]] {dtype = f8E4M3FN, margin = 1, pow2 = true} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   %[[QW:.+]] = fp8.cast %[[W]], %[[SW]] {granularity = "tensor"} : (tensor<1024x4096xbf16>, tensor<f32>) -> tensor<1024x4096xf8E4M3FN>
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[QX]], %[[QW]], %[[SX]], %[[SW]], %[[B]] {fast_accum = true, out = bf16} : (tensor<?x4096xf8E4M3FN>, tensor<1024x4096xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1024xbf16>) -> tensor<?x1024xbf16>
// CHECK-NEXT:   return %[[Y]] : tensor<?x1024xbf16>
// CHECK-NEXT: }
func.func @per_tensor(%x: tensor<?x4096xbf16>, %w: tensor<1024x4096xbf16>, %b: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %ax = fp8.amax %x : (tensor<?x4096xbf16>) -> tensor<f32>
  %sx = fp8.scale %ax : (tensor<f32>) -> tensor<f32>
  %qx = fp8.cast %x, %sx : (tensor<?x4096xbf16>, tensor<f32>) -> tensor<?x4096xf8E4M3FN>
  %aw = fp8.amax %w {granularity = "tensor"} : (tensor<1024x4096xbf16>) -> tensor<f32>
  // Written out of order; printed sorted.
  %sw = fp8.scale %aw {pow2 = true, margin = 1, dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
  %qw = fp8.cast %w, %sw {granularity = "tensor"} : (tensor<1024x4096xbf16>, tensor<f32>) -> tensor<1024x4096xf8E4M3FN>
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw, %b {out = bf16, fast_accum = true} : (tensor<?x4096xf8E4M3FN>, tensor<1024x4096xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1024xbf16>) -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}

// CHECK-LABEL: func.func @rowwise(
// CHECK-SAME: %[[X:[^:]+]]: tensor<256x512xf32>, %[[W:[^:]+]]: tensor<128x512xf32>) -> (tensor<256x128xf32>, tensor<256x512xf32>) {
// CHECK-NEXT:   %[[AX:.+]] = fp8.amax %[[X]] {granularity = "row"} : (tensor<256x512xf32>) -> tensor<256xf32>
// CHECK-NEXT:   %[[SX:.+]] = fp8.scale %[[AX]] {dtype = f8E5M2} : (tensor<256xf32>) -> tensor<256xf32>
// CHECK-NEXT:   %[[QX:.+]] = fp8.cast %[[X]], %[[SX]] {granularity = "row"} : (tensor<256x512xf32>, tensor<256xf32>) -> tensor<256x512xf8E5M2>
// CHECK-NEXT:   %[[AW:.+]] = fp8.amax %[[W]] {granularity = "row"} : (tensor<128x512xf32>) -> tensor<128xf32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.scale %[[AW]] : (tensor<128xf32>) -> tensor<128xf32>
// CHECK-NEXT:   %[[QW:.+]] = fp8.cast %[[W]], %[[SW]] {granularity = "row"} : (tensor<128x512xf32>, tensor<128xf32>) -> tensor<128x512xf8E4M3FN>
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[QX]], %[[QW]], %[[SX]], %[[SW]] : (tensor<256x512xf8E5M2>, tensor<128x512xf8E4M3FN>, tensor<256xf32>, tensor<128xf32>) -> tensor<256x128xf32>
// CHECK-NEXT:   %[[DX:.+]] = fp8.dequant %[[QX]], %[[SX]] {granularity = "row"} : (tensor<256x512xf8E5M2>, tensor<256xf32>) -> tensor<256x512xf32>
// CHECK-NEXT:   return %[[Y]], %[[DX]] : tensor<256x128xf32>, tensor<256x512xf32>
// CHECK-NEXT: }
func.func @rowwise(%x: tensor<256x512xf32>, %w: tensor<128x512xf32>) -> (tensor<256x128xf32>, tensor<256x512xf32>) {
  %ax = fp8.amax %x {granularity = "row"} : (tensor<256x512xf32>) -> tensor<256xf32>
  %sx = fp8.scale %ax {dtype = f8E5M2} : (tensor<256xf32>) -> tensor<256xf32>
  %qx = fp8.cast %x, %sx {granularity = "row"} : (tensor<256x512xf32>, tensor<256xf32>) -> tensor<256x512xf8E5M2>
  %aw = fp8.amax %w {granularity = "row"} : (tensor<128x512xf32>) -> tensor<128xf32>
  %sw = fp8.scale %aw : (tensor<128xf32>) -> tensor<128xf32>
  %qw = fp8.cast %w, %sw {granularity = "row"} : (tensor<128x512xf32>, tensor<128xf32>) -> tensor<128x512xf8E4M3FN>
  // No `out`: the result type gives the dtype.
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw : (tensor<256x512xf8E5M2>, tensor<128x512xf8E4M3FN>, tensor<256xf32>, tensor<128xf32>) -> tensor<256x128xf32>
  %dx = fp8.dequant %qx, %sx {granularity = "row"} : (tensor<256x512xf8E5M2>, tensor<256xf32>) -> tensor<256x512xf32>
  return %y, %dx : tensor<256x128xf32>, tensor<256x512xf32>
}

// CHECK-LABEL: func.func @blockwise(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x1000xbf16>, %[[W:[^:]+]]: tensor<300x1000xbf16>) -> (tensor<?x300xf16>, tensor<1000xf32>, tensor<300x1000xbf16>) {
// CHECK-NEXT:   %[[AX:.+]] = fp8.amax %[[X]] {granularity = "block_1x128"} : (tensor<?x1000xbf16>) -> tensor<?x8xf32>
// CHECK-NEXT:   %[[SX:.+]] = fp8.scale %[[AX]] {margin = 0, pow2 = false} : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:   %[[QX:.+]] = fp8.cast %[[X]], %[[SX]] {granularity = "block_1x128"} : (tensor<?x1000xbf16>, tensor<?x8xf32>) -> tensor<?x1000xf8E4M3FN>
// CHECK-NEXT:   %[[AW:.+]] = fp8.amax %[[W]] {granularity = "block_128x128"} : (tensor<300x1000xbf16>) -> tensor<3x8xf32>
// CHECK-NEXT:   %[[SW:.+]] = fp8.scale %[[AW]] : (tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT:   %[[QW:.+]] = fp8.cast %[[W]], %[[SW]] {granularity = "block_128x128"} : (tensor<300x1000xbf16>, tensor<3x8xf32>) -> tensor<300x1000xf8E4M3FN>
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[QX]], %[[QW]], %[[SX]], %[[SW]] {out = f16} : (tensor<?x1000xf8E4M3FN>, tensor<300x1000xf8E4M3FN>, tensor<?x8xf32>, tensor<3x8xf32>) -> tensor<?x300xf16>
// CHECK-NEXT:   %[[AC:.+]] = fp8.amax %[[W]] {granularity = "col"} : (tensor<300x1000xbf16>) -> tensor<1000xf32>
// CHECK-NEXT:   %[[DW:.+]] = fp8.dequant %[[QW]], %[[SW]] {granularity = "block_128x128"} : (tensor<300x1000xf8E4M3FN>, tensor<3x8xf32>) -> tensor<300x1000xbf16>
// CHECK-NEXT:   return %[[Y]], %[[AC]], %[[DW]] : tensor<?x300xf16>, tensor<1000xf32>, tensor<300x1000xbf16>
// CHECK-NEXT: }
func.func @blockwise(%x: tensor<?x1000xbf16>, %w: tensor<300x1000xbf16>) -> (tensor<?x300xf16>, tensor<1000xf32>, tensor<300x1000xbf16>) {
  %ax = fp8.amax %x {granularity = "block_1x128"} : (tensor<?x1000xbf16>) -> tensor<?x8xf32>
  // Attributes equal to their defaults are kept when written.
  %sx = fp8.scale %ax {margin = 0, pow2 = false} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %qx = fp8.cast %x, %sx {granularity = "block_1x128"} : (tensor<?x1000xbf16>, tensor<?x8xf32>) -> tensor<?x1000xf8E4M3FN>
  %aw = fp8.amax %w {granularity = "block_128x128"} : (tensor<300x1000xbf16>) -> tensor<3x8xf32>
  %sw = fp8.scale %aw : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %qw = fp8.cast %w, %sw {granularity = "block_128x128"} : (tensor<300x1000xbf16>, tensor<3x8xf32>) -> tensor<300x1000xf8E4M3FN>
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw {out = f16} : (tensor<?x1000xf8E4M3FN>, tensor<300x1000xf8E4M3FN>, tensor<?x8xf32>, tensor<3x8xf32>) -> tensor<?x300xf16>
  %ac = fp8.amax %w {granularity = "col"} : (tensor<300x1000xbf16>) -> tensor<1000xf32>
  %dw = fp8.dequant %qw, %sw {granularity = "block_128x128"} : (tensor<300x1000xf8E4M3FN>, tensor<3x8xf32>) -> tensor<300x1000xbf16>
  return %y, %ac, %dw : tensor<?x300xf16>, tensor<1000xf32>, tensor<300x1000xbf16>
}

// A of rank > 2 with tensor scales: its leading dims flattened are M; the result keeps them.
// CHECK-LABEL: func.func @scaled_matmul_rank3(
// CHECK-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {out = bf16} : (tensor<?x4x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
// CHECK-NEXT:   return %[[Y]] : tensor<?x4x512xbf16>
func.func @scaled_matmul_rank3(%a: tensor<?x4x256xf8E4M3FN>, %b: tensor<512x256xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>, %bias: tensor<512xbf16>) -> tensor<?x4x512xbf16> {
  %y = fp8.scaled_matmul %a, %b, %sa, %sb, %bias {out = bf16} : (tensor<?x4x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x4x512xbf16>
  return %y : tensor<?x4x512xbf16>
}
