func.func @f(%x: tensor<4xf32>) {
  %y = fp8.gelu %x {approximate = "tanh", approximate = "none"} : (tensor<4xf32>) -> tensor<4xf32>
  %k = fp8.kernel "gemm" (%x) {kind = "gemm"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
