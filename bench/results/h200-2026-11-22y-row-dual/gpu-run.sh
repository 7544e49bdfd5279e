#!/usr/bin/env bash
# One device call of the seventeenth session (the dual GEMM with row scales): the GPU tests named
# by TESTS, then, unless SKIP_BENCH=1, fp8c-bench on ONLY (default mlp.swiglu) for RECIPES
# (default rowwise) with BENCH_ARGS (default --profile). Logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90Gpu.DualGemmSwigluEpilogue}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|rel err|example' $OUT/unittests.log | head -60
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  timeout ${BENCH_TIMEOUT:-240} $B/fp8c-bench --only=${ONLY:-mlp.swiglu} --recipes=${RECIPES:-rowwise} \
    --json=$OUT/fp8c-bench.json ${BENCH_ARGS:---profile} > $OUT/fp8c-bench.txt 2>&1
  echo "fp8c-bench exit status: $?" | tee -a $OUT/fp8c-bench.txt
  grep -vE "^\s*$" $OUT/fp8c-bench.txt | tail -${BENCH_TAIL:-60}
fi
