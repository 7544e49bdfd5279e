#!/usr/bin/env bash
# The training step at several builds in one call (BUILDS; default base0 base1 new):
# build-gpu/bin/<build>/fp8c-train-bench, or build-gpu/bin/fp8c-train-bench for "new" (base0 =
# the column sums before 4fe8ff8, base1 = 4fe8ff8, new = the build carried), each
# fp8c-train-bench (ROUNDS interleaved rounds, --profile, 8192 tokens) on the MLP and the Linear
# (GRAPHS) with RECIPES. The GPU tests named by TESTS run first, PyTorch's bf16 step after the
# builds (same call; TORCH=0 skips it), with LOSS=1 the loss curves at the real size last;
# nvidia-smi logs clocks. Needs build-gpu (bin, lib). Logs in $OUT (eight files at most).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
python3 -c "import torch; print('torch', torch.__version__)" >> $OUT/device.txt 2>&1
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for build in ${BUILDS:-base0 base1 new}; do
  bin=$B/fp8c-train-bench; [ $build != new ] && bin=$B/$build/fp8c-train-bench
  FP8C_CACHE_DIR=/tmp/c-$build-$$ timeout ${TRAIN_TIMEOUT:-200} $bin --tokens=8192 --reps=${ROUNDS:-30} \
    --interleave --recipes=${RECIPES:-none,delayed,tensorwise} --profile --json=/dev/null \
    ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/train-$build.txt 2>&1
  echo "train-bench $build exit status: $?"
  grep -E "median|col_sum|fwd_k[34]|bound" $OUT/train-$build.txt | cut -c1-170 | head -40
done
if [ "${TORCH:-1}" = 1 ]; then
  timeout ${TORCH_TIMEOUT:-200} python3 bench/peers/torch_train.py --json $OUT/torch.json --tokens 8192 \
    --reps ${TORCH_REPS:-30} --graphs linear,mlp --recipes "" > $OUT/torch.txt 2>&1
  echo "torch_train exit status: $?"
  grep -E "median" $OUT/torch.txt | head
fi
kill $SMI
gzip -f $OUT/clocks.csv
if [ "${LOSS:-0}" = 1 ]; then # the loss curves at the real size (every recipe, same seed and data)
  timeout ${LOSS_TIMEOUT:-150} $B/train_mlp --device=gpu --batch=8192 --in=4096 --hidden=14336 \
    --out=4096 --steps=200 --lr=2 --recipes=tensorwise,delayed,rowwise,blockwise \
    --csv=$OUT/loss.csv > $OUT/loss.txt 2>&1
  echo "train_mlp exit status: $?"
  tail -6 $OUT/loss.txt
fi
