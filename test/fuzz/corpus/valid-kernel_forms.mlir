func.func @kernel_forms(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %r = fp8.kernel "reduce" (%x) : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%p: tensor<8x128xf32>):
    %m = fp8.amax %p {granularity = "row"} : (tensor<8x128xf32>) -> tensor<8xf32>
    fp8.yield %m : tensor<8xf32>
  }
  fp8.kernel "pointwise" () : () -> () {
  ^bb0:
    fp8.yield
  }
  return %r : tensor<8xf32>
}
