#!/usr/bin/env bash
# One device call of the sixteenth session (blockwise promotion with alternating warpgroups and
# 128 x 192 tiles): the GPU tests named by TESTS, then fp8c-gemm-bench's epilogue section on
# GEMM_SHAPES for GEMM_VARIANTS (default precise,block), then, unless SKIP_BENCH=1, fp8c-bench on
# ONLY for RECIPES (default blockwise). Logs under $OUT. SKIP_TESTS / SKIP_GEMM leave parts out.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90Gpu.BlockScalesPromotedPerKBlock}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|rel err|large|example' $OUT/unittests.log | head -60
fi
if [ -z "${SKIP_GEMM:-}" ]; then
  args=()
  for s in ${GEMM_SHAPES:-8192,4096,14336 8192,14336,4096 8192,8192,8192}; do
    args+=(--epilogue-shape ${s//,/ })
  done
  timeout ${GEMM_TIMEOUT:-240} $B/fp8c-gemm-bench --no-plain --no-cast --schedule cooperative \
    --variants ${GEMM_VARIANTS:-precise,block} "${args[@]}" > $OUT/gemm-bench.txt 2>&1
  echo "fp8c-gemm-bench exit status: $?" | tee -a $OUT/gemm-bench.txt
  grep -vE "^\s*$" $OUT/gemm-bench.txt | tail -${GEMM_TAIL:-40}
fi
if [ -n "${ONLY:-}" ] && [ -z "${SKIP_BENCH:-}" ]; then
  timeout ${BENCH_TIMEOUT:-200} $B/fp8c-bench --only=$ONLY --recipes=${RECIPES:-blockwise} \
    --json=$OUT/fp8c-bench.json ${BENCH_ARGS:-} > $OUT/fp8c-bench.txt 2>&1
  echo "fp8c-bench exit status: $?" | tee -a $OUT/fp8c-bench.txt
  grep -vE "^\s*$" $OUT/fp8c-bench.txt | tail -${BENCH_TAIL:-40}
fi
