func.func @f(%x: tensor<4xf32>) {
  %y = fp8.add %x, %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %x : tensor<4xf32>
}
