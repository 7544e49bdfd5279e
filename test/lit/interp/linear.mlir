// CPU interpreter: a small bf16 linear with bias (one rounding after the bias), a dynamic
// leading dim, and input errors naming the input and the file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../make_npy.py %t/x.npy f4 2x2 1,0.5,2,0
// RUN: %python %S/../make_npy.py %t/w.npy f4 3x2 1,0x1p-7,1,0x1p-7,100,1
// RUN: %python %S/../make_npy.py %t/b.npy f4 3 0,0x1p-12,0.25
// RUN: fp8c %s --run=cpu --input x=%t/x.npy --input w=%t/w.npy --input b=%t/b.npy --print-outputs | FileCheck %s
// RUN: %python %S/../make_npy.py %t/x23.npy f4 2x3 1,2,3,4,5,6
// RUN: %expect-exit 1 fp8c %s --run=cpu --input x=%t/x23.npy --input w=%t/w.npy --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: %python %S/../make_npy.py %t/bf2.npy f2 3 1,2,3
// RUN: %expect-exit 1 fp8c %s --run=cpu --input x=%t/x.npy --input w=%t/w.npy --input b=%t/bf2.npy 2>&1 | FileCheck %s --check-prefix=DTYPE

// Row 0: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1 (even); with the bias 2^-12 added
// before the rounding it is above the tie -> 1.0078125; 100 + 0.5 + 0.25 = 100.75, a tie
// between 100.5 and 101 (ulp 0.5) -> 101 (even). Row 1: 2; 2 + 2^-12 -> 2; 200.25 -> 200.
// CHECK: // ran @lin on the CPU interpreter
// CHECK-NEXT: output #0 'y' tensor<2x3xbf16> = {{\[\[}}1, 1.0078125, 101], [2, 2, 200]]

// SHAPE: fp8c: error: input 'x': {{.*}}x23.npy has shape [2, 3]; expected [?, 2]
// DTYPE: fp8c: error: input 'b': {{.*}}bf2.npy has dtype <f2; expected <f4 (or <u2 raw bf16 bits)
func.func @lin(%x: tensor<?x2xbf16>, %w: tensor<3x2xbf16>, %b: tensor<3xbf16>) -> tensor<?x3xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x2xbf16>, tensor<3x2xbf16>, tensor<3xbf16>) -> tensor<?x3xbf16>
  return %y : tensor<?x3xbf16>
}
