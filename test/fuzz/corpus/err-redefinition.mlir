func.func @f(%x: tensor<4xf32>) {
  %x = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
