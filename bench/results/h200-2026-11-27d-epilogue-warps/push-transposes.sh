#!/usr/bin/env bash
# Delayed scaling's history push in the training step's cast-transposes (transpose.cuh kPush):
# the GPU tests whose histories are compared with the interpreter's every step, then the
# training step with the per-launch profile (none, delayed; ROUNDS rounds) to show the state
# launches gone. Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
timeout 300 build-gpu/bin/fp8c-unittests \
  --gtest_filter="${TESTS:-*GpuTraining*delayed*:GpuDelayedState*:GpuTrainingLossCurve*}" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure' $OUT/unittests.log | head -20
grep -E "linear delayed step [0-9]+ history" $OUT/unittests.log | tail -4
timeout 240 build-gpu/bin/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
  --recipes=none,delayed --profile --json=$OUT/train.json examples/linear.mlir examples/mlp.mlir \
  > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
grep -E "median|_state|history_push|step total" $OUT/train.txt | cut -c1-230
