#!/usr/bin/env bash
# Fortieth session: the cast launches' start. Each block of a delayed cast read the 16-entry
# amax history one entry after another (a branch per entry) before its first tile's loads; now
# the entries load together and the first tile's loads go first. kernel_ab at the capped clock
# (soak) and after one GEMM, HEAD~ (`base`, the kernels before the change) against the working
# tree (`new`), outputs compared byte for byte; then the GPU tests of the casts and the delayed
# training step. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/sf-$$
mkdir -p $W/base/fp8c $W/new/fp8c
cp codegen/kernels/*.cuh $W/new/fp8c/
tar -xf bench/results/h200-2026-11-29t-ct-clock/base-kernels.tar -C $W/base/fp8c
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
AB="python3 bench/kernel_ab.py --reps ${REPS:-15}"
for mode in soak after; do
  extra="--after-gemm 8192"; [ $mode = soak ] && extra="--after-gemm 8192 --soak-ms ${SOAK_MS:-150}"
  for spec in "lin.cu fp8c_linear_bwd_k0_cast_transpose" "lin.cu fp8c_linear_fwd_k1_cast_transpose" \
              "lin.cu fp8c_linear_fwd_k0_cast_transpose" "mlp.cu fp8c_mlp_bwd_k1_grad_fallback" \
              "mlp.cu fp8c_mlp_bwd_k0_cast_transpose"; do
    set -- $spec
    timeout 150 $AB $extra $W/$1 --kernel $2 --variant base=$W/base --variant new=$W/new > $W/$mode-$2.txt 2>&1
    echo "$mode $2 exit status: $?"
    grep -E "median|differ|identical|bytes" $W/$mode-$2.txt | cut -c1-150
  done
done
cat $W/*.txt > $OUT/kernel-ab.txt
timeout ${TEST_TIMEOUT:-300} build-gpu/bin/fp8c-unittests --gtest_filter="${TESTS:-*GpuCastTransposeTest*:*GpuDelayedStateTest*:*GpuTrainingTest*delayed*}" > $OUT/tests.txt 2>&1
echo "tests exit status: $?"
grep -E "^\[  (PASSED|FAILED) |FAILED|tests ran" $OUT/tests.txt | head -20
