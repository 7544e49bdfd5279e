func.func @f(%x: tensor<4xf32>) {
  %k = fp8.kernel "gemm" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fp8.yield %a : tensor<4xf32>
