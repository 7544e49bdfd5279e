#!/usr/bin/env bash
# The FP8 tables (gelu_grad's derivative of the saved e4m3 GELU input read from a 256-entry
# table): the GPU tests that cover them (TESTS), then fp8c-train-bench (ROUNDS interleaved
# rounds, --profile) on GRAPHS with RECIPES (delayed with the tables against
# delayed%no_fp8_tables, the bf16 step), tuned afresh, nvidia-smi logging clock, power and
# throttle reasons every 100 ms. Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c-$$
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
TESTS=${TESTS:-Shapes/GpuCastTransposeTest.*:TrainingGpuPlan.*:ExamplesRecipes/GpuTrainingTest.ForwardAndBackwardMatchInterpretedTraining/mlp_*}
timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -20
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
  --recipes=${RECIPES:-none,delayed,delayed%no_fp8_tables} --profile --json=$OUT/train.json \
  ${GRAPHS:-examples/mlp.mlir} > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
gzip -f $OUT/clocks.csv
grep -E "median|_gemm |_cast_tr|bound" $OUT/train.txt | cut -c1-200 | head -40
