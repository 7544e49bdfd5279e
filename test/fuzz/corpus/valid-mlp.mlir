func.func @mlp(%x: tensor<?x4096xbf16>, %w1: tensor<14336x4096xbf16>, %b1: tensor<14336xbf16>,
               %w2: tensor<4096x14336xbf16>, %b2: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336xbf16>) -> tensor<?x14336xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
