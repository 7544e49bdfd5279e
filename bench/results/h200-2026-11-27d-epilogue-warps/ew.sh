#!/usr/bin/env bash
# The offloaded epilogue (gemm_sm90_offload.cuh): the GEMM GPU tests (TESTS), then the MLP's
# training step (fp8c-train-bench, none and delayed, ROUNDS interleaved rounds, --profile), whose
# auto backend tunes the gelu_grad dgrad GEMM's candidates (the offloaded 128 x 128 x 4 among
# them) and measures the fused form against cuBLASLt plus the cast-transpose launch; the tune
# cache entries are kept. Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90Gpu.*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|Expected|Which is|error' $OUT/unittests.log | head -40
  echo "OK: $(grep -c '^\[       OK' $OUT/unittests.log)"
fi
if [ -z "${SKIP_TRAIN:-}" ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > $OUT/clocks.csv &
  SMI=$!
  timeout ${TRAIN_TIMEOUT:-400} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
    --recipes=${TRAIN_RECIPES:-none,delayed} --profile --json=$OUT/train.json \
    ${GRAPHS:-examples/mlp.mlir} > $OUT/train.txt 2>&1
  echo "train-bench exit status: $?"
  kill $SMI
  grep -E "median|bwd_k1|fwd_k3|step total" $OUT/train.txt | cut -c1-400 | head -30
  mkdir -p $OUT/tune && cp /tmp/c/gemm-sm90-tune-*.txt $OUT/tune/ 2>/dev/null
  grep -l "dgelu" $OUT/tune/*.txt 2>/dev/null | xargs -r cat
fi
