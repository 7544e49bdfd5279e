#!/usr/bin/env bash
# The training step against the PyTorch peers in one call: fp8c-train-bench none / tensorwise /
# delayed / rowwise (20 interleaved rounds, no profile), then bench/peers/torch_train.py
# (torch.bf16, torchao's compiled Float8 training, tensorwise and rowwise; torchao from
# build-xfer-bench/pyao, its C++ extensions skipped). Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > $OUT/clocks.csv &
SMI=$!
timeout 300 ./build-gpu/bin/fp8c-train-bench --tokens=8192 --reps=20 --interleave \
  --recipes=none,tensorwise,delayed,rowwise --json=$OUT/train.json \
  examples/linear.mlir examples/mlp.mlir > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
grep -E "median" $OUT/train.txt
export PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1
timeout 240 python3 bench/peers/torch_train.py --json $OUT/torch_train.json --recipes tensorwise,rowwise \
  > $OUT/torch_train.txt 2>&1
echo "torch_train exit status: $?"
grep -vE "Warning|warn|^\s|Skipping" $OUT/torch_train.txt | tail -12
kill $SMI
python3 - $OUT/clocks.csv <<'PY'
import sys
v=[int(l.split(',')[1].split()[0]) for l in open(sys.argv[1]).readlines()[1:] if 'MHz' in l]
print(f"SM clock: mean {sum(v)/len(v):.0f} MHz, min {min(v)}, max {max(v)}, {len(v)} samples")
PY
