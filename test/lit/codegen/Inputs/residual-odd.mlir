// residual.mlir's input with N = 100: r's rows are 200 bytes, not whole 16-byte units.
func.func @odd(%x: tensor<?x64xbf16>, %w: tensor<100x64xbf16>, %r: tensor<?x100xbf16>) -> tensor<?x100xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<100x64xbf16>) -> tensor<?x100xbf16>
  %z = fp8.add %y, %r : (tensor<?x100xbf16>, tensor<?x100xbf16>) -> tensor<?x100xbf16>
  return %z : tensor<?x100xbf16>
}
