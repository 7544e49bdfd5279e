#!/usr/bin/env bash
# One device call: the generated GEMM's GPU tests (TESTS), then fp8c-gemm-bench --quick on the
# plain shapes and the epilogue shapes against cuBLASLt in the same process; BENCH6=1 adds
# fp8c-bench on issue 6's shapes (issue6-shapes.txt, every recipe and variant); NCU=1 adds Nsight
# Compute on the heuristic kernel of SHAPE (8192^3). Logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90*:GpuGeneratedGemm*:GpuAutoGemm*:GpuGemmSm90Autotune*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
  echo "OK: $(grep -c '^\[       OK' $OUT/unittests.log)"
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  timeout ${BENCH_TIMEOUT:-300} $B/fp8c-gemm-bench --quick ${BENCH_ARGS:---shape 8192 8192 8192 --shape 8192 4096 14336 --shape 8192 14336 4096 --shape 16 4096 14336 --epilogue-shape 8192 4096 14336 --epilogue-shape 8192 14336 4096 --cast-shape 128 128 128} > $OUT/gemm-bench.txt 2>&1
  echo "gemm-bench exit status: $?" | tee -a $OUT/gemm-bench.txt
  grep -E "^\[t=|cuBLASLt|generated|best" $OUT/gemm-bench.txt | head -70
fi
if [ -n "${BENCH6:-}" ]; then
  timeout ${BENCH6_TIMEOUT:-240} $B/fp8c-bench --shapes=bench/results/h200-2026-11-21s-gemm-ncu/issue6-shapes.txt \
    --json=$OUT/fp8c-bench.json > $OUT/fp8c-bench.txt 2>&1
  echo "fp8c-bench exit status: $?" | tee -a $OUT/fp8c-bench.txt
  grep -E "^\| (linear|mlp|decode|square)" $OUT/fp8c-bench.txt | head -30
fi
if [ -n "${NCU:-}" ]; then
  N=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
  timeout 200 $N --clock-control none -k regex:fp8c_gemm -c ${NCU_COUNT:-2} --set full -o /tmp/gen \
    $B/fp8c-gemm-bench --quick --shape ${SHAPE:-8192 8192 8192} --epilogue-shape 128 128 128 --cast-shape 128 128 128 > /tmp/ncu.txt 2>&1
  echo "ncu exit status: $?"
  $N -i /tmp/gen.ncu-rep --page details --print-units base > $OUT/ncu-details.txt 2>&1
  grep -E "^  fp8c|Duration|SM Frequency|Elapsed Cycles|Executed Instructions  |Issue Slots Busy|Compute \(SM\)" $OUT/ncu-details.txt
fi
