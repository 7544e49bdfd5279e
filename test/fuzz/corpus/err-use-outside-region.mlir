func.func @f(%x: tensor<4xf32>) {
  fp8.kernel "gemm" () : () -> () {
  ^bb0:
    %in = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield
  }
  %out = fp8.relu %in : (tensor<4xf32>) -> tensor<4xf32>
  return
}
