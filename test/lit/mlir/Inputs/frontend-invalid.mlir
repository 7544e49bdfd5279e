func.func @k_mismatch(%x: tensor<?x64xbf16>, %w: tensor<128x32xbf16>) -> tensor<?x128xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<128x32xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
