module {
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
}
