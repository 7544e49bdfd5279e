// The MLP block of ViT-Huge/14: linear + bias -> exact GELU (erf) -> linear + bias, hidden 1280,
// expansion 5120, with a dynamic token dim.
func.func @vit_mlp(%x: tensor<?x1280xbf16>, %w1: tensor<5120x1280xbf16>, %b1: tensor<5120xbf16>, %w2: tensor<1280x5120xbf16>, %b2: tensor<1280xbf16>) -> tensor<?x1280xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x1280xbf16>, tensor<5120x1280xbf16>, tensor<5120xbf16>) -> tensor<?x5120xbf16>
  %g = fp8.gelu %h {approximate = "none"} : (tensor<?x5120xbf16>) -> tensor<?x5120xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x5120xbf16>, tensor<1280x5120xbf16>, tensor<1280xbf16>) -> tensor<?x1280xbf16>
  return %y : tensor<?x1280xbf16>
}
