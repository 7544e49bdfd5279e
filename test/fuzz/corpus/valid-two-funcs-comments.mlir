// leading comment
func.func @a() {
  return // trailing
}
// -----
func.func @a(%0: tensor<0x1x2x3x4x5xbf16>) -> (tensor<0x1x2x3x4x5xbf16>) {
  return %0 : tensor<0x1x2x3x4x5xbf16>
}
