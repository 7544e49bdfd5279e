#!/usr/bin/env bash
# Thirty-fifth session, one device call: the GPU tests in TESTS first (if any), then
# fp8c-train-bench at TOKENS over RECIPES and GRAPHS twice in one kernel cache: --sustain=BLOCK_MS
# (every recipe's steps back to back for a block, as a training run runs them; energy per step
# from NVML) and, unless INTERLEAVE=0, the short interleaved samples of the earlier sessions.
# With GEMM_ENERGY=1, fp8c-gemm-energy first: the steps' GEMMs alone, bf16 against FP8, in the
# same sustained blocks. With TORCH=1, last, bench/peers/torch_train.py --sustain-ms (torch.bf16
# and torchao's compiled Float8 training). PROFILE=1 adds --profile to the sustained run (one
# profiled step after each block). nvidia-smi logs clocks and power throughout.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -40
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
t=${TOKENS:-8192}
if [ "${GEMM_ENERGY:-0}" != 0 ]; then
  timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-gemm-energy --tokens=$t --blocks=${BLOCKS:-6} --block-ms=${BLOCK_MS:-2000} \
    > $OUT/gemm-energy-$t.txt 2>&1
  echo "gemm-energy $t exit status: $?"
  cat $OUT/gemm-energy-$t.txt | head -20
fi
CACHE=/tmp/c-$t-$$
FP8C_CACHE_DIR=$CACHE timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-train-bench --tokens=$t --reps=${BLOCKS:-6} \
  --sustain=${BLOCK_MS:-2000} --recipes=${RECIPES:-none,delayed} --json=$OUT/sustained-$t.json ${PROFILE:+--profile} \
  ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/sustained-$t.txt 2>&1
echo "sustained $t exit status: $?"
grep -E "median|sustained:|energy|error" $OUT/sustained-$t.txt | cut -c1-220 | head -40
if [ "${INTERLEAVE:-1}" != 0 ]; then
  FP8C_CACHE_DIR=$CACHE timeout ${TRAIN_TIMEOUT:-300} $B/fp8c-train-bench --tokens=$t --reps=${ROUNDS:-20} \
    --interleave --recipes=${RECIPES:-none,delayed} --json=/dev/null \
    ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/interleaved-$t.txt 2>&1
  echo "interleaved $t exit status: $?"
  grep -E "median" $OUT/interleaved-$t.txt | cut -c1-200 | head -20
fi
if [ "${TORCH:-0}" != 0 ]; then
  # The PyTorch peer in the same blocks (torchao's Python files from pytorch/ao@36027d8 in
  # build-xfer-bench/pyao, carried; its C++ extensions skipped).
  PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1 \
    timeout ${TORCH_TIMEOUT:-300} python3 bench/peers/torch_train.py --json $OUT/torch-sustained-$t.json \
    --tokens $t --reps ${BLOCKS:-6} --sustain-ms ${BLOCK_MS:-2000} --recipes ${TORCH_RECIPES:-tensorwise,rowwise} \
    > $OUT/torch-sustained-$t.txt 2>&1
  echo "torch_train $t exit status: $?"
  grep -E "median|FAILS|torch_train.py:" $OUT/torch-sustained-$t.txt | head -20
fi
kill $SMI
gzip -f $OUT/clocks.csv
