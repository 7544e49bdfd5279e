// CPU interpreter: fp8.cast rounding (round up, ties to even, saturation, subnormals, zero,
// NaN) for both FP8 formats, and FP8 / bf16 inputs given as raw bits. Expected values are
// worked out by hand: e4m3fn has ulp 0.125 in [1, 2), max 448, min subnormal 2^-9 =
// 0.001953125; e5m2 has ulp 0.25 in [1, 2), max 57344, min subnormal 2^-16.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../make_npy.py %t/x.npy f4 9 1.09375,1.0625,1.1875,600,-1e30,0x1.8p-10,0x1p-10,-0x1p-11,nan
// RUN: %python %S/../make_npy.py %t/s.npy f4 scalar 1
// RUN: %python %S/../make_npy.py %t/y.npy f4 7 1.125,1.375,60000,inf,0x1.4p-17,0x1p-17,nan
// RUN: %python %S/../make_npy.py %t/r.npy f4 2x2 0.2734375,0.265625,150,0x1p-13
// RUN: %python %S/../make_npy.py %t/rs.npy f4 2 4,0.5
// RUN: fp8c %s --func casts --run=cpu --input x=%t/x.npy --input s=%t/s.npy --input y=%t/y.npy --input r=%t/r.npy --input rs=%t/rs.npy --print-outputs | FileCheck %s --check-prefix=CAST
// RUN: %python %S/../make_npy.py %t/q.npy u1 4 0x38,0x7e,0x01,0x7f
// RUN: %python %S/../make_npy.py %t/b.npy u2 3 0x3f80,0x4049,0xff80
// RUN: %python %S/../make_npy.py %t/s2.npy f4 scalar 2
// RUN: fp8c %s --func raw_bits --run=cpu --input q=%t/q.npy --input b=%t/b.npy --input s=%t/s2.npy --print-outputs | FileCheck %s --check-prefix=RAW

// e4m3fn, s = 1: 1.09375 -> 1.125 (up); 1.0625 -> 1 (tie, even); 1.1875 -> 1.25 (tie, even);
// 600 -> 448 and -1e30 -> -448 (saturate); 0.75 * 2^-9 -> 2^-9; 2^-10 -> 0 (tie with zero,
// even); -2^-11 -> -0; NaN -> NaN.
// CAST: output #0 'qx' tensor<9xf8E4M3FN> = [1.125, 1, 1.25, 448, -448, 0.001953125, 0, -0, nan]
// e5m2: 1.125 -> 1 (tie, even); 1.375 -> 1.5 (tie, even); 60000 and inf -> 57344 (saturate);
// 0.625 * 2^-16 -> 2^-16 = 1.52587891e-05; 2^-17 -> 0 (tie, even); NaN -> NaN.
// CAST-NEXT: output #1 'qy' tensor<7xf8E5M2> = [1, 1.5, 57344, 57344, 1.52587891e-05, 0, nan]
// Per-row scales [4, 0.5]: 0.2734375 * 4 = 1.09375 -> 1.125; 0.265625 * 4 = 1.0625 -> 1;
// 150 * 0.5 = 75 -> 72 (ulp 8 in [64, 128): 9.375 ulps); 2^-13 * 0.5 = 2^-14 -> 0.
// CAST-NEXT: output #2 'qr' tensor<2x2xf8E4M3FN> = {{\[\[}}1.125, 1], [72, 0]]
func.func @casts(%x: tensor<9xf32>, %s: tensor<f32>, %y: tensor<7xf32>, %r: tensor<2x2xf32>, %rs: tensor<2xf32>)
    -> (tensor<9xf8E4M3FN>, tensor<7xf8E5M2>, tensor<2x2xf8E4M3FN>) {
  %qx = fp8.cast %x, %s : (tensor<9xf32>, tensor<f32>) -> tensor<9xf8E4M3FN>
  %qy = fp8.cast %y, %s : (tensor<7xf32>, tensor<f32>) -> tensor<7xf8E5M2>
  %qr = fp8.cast %r, %rs {granularity = "row"} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf8E4M3FN>
  return %qx, %qy, %qr : tensor<9xf8E4M3FN>, tensor<7xf8E5M2>, tensor<2x2xf8E4M3FN>
}

// |u1 bytes of e4m3fn: 0x38 = 1, 0x7E = 448, 0x01 = 2^-9, 0x7F = NaN, dequantized by s = 2;
// <u2 bits of bf16: 0x3F80 = 1, 0x4049 = 3.140625, 0xFF80 = -inf, doubled.
// RAW: output #0 'dq' tensor<4xf32> = [0.5, 224, 0.0009765625, nan]
// RAW-NEXT: output #1 'bb' tensor<3xbf16> = [2, 6.28125, -inf]
func.func @raw_bits(%q: tensor<4xf8E4M3FN>, %b: tensor<3xbf16>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<3xbf16>) {
  %dq = fp8.dequant %q, %s : (tensor<4xf8E4M3FN>, tensor<f32>) -> tensor<4xf32>
  %bb = fp8.add %b, %b : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  return %dq, %bb : tensor<4xf32>, tensor<3xbf16>
}
