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
