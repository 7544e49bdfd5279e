#!/usr/bin/env bash
# Fortieth session: the byte-staged cast-transpose without bounds checks where every tile lies
# inside (the training step's tensors). kernel_ab at the capped clock (soak), the kernels of
# 8b52f51 (`base`, from base-kernels.tar, made for the call and not committed) against the
# working tree (`new`), outputs compared byte for byte; then the cast and delayed training GPU
# tests. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/in-$$
mkdir -p $W/base/fp8c $W/new/fp8c
cp codegen/kernels/*.cuh $W/new/fp8c/
tar -xf bench/results/h200-2026-11-29t-ct-clock/base-kernels.tar -C $W/base/fp8c
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
AB="python3 bench/kernel_ab.py --reps ${REPS:-15}"
for spec in "lin.cu fp8c_linear_bwd_k0_cast_transpose" "lin.cu fp8c_linear_fwd_k1_cast_transpose" \
            "lin.cu fp8c_linear_fwd_k0_cast_transpose" "mlp.cu fp8c_mlp_bwd_k1_grad_fallback" \
            "mlp.cu fp8c_mlp_bwd_k0_cast_transpose"; do
  set -- $spec
  timeout 120 $AB --after-gemm 8192 --soak-ms ${SOAK_MS:-150} $W/$1 --kernel $2 --variant base=$W/base --variant new=$W/new > $W/soak-$2.txt 2>&1
  echo "soak $2 exit status: $?"
  grep -E "median|differ" $W/soak-$2.txt | cut -c1-150
done
cat $W/*.txt > $OUT/kernel-ab.txt
timeout ${TEST_TIMEOUT:-200} build-gpu/bin/fp8c-unittests --gtest_filter="${TESTS:-*GpuCastTransposeTest*:*GpuTrainingTest*linear_delayed:*GpuTrainingTest*mlp_delayed_generated}" > $OUT/tests.txt 2>&1
echo "tests exit status: $?"
grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/tests.txt | head -20
grep -c "^\[       OK" $OUT/tests.txt
