#!/usr/bin/env bash
# One device call: the GPU tests of the cast-transposes (training steps against the interpreter,
# quantization kernels, transposed operands), then the training step (interleaved, per-launch
# profile) and the PyTorch peer, logs under $OUT. SKIP_TESTS=1 / SKIP_BENCH=1 / SKIP_TORCH=1 leave
# parts out; AB="variants" adds ab-run.sh (tenth session).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-400} $B/fp8c-unittests --gtest_filter="${TESTS:-*GpuTraining*:*GpuTransposed*:*GpuQuant*:TrainingGpuPlan*:TrainMlpGpuPlan*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -40
  grep -c "^\[       OK" $OUT/unittests.log
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  # The SM clock and power while the steps run (every 100 ms).
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 100 > $OUT/clocks.csv 2>&1 &
  CLOCKS=$!
  timeout ${BENCH_TIMEOUT:-190} $B/fp8c-train-bench --tokens=8192 --reps=20 --interleave --profile \
    --recipes=${RECIPES:-none,tensorwise,delayed} --json=$OUT/train-bench.json \
    examples/linear.mlir examples/mlp.mlir > $OUT/train-bench.txt 2>&1
  echo "train-bench exit status: $?" | tee -a $OUT/train-bench.txt
  grep -E "median|bound|step total" $OUT/train-bench.txt | head -60
  kill $CLOCKS 2>/dev/null
  awk -F', ' 'NR>1 && $2+0>0 {n++; s+=$2; if(min==""||$2+0<min)min=$2+0; if($2+0>max)max=$2+0; p+=$4} END {printf "SM clock during the bench: mean %.0f MHz, min %d, max %d over %d samples; mean power %.0f W\n", s/n, min, max, n, p/n}' $OUT/clocks.csv | tee $OUT/clocks-summary.txt
fi
if [ -z "${SKIP_TORCH:-}" ]; then
  export PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1
  timeout 130 python3 bench/peers/torch_train.py --json $OUT/torch-train.json --tokens 8192 --reps 20 > $OUT/torch-train.txt 2>&1
  echo "torch exit status: $?" | tee -a $OUT/torch-train.txt
  grep -E "median" $OUT/torch-train.txt
fi
if [ -n "${AB:-}" ]; then
  VARIANTS="$AB" bash bench/results/h200-2026-11-21r-prefetch/ab-run.sh | grep -v "^kernel_ab on"
fi
