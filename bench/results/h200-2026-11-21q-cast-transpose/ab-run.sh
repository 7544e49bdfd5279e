#!/usr/bin/env bash
# One device call: bench/kernel_ab.py on the training steps' cast-transpose launches, each header
# variant under build-ab/<name>/fp8c (made on the build machine), logs under $OUT.
set -uo pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
V=""; for d in ${VARIANTS:-head headfast headfastpf byte bytepf}; do V="$V --variant ${d%%=*}=$PWD/build-ab/${d#*=}"; done
timeout 250 python3 bench/kernel_ab.py build-ab/mlp_delayed.cu $V --reps ${REPS:-20} \
  --kernel fp8c_mlp_fwd_k8_cast_transpose --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k6_cast_transpose --kernel fp8c_mlp_bwd_k0_cast_transpose 2>&1 | tee $OUT/ab-mlp.txt
timeout 120 python3 bench/kernel_ab.py build-ab/linear_delayed.cu $V --reps ${REPS:-20} \
  --kernel fp8c_linear_bwd_k0_cast_transpose --kernel fp8c_linear_fwd_k1_cast_transpose 2>&1 | tee $OUT/ab-linear.txt
