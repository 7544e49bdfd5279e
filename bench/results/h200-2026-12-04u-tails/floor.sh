#!/usr/bin/env bash
# Forty-first session, call 2: the sustained training step at 8192 tokens with --profile, which
# now prints each launch's bytes and rate and the copy-speed floor per recipe (the GEMMs as
# profiled plus every other launch's bytes at the device-to-device copy rate measured first),
# for none, delayed and delayed%checked_tiles (the byte-staged cast-transposes with their bounds
# checks on every tile: the same-process A/B of the fortieth session's change); then the loss
# curves at the real size, bf16 against delayed. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
FP8C_CACHE_DIR=/tmp/c-$$ timeout ${TRAIN_TIMEOUT:-330} $B/fp8c-train-bench --tokens=8192 --reps=${BLOCKS:-5} \
  --sustain=${BLOCK_MS:-1500} --recipes=${RECIPES:-none,delayed,delayed%checked_tiles} --profile \
  --json=$OUT/sustained-8192.json ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/sustained-8192.txt 2>&1
echo "sustained exit status: $?"
grep -E "copy:|median|sustained:|bound|floor|step total|error" $OUT/sustained-8192.txt | cut -c1-230
if [ "${LOSS:-1}" != 0 ]; then
  FP8C_CACHE_DIR=/tmp/c-$$ timeout ${LOSS_TIMEOUT:-150} $B/train_mlp --device=gpu --batch=8192 --in=4096 --hidden=14336 \
    --out=4096 --steps=200 --lr=2 --recipes=delayed --csv=$OUT/loss.csv > $OUT/loss.txt 2>&1
  echo "train_mlp exit status: $?"
  tail -12 $OUT/loss.txt
fi
kill $SMI
gzip -f $OUT/clocks.csv
