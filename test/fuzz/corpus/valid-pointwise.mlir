func.func @pointwise(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>, %s: tensor<f32>) -> tensor<16x32xf32> {
  %sum = fp8.add %a, %b : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %prod = fp8.mul %sum, %s : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %bcast = fp8.add %s, %prod : (tensor<f32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = fp8.relu %bcast : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %gn = fp8.gelu %r {approximate = "none"} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  // An absent attribute stays absent (its default, "none", is not printed).
  %gd = fp8.gelu %gn : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %si = fp8.silu %gd : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %sw = fp8.swiglu %si, %b : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %sw : tensor<16x32xf32>
}
