#!/usr/bin/env bash
# kernel_ab: the MLP step's cast-transposes with three versions of the kernel headers, after an
# 8192^3 GEMM (and the delayed ones also alone): base = 04d1ae8 (65-word tile, rows = thread / 4:
# two-way bank conflicts), skew = fea3967 (81-word skewed tile), remap = the tile row mapping of
# tileRowOf (65-word tile, conflict-free). The variant directories (copies of codegen/kernels
# at those commits) and the emitted CUDA (delayed.cu, tw.cu, rowwise.cu: `fp8c examples/mlp.mlir
# --train --recipe=R --tokens=8192 --emit=cuda`) sit in ab/ when it runs. Then the
# cast-transpose GPU tests on the build. Logs in $OUT.
set -uo pipefail
D=bench/results/h200-2026-11-28g-fp8-tables/ab
V="--variant base=$D/base --variant skew=$D/skew --variant remap=$D/remap"
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c-$$
for after in 0 8192; do
  python3 bench/kernel_ab.py $D/delayed.cu --kernel fp8c_mlp_fwd_k0_cast_transpose \
    --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_bwd_k0_cast_transpose \
    --kernel fp8c_mlp_bwd_k3_cast_transpose $V --reps 40 --after-gemm $after 2>&1 \
    | tee $OUT/ab-delayed-after$after.txt
done
python3 bench/kernel_ab.py $D/tw.cu --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k4_cast_transpose $V --reps 40 --after-gemm 8192 2>&1 \
  | tee $OUT/ab-tensorwise-after8192.txt
python3 bench/kernel_ab.py $D/rowwise.cu --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k0_cast_transpose $V --reps 30 --after-gemm 8192 2>&1 \
  | tee $OUT/ab-rowwise-after8192.txt
timeout ${TEST_TIMEOUT:-200} build-gpu/bin/fp8c-unittests --gtest_filter="${TESTS:-Shapes/GpuCastTransposeTest.*}" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?"; grep -E '^\[ +(FAILED|PASSED) |Failure' $OUT/unittests.log | head
