#!/usr/bin/env bash
# Forty-first session, call 1: what a GEMM's last, partly filled wave costs at the power-capped
# clock. The promoting (tensor scales, no fast accumulation) GEMM and cuBLASLt's peer, burst and
# soaked, at the Linear's dgrad shape (K 14336, N 4096) for M 7936 / 8192 / 8448 and its wgrad
# shape (K 8192, N 4096) for M 12672 / 14336. At 128 x 256 tiles M 8448 and 12672 fill whole
# waves of 132 SMs (8 and 12), M 8192 and 14336 leave the last wave 76 % / 58 % full. If time
# per row stays flat from 8192 to 8448, the last wave's idle SMs cost time and no energy.
# Then the cast-transpose GPU tests not yet run on a GPU (interior shapes, both loops).
# Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,power.limit,clocks.sm,driver_version --format=csv | tee $OUT/device.txt
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu --format=csv,noheader -lms 200 > $OUT/smi.csv &
smi=$!
timeout 330 build-gpu/bin/fp8c-gemm-bench --no-plain --no-cast --variants precise --schedule cooperative \
  --soak ${SOAK:-2} --epilogue-shape 8192 14336 4096 --epilogue-shape 8448 14336 4096 \
  --epilogue-shape 7936 14336 4096 --epilogue-shape 14336 8192 4096 --epilogue-shape 12672 8192 4096 \
  > $OUT/gemm-tails.txt 2>&1
echo "gemm-bench exit status: $?"
kill $smi
grep -E "^==|shape|M |cuBLASLt|generated|soak" $OUT/gemm-tails.txt | cut -c1-160
timeout ${TEST_TIMEOUT:-150} build-gpu/bin/fp8c-unittests --gtest_filter="${TESTS:-*GpuCastTransposeTest*}" > $OUT/tests.txt 2>&1
echo "tests exit status: $?"
grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/tests.txt | head -20
grep -c "^\[       OK" $OUT/tests.txt
gzip -f $OUT/smi.csv
