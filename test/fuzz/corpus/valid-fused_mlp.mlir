func.func @fused_mlp(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>)
    -> (tensor<?x512xbf16>, tensor<f32>) {
  %ax = fp8.amax %x : (tensor<?x256xbf16>) -> tensor<f32>
  %sx = fp8.scale %ax : (tensor<f32>) -> tensor<f32>
  %qx = fp8.kernel "pointwise" (%x, %sx) : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN> {
  ^bb0(%x_1: tensor<?x256xbf16>, %sx_1: tensor<f32>):
    %c = fp8.cast %x_1, %sx_1 : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E4M3FN>
    fp8.yield %c : tensor<?x256xf8E4M3FN>
  }
  %aw = fp8.amax %w : (tensor<512x256xbf16>) -> tensor<f32>
  %sw = fp8.scale %aw : (tensor<f32>) -> tensor<f32>
  %qw = fp8.cast %w, %sw : (tensor<512x256xbf16>, tensor<f32>) -> tensor<512x256xf8E4M3FN>
  %y, %amax = fp8.kernel "gemm" (%qx, %qw, %sx, %sw, %b) : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> (tensor<?x512xbf16>, tensor<f32>) {
  ^bb0(%a: tensor<?x256xf8E4M3FN>, %bb: tensor<512x256xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>, %bias: tensor<512xbf16>):
    %mm = fp8.scaled_matmul %a, %bb, %sa, %sb, %bias {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<512xbf16>) -> tensor<?x512xbf16>
    %g = fp8.gelu %mm {approximate = "tanh"} : (tensor<?x512xbf16>) -> tensor<?x512xbf16>
    %ag = fp8.amax %g : (tensor<?x512xbf16>) -> tensor<f32>
    fp8.yield %g, %ag : tensor<?x512xbf16>, tensor<f32>
  }
  return %y, %amax : tensor<?x512xbf16>, tensor<f32>
}
