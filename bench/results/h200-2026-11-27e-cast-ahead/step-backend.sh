#!/usr/bin/env bash
# The training step with every FP8 GEMM on the generated kernel against auto's measured choice
# (fp8c-train-bench recipes delayed and delayed@generated, ROUNDS interleaved rounds, --profile)
# on GRAPHS, with nvidia-smi logging the SM clock, power and throttle reasons every 100 ms.
# Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout ${TRAIN_TIMEOUT:-500} $B/fp8c-train-bench --tokens=8192 --reps=${ROUNDS:-10} --interleave \
  --recipes=${RECIPES:-none,delayed,delayed@generated} --profile --json=$OUT/train.json \
  ${GRAPHS:-examples/mlp.mlir examples/linear.mlir} > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
gzip -f $OUT/clocks.csv
grep -E "median|_gemm |bound" $OUT/train.txt | cut -c1-260 | head -60
