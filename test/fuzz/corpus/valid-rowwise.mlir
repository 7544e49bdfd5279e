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
