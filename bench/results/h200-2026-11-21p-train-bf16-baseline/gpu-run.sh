#!/usr/bin/env bash
# One device call: the GPU tests this session touched, then the training step (interleaved, with
# per-launch profile) and the PyTorch peer, logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
[ -n "${SKIP_TESTS:-}" ] || timeout 250 $B/fp8c-unittests --gtest_filter='CublasLtGpu*:*GpuTransposed*:*GpuCudaGraph*:*GpuTrainingTest*none*:*GpuTrainingTest*delayed*:*GpuTrainingTest*mlp_small*:*GpuGemmBackend*' > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure|tests ran|^\[ transposed' $OUT/unittests.log | grep -v "^\[       OK" | head -60
grep -c "^\[       OK" $OUT/unittests.log
timeout 190 $B/fp8c-train-bench --tokens=8192 --reps=20 --interleave --profile --recipes=none,tensorwise,delayed \
  --json=$OUT/train-bench.json examples/linear.mlir examples/mlp.mlir > $OUT/train-bench.txt 2>&1
echo "train-bench exit status: $?" | tee -a $OUT/train-bench.txt
grep -E "median|bound|step total" $OUT/train-bench.txt
export PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1
timeout 130 python3 bench/peers/torch_train.py --json $OUT/torch-train.json --tokens 8192 --reps 20 > $OUT/torch-train.txt 2>&1
echo "torch exit status: $?" | tee -a $OUT/torch-train.txt
grep -E "median" $OUT/torch-train.txt
