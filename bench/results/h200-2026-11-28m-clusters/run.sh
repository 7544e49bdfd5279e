#!/usr/bin/env bash
# Thirty-third session, one device call: fp8c-train-bench (ROUNDS interleaved rounds, --profile,
# 8192 tokens, RECIPES, GRAPHS) once per entry of VARIANTS, each in its own process and cache:
# "base" as built, "c2" with FP8C_EXP_C2=1 (the experiment build's autotuner also times every
# candidate as a cluster of two sharing B). The autotuner's cache entries (every candidate's
# sustained time) go to tune-<variant>.txt. TESTS: GPU tests first. nvidia-smi logs clocks.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for v in ${VARIANTS:-base c2}; do
  env=""; [ $v = c2 ] && env="FP8C_EXP_C2=1"
  dir=/tmp/c-$v-$$
  env $env FP8C_CACHE_DIR=$dir timeout ${TRAIN_TIMEOUT:-240} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-20} \
    --interleave --recipes=${RECIPES:-none,delayed} --profile --json=/dev/null \
    ${GRAPHS:-examples/mlp.mlir} > $OUT/train-$v.txt 2>&1
  echo "train-bench $v exit status: $?"
  grep -E "median|_gemm|bound" $OUT/train-$v.txt | cut -c1-230 | head -40
  for f in $(find $dir -name 'gemm-sm90-tune-*.txt'); do echo "== $f"; cat $f; done > $OUT/tune-$v.txt
done
kill $SMI
gzip -f $OUT/clocks.csv
