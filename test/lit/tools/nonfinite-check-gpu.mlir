// REQUIRES: cuda
// The GPU run's non-finite report (docs/numerics.md): with --check the executable counts the
// outputs' NaN / inf values on the device and the run fails; the history warning comes from the
// device's skip counter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../make_npy.py %t/x.npy f4 2x4 1,2,3,4,5,nan,7,8
// RUN: %python %S/../make_npy.py %t/w.npy f4 3x4 1,0,0,0,0,1,0,0,0,0,1,0
// RUN: %expect-exit 1 fp8c %s --recipe=tensorwise --run=gpu --check --input x=%t/x.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=TENSOR
// TENSOR: fp8c: warning: output 'y' has 6 non-finite values
// TENSOR-NEXT: fp8c: error: --check: non-finite values in 1 output and 0 amax histories
// RUN: %expect-exit 1 fp8c %s --recipe=delayed --run=gpu --check --input x=%t/x.npy --input w=%t/w.npy 2>&1 | FileCheck %s --check-prefix=DELAYED
// DELAYED: fp8c: warning: output 'y' has 3 non-finite values
// DELAYED-NEXT: fp8c: warning: history 'x_amax_history': non-finite amax skipped at this step, previous scale kept
// DELAYED-NEXT: fp8c: error: --check: non-finite values in 1 output and 1 amax history

func.func @lin(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %y = fp8.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
