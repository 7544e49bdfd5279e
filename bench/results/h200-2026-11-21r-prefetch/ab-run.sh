#!/usr/bin/env bash
# One device call: bench/kernel_ab.py on the training steps' cast-transpose launches, each header
# variant under build-ab/<name>/fp8c (made on the build machine; NAME=DIR[@BOUNDS]), logs under $OUT.
# Launch names are those of 4ce2695 and later (1-ab-prefetch-fma and 2-ab-scaled-tile ran with the
# earlier plans: MLP_GELU=fp8c_mlp_fwd_k8_cast_transpose MLP_W2=fp8c_mlp_fwd_k6_cast_transpose
# LINEAR_X=fp8c_linear_fwd_k1_cast_transpose LINEAR_W=fp8c_linear_fwd_k3_cast_transpose).
set -uo pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
V=""; for d in ${VARIANTS:-head2 pf fma pff}; do V="$V --variant ${d%%=*}=$PWD/build-ab/${d#*=}"; done
timeout 200 python3 bench/kernel_ab.py build-ab/mlp_delayed.cu $V --reps ${REPS:-20} \
  --kernel ${MLP_GELU:-fp8c_mlp_fwd_k4_cast_transpose} --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel ${MLP_W2:-fp8c_mlp_fwd_k2_cast_transpose} --kernel fp8c_mlp_bwd_k0_cast_transpose 2>&1 | tee $OUT/ab-mlp.txt
timeout 150 python3 bench/kernel_ab.py build-ab/linear_delayed.cu $V --reps ${REPS:-20} \
  --kernel fp8c_linear_bwd_k0_cast_transpose --kernel ${LINEAR_X:-fp8c_linear_fwd_k0_cast_transpose} \
  --kernel ${LINEAR_W:-fp8c_linear_fwd_k1_cast_transpose} 2>&1 | tee $OUT/ab-linear.txt
[ -n "${TENSORWISE:-}" ] && timeout 150 python3 bench/kernel_ab.py build-ab/mlp_tensorwise.cu $V --reps ${REPS:-20} \
  --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k4_cast_transpose \
  --kernel fp8c_mlp_bwd_k3_cast_transpose 2>&1 | tee $OUT/ab-mlp-tensorwise.txt
true
