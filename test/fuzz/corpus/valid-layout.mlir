func.func @layout(%a: tensor<64x128xf16>, %b: tensor<128x32xf16>, %w: tensor<64x32xf16>)
    -> (tensor<32x64xbf16>, tensor<64x64xf16>) {
  %m = fp8.matmul %a, %b : (tensor<64x128xf16>, tensor<128x32xf16>) -> tensor<64x32xf16>
  %t = fp8.transpose %m : (tensor<64x32xf16>) -> tensor<32x64xf16>
  %c = fp8.convert %t : (tensor<32x64xf16>) -> tensor<32x64xbf16>
  %l = fp8.linear %m, %w : (tensor<64x32xf16>, tensor<64x32xf16>) -> tensor<64x64xf16>
  func.return %c, %l : tensor<32x64xbf16>, tensor<64x64xf16>
}
