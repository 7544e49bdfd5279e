func.func @g(%x: tensor<f32>) {
  %0, %1 = fp8.relu : () -> (tensor<f32>, tensor<1x?xi32>) {
  ^bb: 
    fp8.yield {a = 1}
  }
  fp8.kernel () : () -> ()
  return %x {note = "t"} : tensor<f32>
}
