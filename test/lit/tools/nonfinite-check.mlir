// The CLI's non-finite warnings and --check (docs/numerics.md). x holds a NaN in row 1.
// Tensorwise: x's scale is NaN, so every output is; delayed: the cast keeps the NaN in row 1
// only, and x's amax is not pushed into its history (previous scale kept). Warnings always
// (stderr), exit 1 with --check, exit 0 without it; a clean x warns of nothing.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../make_npy.py %t/x.npy f4 2x4 1,2,3,4,5,nan,7,8
// RUN: %python %S/../make_npy.py %t/clean.npy f4 2x4 1,2,3,4,5,6,7,8
// RUN: %python %S/../make_npy.py %t/w.npy f4 3x4 1,0,0,0,0,1,0,0,0,0,1,0
// RUN: fp8c %s --recipe=tensorwise --run=cpu --input x=%t/x.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=TENSOR
// TENSOR: output #0 'y' tensor<2x3xf32>: {{.*}} nan=6 inf=0
// TENSOR: fp8c: warning: output 'y' has 6 non-finite values
// TENSOR-NOT: error
// RUN: %expect-exit 1 fp8c %s --recipe=tensorwise --run=cpu --check --input x=%t/x.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=TENSOR-CHECK
// TENSOR-CHECK: fp8c: warning: output 'y' has 6 non-finite values
// TENSOR-CHECK-NEXT: fp8c: error: --check: non-finite values in 1 output and 0 amax histories
// RUN: fp8c %s --recipe=delayed --run=cpu --check --random-inputs=1 --input x=%t/x.npy --input w=%t/w.npy --print-outputs > %t/delayed.out 2> %t/delayed.err || true
// RUN: FileCheck %s --check-prefix=DELAYED-OUT < %t/delayed.out
// RUN: FileCheck %s --check-prefix=DELAYED-ERR < %t/delayed.err
// RUN: %expect-exit 1 fp8c %s --recipe=delayed --run=cpu --check --random-inputs=1 --input x=%t/x.npy --input w=%t/w.npy
// The fresh history gives scale 1: row 0 is exact, row 1 NaN; x's history keeps its zeros.
// DELAYED-OUT: output #0 'y' tensor<2x3xf32> = {{\[\[}}1, 2, 3], [nan, nan, nan]]
// DELAYED-OUT: 'x_amax_history_next' tensor<16xf32> = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// DELAYED-OUT: 'w_amax_history_next' tensor<16xf32> = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// DELAYED-ERR: fp8c: warning: output 'y' has 3 non-finite values
// DELAYED-ERR-NEXT: fp8c: warning: history 'x_amax_history': non-finite amax skipped at this step, previous scale kept
// DELAYED-ERR-NEXT: fp8c: error: --check: non-finite values in 1 output and 1 amax history
// RUN: fp8c %s --recipe=delayed --run=cpu --check --random-inputs=1 --input x=%t/clean.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=CLEAN
// CLEAN-NOT: warning
// CLEAN-NOT: error

func.func @lin(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %y = fp8.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
