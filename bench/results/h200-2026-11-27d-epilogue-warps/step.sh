#!/usr/bin/env bash
# The offloaded epilogue in the training step: the GPU tests that cover it (TESTS), the
# gelu_grad GEMM forms alone (fp8c-gemm-bench --dgelu-shape), then fp8c-train-bench (ROUNDS
# interleaved rounds, --profile) on GRAPHS with RECIPES, the tune cache entries of the
# extra-output GEMMs kept. Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure' $OUT/unittests.log | head -20
fi
if [ -z "${SKIP_DGELU:-}" ]; then
  timeout 200 $B/fp8c-gemm-bench --no-plain --no-cast --variants none --dgelu-shape 8192 4096 14336 > $OUT/dgelu-bench.txt 2>&1
  echo "gemm-bench exit status: $?"
  grep -E "fused|plain" $OUT/dgelu-bench.txt | cut -c1-200
fi
timeout ${TRAIN_TIMEOUT:-400} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
  --recipes=${RECIPES:-none,delayed} --profile --json=$OUT/train.json \
  ${GRAPHS:-examples/mlp.mlir} > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
grep -E "median|_gemm " $OUT/train.txt | cut -c1-330 | head -40
mkdir -p /tmp/tune && for f in /tmp/c/gemm-sm90-tune-*.txt; do grep -q "_aux\|_dgelu" $f && cp $f /tmp/tune/; done
cat /tmp/tune/*.txt > $OUT/tune-extra-outputs.txt 2>/dev/null
grep -E "^key|^winner |^candidate|^backends" $OUT/tune-extra-outputs.txt | cut -c1-200
