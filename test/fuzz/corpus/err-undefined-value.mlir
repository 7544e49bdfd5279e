func.func @f() {
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
