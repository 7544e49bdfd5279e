func.func @f(%x: tensor<4294967296x4294967296xf32>, %y: tensor<99999999999999999999xf32>) {
  return
}
