#!/usr/bin/env bash
# Thirty-seventh session, call 10: the byte-staged tile's values evaluated unconditionally and
# selected (no branch around each element's table lookup) and the FP8 table addressed from the
# lane's base after one byte permute (the working tree) against 2a31667's kernels (`head`: the
# tree with `git diff 2a31667 -- codegen/kernels/transpose_bytes.cuh` reversed, written to
# tmp/select.patch before the run), in kernel_ab at a power-capped clock (--soak-ms, as call 9).
# Then the GPU tests in TESTS. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29q-colsum-units
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in head new; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
(cd $W/head/fp8c && patch -s -R -p3 < $OLDPWD/$D/tmp/select.patch) || exit 1
B=build-gpu/bin/fp8c
for f in linear mlp; do $B examples/$f.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/$f.cu || exit 1; done
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-15} --soak-ms ${SOAK:-100}"
V="--variant head=$W/head --variant new=$W/new"
timeout 150 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --kernel fp8c_mlp_fwd_k0_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose $V > $OUT/ab-mlp-soak.txt 2>&1
echo "mlp exit status: $?"
timeout 100 $AB $W/linear.cu --kernel fp8c_linear_bwd_k0_cast_transpose $V > $OUT/ab-linear-soak.txt 2>&1
echo "linear exit status: $?"
grep -E "MB of tensors|median|differ" $OUT/ab-*.txt | grep -v " 0 of " | cut -c1-150
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-200} build-gpu/bin/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED) |Failure|tests ran' $OUT/unittests.log | head -20
fi
