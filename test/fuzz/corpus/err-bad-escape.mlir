func.func @f(%x: tensor<4xf32> {a = "a\qb"}) {
  return
}
