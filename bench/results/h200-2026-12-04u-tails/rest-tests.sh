#!/usr/bin/env bash
# Forty-first session, call 5: the delayed training GPU tests that call 4's timer cut off, and the
# loss-curve and train_mlp GPU tests, at the final code. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
FP8C_CACHE_DIR=/tmp/t-$$ timeout ${TEST_TIMEOUT:-400} build-gpu/bin/fp8c-unittests \
  --gtest_filter="${TESTS:-*GpuTrainingTest*delayed*:GpuTrainingLossCurve*:TrainMlpGpu*:GpuWeightCasts*:-*GpuTrainingTest*/linear_delayed:*GpuTrainingTest*/mlp_delayed:*GpuTrainingTest*/mlp_delayed_generated:*GpuTrainingTest*/mlp_delayed_m1000_generated}" \
  > $OUT/tests.txt 2>&1
echo "tests exit status: $?"; grep -E "^\[  (PASSED|FAILED) |FAILED|tests ran" $OUT/tests.txt | head -20
grep -c "^\[       OK" $OUT/tests.txt
grep -E "^\[       OK" $OUT/tests.txt | sed 's/ (.*//' | cut -c14- | tr '\n' ' '
