#!/usr/bin/env bash
# kernel_ab of the training steps' cast-transposes: HEAD's headers (build-ab/base, loads at
# their use or one tile in registers) against the cp.async ring of rows_stage.cuh at 2, 3 and
# 4 stages (build-ab/sN: the working tree's headers with SpecDefaults::kStages = N). Sources:
# build-ab/{mlp,linear}_delayed.cu, mlp_tensorwise.cu, mlp_rowwise.cu (fp8c --train
# --tokens=8192 --emit=cuda). Outputs are compared byte for byte against base. Logs under $OUT.
set -uo pipefail
run() { # file, kernels...
  local V=""; for v in ${VARIANTS:-base s2 s3 s4}; do V="$V --variant $v=$PWD/build-ab/$v"; done
  local f=$1; shift
  local K=""; for k in "$@"; do K="$K --kernel $k"; done
  timeout 300 python3 bench/kernel_ab.py build-ab/$f $V --reps ${REPS:-20} $K 2>&1 | tee -a $OUT/ab-stage.txt
}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
run mlp_delayed.cu fp8c_mlp_fwd_k0_cast_transpose fp8c_mlp_fwd_k1_cast_transpose fp8c_mlp_bwd_k0_cast_transpose fp8c_mlp_bwd_k1_grad_fallback
run linear_delayed.cu fp8c_linear_bwd_k0_cast_transpose
run mlp_tensorwise.cu fp8c_mlp_fwd_k0_cast_transpose fp8c_mlp_fwd_k1_cast_transpose fp8c_mlp_fwd_k4_cast_transpose fp8c_mlp_bwd_k3_cast_transpose fp8c_mlp_bwd_k0_cast_transpose
VARIANTS="base s3" run mlp_rowwise.cu fp8c_mlp_fwd_k4_cast_transpose fp8c_mlp_fwd_k1_cast_transpose fp8c_mlp_fwd_k0_cast_transpose
