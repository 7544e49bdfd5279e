#!/usr/bin/env bash
# The GPU tests the offloaded epilogue and its tuner candidate touch: every generated-GEMM test,
# the autotuner's, the training tests (whose delayed MLP tunes the gelu_grad dgrad GEMM with the
# offloaded candidate) and the delayed-state tests. Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
timeout 560 build-gpu/bin/fp8c-unittests \
  --gtest_filter="${TESTS:-GemmSm90Gpu.*:GpuGemmSm90Autotune*:*GpuTraining*:GpuDelayedState*}" \
  > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
echo "OK: $(grep -c '^\[       OK' $OUT/unittests.log)"
