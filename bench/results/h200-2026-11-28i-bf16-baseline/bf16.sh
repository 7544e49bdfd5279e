#!/usr/bin/env bash
# The bf16 baseline against PyTorch's: the GPU tests named by TESTS, then fp8c-train-bench
# (ROUNDS interleaved rounds, --profile, 8192 tokens) on the MLP and the Linear with RECIPES,
# once with build-gpu/bin/base/fp8c-train-bench (the parent's codegen) and once with the new
# one, then bench/peers/torch_train.py (torch.bf16, --profile: per-kernel times) in the same
# call, nvidia-smi logging clocks. Needs build-gpu (bin, lib). Logs in $OUT (eight files).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
python3 -c "import torch; print('torch', torch.__version__)" >> $OUT/device.txt 2>&1
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-200} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for build in ${BUILDS:-base new}; do
  bin=$B/fp8c-train-bench; [ $build = base ] && bin=$B/base/fp8c-train-bench
  json=/dev/null; [ $build = new ] && json=$OUT/train-new.json
  FP8C_CACHE_DIR=/tmp/c-$build-$$ timeout ${TRAIN_TIMEOUT:-200} $bin --tokens=8192 --reps=${ROUNDS:-30} \
    --interleave --recipes=${RECIPES:-none,delayed,tensorwise} --profile --json=$json \
    examples/mlp.mlir examples/linear.mlir > $OUT/train-$build.txt 2>&1
  echo "train-bench $build exit status: $?"
  grep -E "median|col_sum|bound" $OUT/train-$build.txt | cut -c1-160 | head -30
done
timeout ${TORCH_TIMEOUT:-200} python3 bench/peers/torch_train.py --json $OUT/torch.json --tokens 8192 \
  --reps ${TORCH_REPS:-30} --graphs linear,mlp --recipes "${TORCH_RECIPES:-}" --profile > $OUT/torch.txt 2>&1
echo "torch_train exit status: $?"
grep -E "median|per-kernel" $OUT/torch.txt | head
kill $SMI
gzip -f $OUT/clocks.csv
