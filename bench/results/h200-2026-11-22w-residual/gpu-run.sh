#!/usr/bin/env bash
# One device call of the fifteenth session (the residual add in the GEMM epilogue): the GPU
# tests named by TESTS, then fp8c-bench on ONLY (default residual.o,residual.down) for RECIPES (default
# tensorwise,delayed,rowwise), then the PyTorch peer on the same shapes; logs under $OUT.
# BENCH_ARGS adds fp8c-bench arguments; SKIP_TESTS=1 / SKIP_BENCH=1 / SKIP_TORCH=1 leave parts out.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
ONLY=${ONLY:-residual.o,residual.down}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90Gpu.ResidualAddEpilogue:*linear_residual*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|rel err|large|example' $OUT/unittests.log | head -60
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  timeout ${BENCH_TIMEOUT:-200} $B/fp8c-bench --only=$ONLY --recipes=${RECIPES:-tensorwise,delayed,rowwise} \
    --json=$OUT/fp8c-bench.json ${BENCH_ARGS:-} > $OUT/fp8c-bench.txt 2>&1
  echo "fp8c-bench exit status: $?" | tee -a $OUT/fp8c-bench.txt
  grep -vE "^\s*$" $OUT/fp8c-bench.txt | tail -${BENCH_TAIL:-40}
fi
if [ -z "${SKIP_TORCH:-}" ]; then
  timeout ${TORCH_TIMEOUT:-150} python3 bench/peers/torch_fp8.py --only $ONLY --json $OUT/torch.json > $OUT/torch.txt 2>&1
  echo "torch exit status: $?" | tee -a $OUT/torch.txt
  tail -20 $OUT/torch.txt
fi
