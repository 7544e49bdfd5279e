// A graph of one pointwise op, for the driver's tests of its files and options.
func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %y = fp8.relu %x : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}
