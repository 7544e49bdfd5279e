#!/usr/bin/env bash
# Thirty-second session, one device call: the GPU tests named by TESTS, fp8c-gemm-bench with
# GEMM_ARGS, `fp8c-cublaslt-support
# --backward` (PROBE=1: cuBLASLt's DGELU / DGELU_BGRAD on the FP8 and on the bf16 dgrad GEMM),
# then fp8c-train-bench (ROUNDS interleaved rounds, --profile, TOKENS (8192), RECIPES, GRAPHS) for
# each build in BUILDS: build-gpu/bin/<build>/fp8c-train-bench, or build-gpu/bin/fp8c-train-bench
# for "new" (the build carried); TORCH=1: PyTorch's bf16 step after them. nvidia-smi logs
# clocks. Logs in $OUT (eight files at most).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-240} $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -30
fi
if [ -n "${GEMM_ARGS:-}" ]; then # fp8c-gemm-bench, e.g. the gelu_grad forms (--dgelu-shape)
  FP8C_CACHE_DIR=/tmp/cg-$$ timeout ${GEMM_TIMEOUT:-200} $B/fp8c-gemm-bench $GEMM_ARGS > $OUT/gemm.txt 2>&1
  echo "gemm-bench exit status: $?"
  grep -E "gelu_grad|plain|fused" $OUT/gemm.txt | cut -c1-200 | head -20
fi
if [ "${PROBE:-0}" = 1 ]; then
  timeout ${PROBE_TIMEOUT:-150} $B/fp8c-cublaslt-support --backward > $OUT/probe.txt 2>&1
  echo "cublaslt-support exit status: $?"
  grep -E "bf16 x bf16|timed|median" $OUT/probe.txt | head -30
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
for tokens in ${TOKENS:-8192}; do
for build in ${BUILDS:-base new}; do
  bin=$B/fp8c-train-bench; [ $build != new ] && bin=$B/$build/fp8c-train-bench
  FP8C_CACHE_DIR=/tmp/c-$build-$$ timeout ${TRAIN_TIMEOUT:-200} $bin --tokens=$tokens --reps=${ROUNDS:-30} \
    --interleave --recipes=${RECIPES:-none,delayed} --profile --json=/dev/null \
    ${GRAPHS:-examples/mlp.mlir} > $OUT/train-$build-$tokens.txt 2>&1
  echo "train-bench $build exit status: $?"
  grep -E "median|fwd_k[2345]|bound" $OUT/train-$build-$tokens.txt | cut -c1-170 | head -40
done
done
if [ "${TORCH:-0}" = 1 ]; then # PyTorch's eager bf16 step, same call
  timeout ${TORCH_TIMEOUT:-200} python3 bench/peers/torch_train.py --json $OUT/torch.json --tokens 8192 \
    --reps ${TORCH_REPS:-30} --graphs linear,mlp --recipes "" > $OUT/torch.txt 2>&1
  echo "torch_train exit status: $?"
  grep -E "median" $OUT/torch.txt | head
fi
kill $SMI
gzip -f $OUT/clocks.csv
