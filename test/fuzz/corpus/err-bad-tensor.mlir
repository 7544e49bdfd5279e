func.func @f(%x: tensor<4x?xq8>, %y: tensor<-1xf32>, %z: tensor<4 x f32>) {
  return
}
