#!/usr/bin/env bash
# Cast-ahead A (gemm_sm90_cast_ahead.cuh): its GPU tests (TESTS, default the cast-ahead and
# bf16-A prologue tests), then fp8c-gemm-bench's bf16-A section at issue 6's Linear shapes
# (cuBLASLt and the generated GEMM on a pre-quantized e4m3 A, the prologue and cast-ahead
# kernels, all in one process). Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
TESTS=${TESTS:-GemmSm90Gpu.CastsAAheadOfTheMainLoop:GemmSm90Gpu.CastsBf16AInThePrologue}
timeout 240 $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED|  OK) |Failure' $OUT/unittests.log | head -30
timeout 300 $B/fp8c-gemm-bench --no-plain ${CAST_SHAPES:---cast-shape 8192 4096 14336 --cast-shape 8192 14336 4096} \
  > $OUT/cast-bench.txt 2>&1
echo "gemm-bench exit status: $?"
grep -E "A|cast" $OUT/cast-bench.txt | tail -30
