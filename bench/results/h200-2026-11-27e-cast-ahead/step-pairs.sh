#!/usr/bin/env bash
# Clusters of two among the autotuner's candidates: the GPU tests that cover them (TESTS), then
# fp8c-train-bench (ROUNDS interleaved rounds, --profile) on GRAPHS with RECIPES, tuned afresh
# (a new cache directory), nvidia-smi logging clock, power and throttle reasons every 100 ms.
# Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c-$$
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
TESTS=${TESTS:-GemmSm90Gpu.ClustersOfTwoShareB:GpuGemmSm90Autotune*}
timeout ${TEST_TIMEOUT:-200} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED|  OK) |Failure' $OUT/unittests.log | head -20
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout ${TRAIN_TIMEOUT:-350} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
  --recipes=${RECIPES:-none,delayed} --profile --json=$OUT/train.json \
  ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
gzip -f $OUT/clocks.csv
grep -E "median|_gemm |bound" $OUT/train.txt | cut -c1-300 | head -40
cat $FP8C_CACHE_DIR/gemm-sm90-tune-*.txt > $OUT/tune.txt 2>/dev/null
grep -E "^key|^winner |^candidate" $OUT/tune.txt | cut -c1-160 | head -60
