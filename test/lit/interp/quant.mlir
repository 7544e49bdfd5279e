// CPU interpreter: a per-tensor FP8 linear (amax -> scale -> cast -> scaled_matmul), the same
// GEMM inside an fp8.kernel region, fp8.scale's special cases, blockwise amax over a K that is
// not a multiple of 128, and one delayed-scaling step. Expected values are worked out by hand.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../make_npy.py %t/x.npy f4 2x3 1,2,0.5,-1,4,3
// RUN: %python %S/../make_npy.py %t/w.npy f4 2x3 1,1,2,0.5,-2,1
// RUN: fp8c %s --func per_tensor --run=cpu --input x=%t/x.npy --input w=%t/w.npy --print-outputs | FileCheck %s --check-prefix=TENSOR
// RUN: fp8c %s --func fused --run=cpu --input x=%t/x.npy --input w=%t/w.npy --print-outputs | FileCheck %s --check-prefix=FUSED
// RUN: %python %S/../make_npy.py %t/a.npy f4 6 0,448,3,inf,nan,1e-38
// RUN: fp8c %s --func scales --run=cpu --input a=%t/a.npy --print-outputs | FileCheck %s --check-prefix=SCALE
// RUN: %python %S/../make_npy.py %t/k.npy f4 2x130 0*5,3,0*123,-7,1*128,0.5,0.25
// RUN: fp8c %s --func block_amax --run=cpu --input k=%t/k.npy --print-outputs | FileCheck %s --check-prefix=BLOCK
// RUN: %python %S/../make_npy.py %t/d.npy f4 2 1,-10
// RUN: %python %S/../make_npy.py %t/h.npy f4 4 20,5,0,1
// RUN: fp8c %s --func delayed --run=cpu --input x=%t/d.npy --input h=%t/h.npy --print-outputs | FileCheck %s --check-prefix=DELAYED

