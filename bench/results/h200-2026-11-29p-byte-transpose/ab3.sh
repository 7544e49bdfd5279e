#!/usr/bin/env bash
# Thirty-sixth session, final code (9d5c5fd on): kernel_ab of the delayed MLP's byte-staged
# cast-transposes, interleaved, each after an untimed 8192^3 f16 matmul: `general` (HEAD's
# headers with the kByteStaged dispatch off), `bytes` (HEAD), `bytes4` (HEAD at launch bounds
# 256,4) and, for the one-input launches, `regs` (6792b15's one-input kernel,
# transpose_bytes_regs.cuh here). Then the GPU tests in TESTS, then (STEP=1) fp8c-train-bench
# --sustain over RECIPES (default none, delayed, delayed%no_byte_transpose). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29p-byte-transpose
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in general bytes regs; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
sed -i 's/if constexpr (Spec::kByteStaged)/if constexpr (false)/' $W/general/fp8c/transpose.cuh
cp $D/transpose_bytes_regs.cuh $W/regs/fp8c/transpose_bytes.cuh
build-gpu/bin/fp8c examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
V="--variant general=$W/general --variant bytes=$W/bytes --variant bytes4=$W/bytes@256,4"
timeout 200 python3 bench/kernel_ab.py $W/mlp.cu $V --variant regs=$W/regs --reps ${REPS:-30} --after-gemm 8192 \
  --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose > $OUT/ab-mlp-fwd.txt 2>&1
echo "kernel_ab fwd exit status: $?"
timeout 200 python3 bench/kernel_ab.py $W/mlp.cu $V --reps ${REPS:-30} --after-gemm 8192 \
  --kernel fp8c_mlp_bwd_k1_grad_fallback > $OUT/ab-mlp-bwd.txt 2>&1
echo "kernel_ab bwd exit status: $?"
grep -E "MB of tensors|median|differ|diff\|" $OUT/ab-mlp-*.txt | grep -v " 0 of " | cut -c1-160
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-200} build-gpu/bin/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED) |Failure|tests ran' $OUT/unittests.log | head -20
fi
if [ "${STEP:-0}" != 0 ]; then
  mkdir -p $OUT/step
  OUT=$OUT/step RECIPES=${RECIPES:-none,delayed,delayed%no_byte_transpose} BLOCKS=${BLOCKS:-5} BLOCK_MS=1500 \
    INTERLEAVE=0 TRAIN_TIMEOUT=300 PROFILE=${PROFILE:-} bash bench/results/h200-2026-11-28o-sustained/run.sh 2>&1 \
    | grep -E "median|exit" | cut -c1-140
fi
