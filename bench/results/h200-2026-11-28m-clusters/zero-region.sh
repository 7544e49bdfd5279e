#!/usr/bin/env bash
# Calls 3+: the zero region (one memset per run for the small zeroInit temps) against the
# build before it (build-gpu/bin/base: one memset per buffer). TESTS first (GPU tests of the new
# build), then `fp8c --bench` of the delayed MLP / Linear forward at small M, base and new
# alternating (ALT processes each), then fp8c-train-bench (ROUNDS, RECIPES, GRAPHS) alternating
# base / new (TRAIN_ALT processes each, TOKENS, 8192 by default). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
fi
for g in ${SMALL_GRAPHS-mlp linear}; do
  for m in ${SMALL_M:-1 16 128}; do
    for i in $(seq ${ALT:-2}); do
      for b in base new; do
        bin=$B/fp8c; [ $b = base ] && bin=$B/base/fp8c
        r=$(FP8C_CACHE_DIR=/tmp/cs-$b timeout 120 $bin examples/$g.mlir --recipe=${SMALL_RECIPE:-delayed} --run=gpu \
          --random-inputs=1 --dynamic-dim=$m --bench 2>&1 | grep -iE "median" | head -1)
        echo "$g m=$m $b: $r" | tee -a $OUT/small.txt
      done
    done
  done
done
for i in $(seq ${TRAIN_ALT:-0}); do
  for b in base new; do
    bin=$B/fp8c-train-bench; [ $b = base ] && bin=$B/base/fp8c-train-bench
    FP8C_CACHE_DIR=/tmp/c-$b timeout ${TRAIN_TIMEOUT:-200} $bin --tokens=${TOKENS:-8192} --reps=${ROUNDS:-20} \
      --interleave --recipes=${RECIPES:-none,delayed} --json=/dev/null \
      ${GRAPHS:-examples/mlp.mlir} > $OUT/train-$b-${TOKENS:-8192}-$i.txt 2>&1
    echo "train-bench $b $i exit status: $?"
    grep -E "median" $OUT/train-$b-$i.txt | cut -c1-150
  done
done
