func.func @f(%x: tensor<4xf32>) {
  %r = return %x : tensor<4xf32>
}