// amax(x) = 4 -> sx = 448 / 4 = 112; amax(w) = 2 -> sw = 224.
// x * 112 = [[112, 224, 56], [-112, 448, 336]]; 336 is a tie between 320 and 352 (ulp 32)
// -> 320 (even). w * 224 = [[224, 224, 448], [112, -448, 224]], all exact.
// y = qx . qw^T / (112 * 224 = 25088): [[100352, -75264], [218624, -141568]] / 25088 =
// [[4, -3], [8.71428585, -5.64285707]] (the last row shows the cast's rounding: exact is 9, -5.5).
// TENSOR: output #0 'sx' tensor<f32> = 112
// TENSOR-NEXT: output #1 'sw' tensor<f32> = 224
// TENSOR-NEXT: output #2 'qx' tensor<2x3xf8E4M3FN> = {{\[\[}}112, 224, 56], [-112, 448, 320]]
// TENSOR-NEXT: output #3 'y' tensor<2x2xf32> = {{\[\[}}4, -3], [8.71428585, -5.64285707]]
func.func @per_tensor(%x: tensor<2x3xbf16>, %w: tensor<2x3xbf16>) -> (tensor<f32>, tensor<f32>, tensor<2x3xf8E4M3FN>, tensor<2x2xf32>) {
  %ax = fp8.amax %x : (tensor<2x3xbf16>) -> tensor<f32>
  %sx = fp8.scale %ax : (tensor<f32>) -> tensor<f32>
  %qx = fp8.cast %x, %sx : (tensor<2x3xbf16>, tensor<f32>) -> tensor<2x3xf8E4M3FN>
  %aw = fp8.amax %w : (tensor<2x3xbf16>) -> tensor<f32>
  %sw = fp8.scale %aw : (tensor<f32>) -> tensor<f32>
  %qw = fp8.cast %w, %sw : (tensor<2x3xbf16>, tensor<f32>) -> tensor<2x3xf8E4M3FN>
  %y = fp8.scaled_matmul %qx, %qw, %sx, %sw {out = f32} : (tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<2x2xf32>
  return %sx, %sw, %qx, %y : tensor<f32>, tensor<f32>, tensor<2x3xf8E4M3FN>, tensor<2x2xf32>
}

// The same GEMM in a kernel region, with relu after it: the same values, negatives cut.
// FUSED: output #0 'y' tensor<2x2xf32> = {{\[\[}}4, 0], [8.71428585, 0]]
// FUSED-NEXT: output #1 'm' tensor<f32> = 8.71428585
func.func @fused(%x: tensor<2x3xbf16>, %w: tensor<2x3xbf16>) -> (tensor<2x2xf32>, tensor<f32>) {
  %ax = fp8.amax %x : (tensor<2x3xbf16>) -> tensor<f32>
  %sx = fp8.scale %ax : (tensor<f32>) -> tensor<f32>
  %qx = fp8.cast %x, %sx : (tensor<2x3xbf16>, tensor<f32>) -> tensor<2x3xf8E4M3FN>
  %aw = fp8.amax %w : (tensor<2x3xbf16>) -> tensor<f32>
  %sw = fp8.scale %aw : (tensor<f32>) -> tensor<f32>
  %qw = fp8.cast %w, %sw : (tensor<2x3xbf16>, tensor<f32>) -> tensor<2x3xf8E4M3FN>
  %y, %m = fp8.kernel "gemm" (%qx, %qw, %sx, %sw) {backend = "generated", gemm_backend = "auto"} : (tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>, tensor<f32>, tensor<f32>) -> (tensor<2x2xf32>, tensor<f32>) {
  ^bb0(%a: tensor<2x3xf8E4M3FN>, %b: tensor<2x3xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>):
    %mm = fp8.scaled_matmul %a, %b, %sa, %sb {fp8.role = "main", out = f32} : (tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<2x2xf32>
    %r = fp8.relu %mm {fp8.role = "epilogue"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %am = fp8.amax %r {fp8.role = "epilogue"} : (tensor<2x2xf32>) -> tensor<f32>
    fp8.yield %r, %am : tensor<2x2xf32>, tensor<f32>
  }
  return %y, %m : tensor<2x2xf32>, tensor<f32>
}

// s = 448 / amax: amax 0 -> 1; 448 -> 1; 3 -> 149.333328; inf and NaN -> NaN; 1e-38 ->
// overflow -> FLT_MAX. With margin 1 and pow2: halved, then rounded down to a power of two
// (74.67 -> 64; the overflow clamps to FLT_MAX after the margin, then 2^127).
// SCALE: output #0 's0' tensor<6xf32> = [1, 1, 149.333328, nan, nan, 3.40282347e+38]
// SCALE-NEXT: output #1 's1' tensor<6xf32> = [1, 0.5, 64, nan, nan, 1.70141183e+38]
func.func @scales(%a: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %s0 = fp8.scale %a : (tensor<6xf32>) -> tensor<6xf32>
  %s1 = fp8.scale %a {margin = 1, pow2 = true} : (tensor<6xf32>) -> tensor<6xf32>
  return %s0, %s1 : tensor<6xf32>, tensor<6xf32>
}

// K = 130: blocks [0, 128) and [128, 130). Row 0 holds 3 at column 5 and -7 at column 129;
// row 1 holds 1 in the first block and 0.5, 0.25 in the tail.
// BLOCK: output #0 'am' tensor<2x2xf32> = {{\[\[}}3, 7], [1, 0.5]]
func.func @block_amax(%k: tensor<2x130xf32>) -> tensor<2x2xf32> {
  %am = fp8.amax %k {granularity = "block_1x128"} : (tensor<2x130xf32>) -> tensor<2x2xf32>
  return %am : tensor<2x2xf32>
}

// History [20, 5, 0, 1]: max 20 -> s = 448 / 20 = 22.4; x * s = [22.4 -> 22 (ulp 2), -224].
// The new history starts with amax(x) = 10 and drops the oldest entry.
// DELAYED: output #0 'q' tensor<2xf8E4M3FN> = [22, -224]
// DELAYED-NEXT: output #1 'nh' tensor<4xf32> = [10, 20, 5, 0]
func.func @delayed(%x: tensor<2xf32>, %h: tensor<4xf32> {fp8.state = "x_amax"})
    -> (tensor<2xf8E4M3FN>, tensor<4xf32> {fp8.state = "x_amax"}) {
  %s = fp8.history_scale %h {algo = "max"} : (tensor<4xf32>) -> tensor<f32>
  %q = fp8.cast %x, %s : (tensor<2xf32>, tensor<f32>) -> tensor<2xf8E4M3FN>
  %a = fp8.amax %x : (tensor<2xf32>) -> tensor<f32>
  %nh = fp8.history_push %h, %a : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %q, %nh : tensor<2xf8E4M3FN>, tensor<4xf32>
}
