func.func @delayed_linear(%x: tensor<?x4096xbf16>, %w: tensor<1024x4096xbf16>,
                          %hx: tensor<16xf32> {fp8.state = "x_amax"},
                          %hw: tensor<1024xf32> {"fp8.state" = "w_amax"})
    -> (tensor<?x1024xbf16>, tensor<16xf32> {fp8.state = "x_amax"}, tensor<1024xf32> {fp8.state = "w_amax"}) {
  %sx = fp8.history_scale %hx {algo = "max", dtype = f8E4M3FN, margin = 0} : (tensor<16xf32>) -> tensor<f32>
  %sw = fp8.history_scale %hw {algo = "most_recent", dtype = f8E5M2, margin = 2, pow2 = true} : (tensor<1024xf32>) -> tensor<f32>
  %qx = fp8.cast %x, %sx : (tensor<?x4096xbf16>, tensor<f32>) -> tensor<?x4096xf8E4M3FN>
  %qw = fp8.cast %w, %sw : (tensor<1024x4096xbf16>, tensor<f32>) -> tensor<1024x4096xf8E5M2>
  %ax = fp8.amax %x : (tensor<?x4096xbf16>) -> tensor<f32>
  %aw = fp8.amax %w : (tensor<1024x4096xbf16>) -> tensor<f32>
  %nx = fp8.history_push %hx, %ax : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %nw = fp8.history_push %hw, %aw : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw {out = bf16} : (tensor<?x4096xf8E4M3FN>, tensor<1024x4096xf8E5M2>, tensor<f32>, tensor<f32>) -> tensor<?x1024xbf16>
  return %y, %nx, %nw : tensor<?x1024xbf16>, tensor<16xf32>, tensor<1024xf32>
}
