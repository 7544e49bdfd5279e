// A transformer block's MLP down projection with the residual stream added (Llama-3-8B shape,
// dynamic token dim): z = x W^T + r. The add runs in the GEMM's epilogue.
func.func @linear_residual(%x: tensor<?x14336xbf16>, %w: tensor<4096x14336xbf16>, %r: tensor<?x4096xbf16>) -> tensor<?x4096xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>) -> tensor<?x4096xbf16>
  %z = fp8.add %y, %r : (tensor<?x4096xbf16>, tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  return %z : tensor<?x4096xbf16>
}
