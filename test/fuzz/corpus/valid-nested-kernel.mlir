func.func @n(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %j = fp8.kernel (%a) {kind = 3} : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %r = fp8.relu %b : (tensor<4xf32>) -> tensor<4xf32>
      fp8.yield %r : tensor<4xf32>
    }
    fp8.yield %j : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}
