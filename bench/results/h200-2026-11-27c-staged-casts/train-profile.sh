#!/usr/bin/env bash
# fp8c-train-bench none / tensorwise / delayed with --profile (both halves enqueued before the
# profiles are read), 20 interleaved rounds, with the SM clock sampled. Needs build-gpu (bin,
# lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv -lms 100 > $OUT/clocks.csv &
SMI=$!
timeout 400 ./build-gpu/bin/fp8c-train-bench --tokens=8192 --reps=20 --interleave \
  --recipes=${TRAIN_RECIPES:-none,tensorwise,delayed} --profile --json=$OUT/train.json \
  examples/linear.mlir examples/mlp.mlir > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
python3 - $OUT/clocks.csv <<'PY'
import sys
v=[int(l.split(',')[1].split()[0]) for l in open(sys.argv[1]).readlines()[1:] if 'MHz' in l]
print(f"SM clock: mean {sum(v)/len(v):.0f} MHz, min {min(v)}, max {max(v)}, {len(v)} samples")
PY
grep -E "median|bwd_k0|bwd_k1|step total|bound" $OUT/train.txt | head -40
