#!/usr/bin/env bash
# Thirty-fourth session, one device call: the GPU tests in TESTS first, then fp8c-train-bench
# (interleaved rounds, --profile) at each token count of TOKENS over RECIPES and GRAPHS, each
# token count in its own process and kernel cache. The recipes compare the delayed step as
# before with weights=static, which casts its weights with their own amax in steps of their own
# (`delayed+weights=static`: every forward casts, the first micro-batch of a gradient
# accumulation) and `delayed%reuse_weights` (every forward after the first reuses the FP8
# weight copies: the later micro-batches). nvidia-smi logs clocks and power.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|weight casts' $OUT/unittests.log | head -40
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for t in ${TOKENS:-8192 128}; do
  rounds=${ROUNDS:-20}; [ $t -lt 1024 ] && rounds=${SMALL_ROUNDS:-40}
  FP8C_CACHE_DIR=/tmp/c-$t-$$ timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-train-bench --tokens=$t --reps=$rounds \
    --interleave --recipes=${RECIPES:-none,delayed,delayed+weights=static,delayed%reuse_weights} \
    --profile --json=/dev/null ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/train-$t.txt 2>&1
  echo "train-bench $t exit status: $?"
  grep -E "median|bound" $OUT/train-$t.txt | cut -c1-200 | head -40
done
kill $SMI
gzip -f $OUT/clocks.csv
