// One Linear layer with bias (Llama-3-8B gate/up shape), dynamic token dim.
func.func @linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x4096xbf16>, %b: tensor<14336xbf16>) -> tensor<?x14336xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
