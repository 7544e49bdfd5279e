#!/usr/bin/env bash
# Issue 8's table at the session's final code: the GPU tests named by TESTS, fp8c-train-bench
# (ROUNDS interleaved rounds, --profile, 8192 tokens) on the MLP and the Linear with none,
# delayed and tensorwise, tuned afresh, nvidia-smi every 100 ms; then the loss curves at the real
# size (train_mlp, every recipe, same seed and data). Needs build-gpu (bin, lib). Logs in $OUT
# (few files: the device returns a limited number).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c-$$
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
TESTS=${TESTS:-Shapes/GpuCastTransposeTest.*:Shapes/GpuFp8TablesTest.*:TrainingGpuPlan.*:GpuTrainingLossCurve.*}
timeout ${TEST_TIMEOUT:-200} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|\[ curve' $OUT/unittests.log | head -20
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout ${TRAIN_TIMEOUT:-150} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-60} --interleave \
  --recipes=${RECIPES:-none,delayed,tensorwise} --profile --json=$OUT/train.json \
  examples/mlp.mlir examples/linear.mlir > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
gzip -f $OUT/clocks.csv
grep -E "median|bound" $OUT/train.txt | cut -c1-200
timeout ${LOSS_TIMEOUT:-150} $B/train_mlp --device=gpu --batch=8192 --in=4096 --hidden=14336 \
  --out=4096 --steps=200 --lr=2 --recipes=tensorwise,delayed,rowwise,blockwise \
  --csv=$OUT/loss.csv > $OUT/loss.txt 2>&1
echo "train_mlp exit status: $?"
tail -6 $OUT/loss.txt
