#!/usr/bin/env bash
# Forty-first session, call 4: the GPU tests that this session's code touches (the sustained
# timing, now re-entrant: the generated GEMM's autotuner and the auto backend's measured choice;
# cuBLASLt's tuning; the delayed training step on every backend; the sustained timing's test),
# then the sustained step with --profile once more, in a third process (none, delayed).
# Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
FP8C_CACHE_DIR=/tmp/t-$$ timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests \
  --gtest_filter="${TESTS:-GpuGemmSm90Autotune*:GpuAutotuneAutoBackend*:GpuAutoGemmBackendTest*:CublasLtGpu.*:SustainedTimingGpu*:*GpuTrainingTest*linear_delayed*:*GpuTrainingTest*mlp_delayed*:GpuDelayedStateTest*}" \
  > $OUT/tests.txt 2>&1
echo "tests exit status: $?"; grep -E "^\[  (PASSED|FAILED) |FAILED|tests ran" $OUT/tests.txt | head -20
grep -c "^\[       OK" $OUT/tests.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
FP8C_CACHE_DIR=/tmp/c-$$ timeout ${TRAIN_TIMEOUT:-200} $B/fp8c-train-bench --tokens=8192 --reps=${BLOCKS:-5} \
  --sustain=${BLOCK_MS:-1500} --recipes=${RECIPES:-none,delayed} --profile \
  --json=$OUT/sustained-8192.json ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/sustained-8192.txt 2>&1
echo "sustained exit status: $?"
grep -E "copy:|median|sustained:|bound|floor|step total|error" $OUT/sustained-8192.txt | cut -c1-230
kill $SMI
gzip -f $OUT/clocks.csv
