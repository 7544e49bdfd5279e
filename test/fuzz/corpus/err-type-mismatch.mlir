func.func @f(%x: tensor<4xbf16>) {
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
