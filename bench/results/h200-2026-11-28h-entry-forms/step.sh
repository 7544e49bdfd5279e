#!/usr/bin/env bash
# The training step before and after 9a5c187 (Args as a __grid_constant__ parameter of the
# tensor-scale cast-transposes, column-sum units of at least 4 tile rows): the GPU tests named
# by TESTS, then fp8c-train-bench (ROUNDS interleaved rounds, --profile, 8192 tokens) on GRAPHS
# with RECIPES, once with build-gpu/bin/base/fp8c-train-bench (built from 9a5c187's parent's
# codegen) and once with the new one, nvidia-smi logging clocks. Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -20
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for build in ${BUILDS:-base new}; do
  bin=$B/fp8c-train-bench; [ $build = base ] && bin=$B/base/fp8c-train-bench
  FP8C_CACHE_DIR=/tmp/c-$build-$$ timeout ${TRAIN_TIMEOUT:-240} $bin --tokens=8192 --reps=${ROUNDS:-10} \
    --interleave --recipes=${RECIPES:-none,delayed} --profile --json=$OUT/train-$build.json \
    ${GRAPHS:-examples/mlp.mlir} > $OUT/train-$build.txt 2>&1
  echo "train-bench $build exit status: $?"
  grep -E "median|_cast_tr|bound" $OUT/train-$build.txt | cut -c1-200 | head -30
done
kill $SMI
gzip -f $OUT/clocks.csv
