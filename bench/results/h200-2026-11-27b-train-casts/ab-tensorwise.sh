#!/usr/bin/env bash
# kernel_ab of the tensorwise MLP training step's cooperative cast-transposes: build-ab/old (the
# kernel headers of b461550) against build-ab/cur (the working tree's), outputs compared.
set -uo pipefail
timeout 300 python3 bench/kernel_ab.py build-ab/mlp_tensorwise.cu --variant old=$PWD/build-ab/old \
  --variant cur=$PWD/build-ab/cur --reps ${REPS:-20} --kernel fp8c_mlp_fwd_k0_cast_transpose \
  --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_fwd_k4_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose --kernel fp8c_mlp_bwd_k3_cast_transpose 2>&1 | tee $OUT/ab-tensorwise.txt
