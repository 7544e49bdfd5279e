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
