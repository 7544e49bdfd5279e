#!/usr/bin/env bash
# Forty-first session, call 3: cuBLASLt's algorithm tuned under a sustained load
# (CompileOptions::cublasLtAutotune, now timed as the generated GEMM's tiles are) against the
# heuristic's first choice, which every plan runs by default: the cuBLASLt GPU tests, the
# heuristic's candidates timed at the Linear's dgrad and wgrad shapes (fp8c-gemm-bench
# --cublaslt-tune, e4m3 x e4m3, no fast accumulation), then the sustained step with --profile
# for none, delayed and delayed%cublaslt_tune, MLP and Linear, in one process.
# Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
FP8C_CACHE_DIR=/tmp/t-$$ timeout 120 $B/fp8c-unittests --gtest_filter='CublasLtGpu.*' > $OUT/tests.txt 2>&1
echo "tests exit status: $?"; grep -E "^\[  (PASSED|FAILED) |autotune \]|FAILED" $OUT/tests.txt | head
timeout 150 $B/fp8c-gemm-bench --no-plain --no-cast --variants precise --schedule cooperative --quick --cublaslt-tune \
  --epilogue-shape 8192 14336 4096 --epilogue-shape 14336 8192 4096 > $OUT/gemm-tune.txt 2>&1
echo "gemm-bench exit status: $?"; grep -E "cuBLASLt" $OUT/gemm-tune.txt | cut -c1-230
FP8C_CACHE_DIR=/tmp/c-$$ timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-train-bench --tokens=8192 --reps=${BLOCKS:-5} \
  --sustain=${BLOCK_MS:-1500} --recipes=${RECIPES:-none,delayed,delayed%cublaslt_tune} --profile \
  --json=$OUT/sustained-8192.json ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/sustained-8192.txt 2>&1
echo "sustained exit status: $?"
grep -E "copy:|median|sustained:|bound|floor|step total|error" $OUT/sustained-8192.txt | cut -c1-230
grep -E "bwd .*gemm|fwd .*gemm" $OUT/sustained-8192.txt | cut -c1-200
kill $SMI
gzip -f $OUT/clocks.csv
