#!/usr/bin/env bash
# kernel_ab: the MLP step's cast-transposes with the committed 65-word tile (base) against the
# bank-conflict-free skewed tile (skew), standalone and after an 8192^3 GEMM; then the
# cast-transpose GPU tests and fp8c-train-bench on the build (skew). Logs in $OUT.
set -uo pipefail
D=bench/results/h200-2026-11-28g-fp8-tables/ab
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c-$$
for after in 0 8192; do
  python3 bench/kernel_ab.py $D/delayed.cu --kernel fp8c_mlp_fwd_k0_cast_transpose \
    --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_bwd_k0_cast_transpose \
    --kernel fp8c_mlp_bwd_k3_cast_transpose --variant base=$D/base --variant skew=$D/skew \
    --reps 40 --after-gemm $after 2>&1 | tee $OUT/ab-delayed-after$after.txt
done
python3 bench/kernel_ab.py $D/tw.cu --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k4_cast_transpose --variant base=$D/base --variant skew=$D/skew \
  --reps 40 --after-gemm 8192 2>&1 | tee $OUT/ab-tensorwise-after8192.txt
timeout 120 build-gpu/bin/fp8c-unittests --gtest_filter='Shapes/GpuCastTransposeTest.*' > $OUT/unittests.log 2>&1
echo "unittests exit status: $?"; grep -E '^\[ +(FAILED|PASSED) |Failure' $OUT/unittests.log | head
