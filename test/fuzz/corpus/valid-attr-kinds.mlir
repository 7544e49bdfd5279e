func.func @a(%x: tensor<2xf32> {"quoted name" = "tab\there\0A\\ \"q\"", b = true, c = -9223372036854775808, d = i32, e = 7 : i64}) {
  %0 = fp8.relu %x {z = false, y = f8E5M2, w$ = 1} : (tensor<2xf32>) -> tensor<2xf32>
  return
}
