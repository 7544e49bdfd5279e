#!/usr/bin/env bash
# kernel_ab after an 8192^3 GEMM: the launches where the skewed tile (fea3967) made ptxas spill
# at the launch's bounds (rowwise's per-output-row casts at "256, 4": 28 bytes; the tensorwise
# Linear's dY cast-transpose at "256": 8 bytes), against the committed base (04d1ae8) and the
# skew at other bounds: "256, 3" (80 registers, no spill) and "256, 4" (64, no spill for dY;
# the tensorwise MLP gelu_grad at 64 registers instead of 79).
set -uo pipefail
D=bench/results/h200-2026-11-28g-fp8-tables/ab
python3 bench/kernel_ab.py $D/rowwise.cu --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose \
  --variant base=$D/base --variant skew=$D/skew --variant skew3=$D/skew@256,3 \
  --reps 40 --after-gemm 8192 2>&1 | tee $OUT/ab2-rowwise.txt
python3 bench/kernel_ab.py $D/linear_tw.cu --kernel fp8c_linear_bwd_k0_cast_transpose \
  --variant base=$D/base --variant skew=$D/skew --variant skew4=$D/skew@256,4 \
  --reps 40 --after-gemm 8192 2>&1 | tee $OUT/ab2-linear-tensorwise.txt
python3 bench/kernel_ab.py $D/tw.cu --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose \
  --variant base=$D/base --variant skew=$D/skew --variant skew4=$D/skew@256,4 \
  --reps 40 --after-gemm 8192 2>&1 | tee $OUT/ab2-mlp-tensorwise.txt
