#!/usr/bin/env bash
# The history push folded into the cast launches (delayed recipe): the GPU tests that cover it
# (call 9 ran the filter with `GpuExample*`, which matched nothing; now `*GpuExampleTest*delayed*`),
# then fp8c-bench on the decode and Linear shapes, delayed and tensorwise (the control: its
# plan is unchanged), this build against build-ab/fp8c-bench-head (3b56869, the commit before)
# in alternating processes, ROUNDS times. Needs build-gpu (bin, lib) and build-ab. Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-400} $B/fp8c-unittests --gtest_filter="${TESTS:-GpuDelayedState*:*GpuExampleTest*delayed*:GpuQuant*:GpuCudaGraph*:GpuProfile*:*GpuTraining*delayed*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
  echo "OK: $(grep -c '^\[       OK' $OUT/unittests.log)"
fi
for r in $(seq 1 ${ROUNDS:-2}); do
  for v in new head; do
    T=$B/fp8c-bench; [ $v = head ] && T=build-ab/fp8c-bench-head
    timeout 200 $T --shapes=bench/shapes.txt --only=${ONLY:-decode.m1,decode.m16,llama3-8b.gate_up} \
      --recipes=delayed,tensorwise --variants=fp8c,fp8c.static,fp8-gemm --json=$OUT/bench-$v-$r.json > $OUT/bench-$v-$r.txt 2>&1
    echo "bench $v round $r exit status: $?"
    grep -E "^(decode|llama)" $OUT/bench-$v-$r.txt | awk -v v=$v '{print v, $1, $2, $3, $4}'
  done
done
