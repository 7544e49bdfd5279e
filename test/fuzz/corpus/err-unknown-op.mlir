func.func @f(%x: tensor<4xf32>) {
  %y = fp8.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
