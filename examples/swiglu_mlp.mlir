// A Llama-style SwiGLU MLP (Llama-3-8B sizes): down(silu(gate(x)) * up(x)), no biases,
// dynamic token dim.
func.func @swiglu_mlp(%x: tensor<?x4096xbf16>, %w_gate: tensor<14336x4096xbf16>, %w_up: tensor<14336x4096xbf16>, %w_down: tensor<4096x14336xbf16>) -> tensor<?x4096xbf16> {
  %gate = fp8.linear %x, %w_gate : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %up = fp8.linear %x, %w_up : (tensor<?x4096xbf16>, tensor<14336x4096xbf16>) -> tensor<?x14336xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x14336xbf16>, tensor<?x14336xbf16>) -> tensor<?x14336xbf16>
  %y = fp8.linear %h, %w_down : (tensor<?x14336xbf16>, tensor<4096x14336xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
