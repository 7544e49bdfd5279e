#!/usr/bin/env bash
# Issue 6's targets at HEAD with interleaved ratios: fp8c-bench on issue 6's shapes
# (issue6-shapes.txt of the 2026-11-21s results) with the variants VARIANTS, then ROUNDS
# round-robin rounds per shape (--interleave), and fp8c-gemm-bench --quick on the plain 8192^3
# GEMM; nvidia-smi logs clock, power and throttle reasons every 100 ms. Needs build-gpu (bin,
# lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout ${BENCH6_TIMEOUT:-420} $B/fp8c-bench --shapes=bench/results/h200-2026-11-21s-gemm-ncu/issue6-shapes.txt \
  --variants=${VARIANTS:-fp8-gemm,fp8c.static,fp8c} --interleave=${ROUNDS:-40} \
  --json=$OUT/fp8c-bench.json > $OUT/fp8c-bench.txt 2>&1
echo "fp8c-bench exit status: $?"
grep -E "interleaved|x fp8-gemm|fp8-gemm  " $OUT/fp8c-bench.txt | head -60
timeout 120 $B/fp8c-gemm-bench --quick --shape 8192 8192 8192 --no-cast --variants none \
  > $OUT/gemm-bench.txt 2>&1
echo "gemm-bench exit status: $?"
grep -E "^\[t=|cuBLASLt|generated" $OUT/gemm-bench.txt | head -12
kill $SMI
gzip -f $OUT/clocks.csv
