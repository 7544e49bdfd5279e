func.func @"quoted name.v2"(%0: tensor<2x3xf32>, %1: tensor<f32>)
    -> (tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>) {
  %7 = fp8.mul %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %x.y$z-1_ = fp8.relu %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %-neg = fp8.silu %x.y$z-1_ : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %.dot = fp8.add %-neg, %-neg : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %.dot, %1, %0 : tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>
}
