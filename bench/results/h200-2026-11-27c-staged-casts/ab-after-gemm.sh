#!/usr/bin/env bash
# Do the delayed step's cast-transposes run slower right after a GEMM (as in the step) than
# alone? kernel_ab of HEAD's headers (build-ab/base) without and with an untimed f16 matmul
# (8192^3) before each timed launch, at the generated bounds and at 256,6. Logs in $OUT.
set -uo pipefail
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
V="--variant base=$PWD/build-ab/base --variant b6=$PWD/build-ab/base@256,6"
for g in 0 8192; do
  echo "== after-gemm $g" | tee -a $OUT/ab-after-gemm.txt
  timeout 200 python3 bench/kernel_ab.py build-ab/linear_delayed.cu $V --reps 20 --after-gemm $g \
    --kernel fp8c_linear_bwd_k0_cast_transpose --kernel fp8c_linear_fwd_k0_cast_transpose 2>&1 | grep -v "differ\|diff|" | tee -a $OUT/ab-after-gemm.txt
  timeout 200 python3 bench/kernel_ab.py build-ab/mlp_delayed.cu $V --reps 20 --after-gemm $g \
    --kernel fp8c_mlp_bwd_k1_grad_fallback --kernel fp8c_mlp_fwd_k1_cast_transpose 2>&1 | grep -v "differ\|diff|" | tee -a $OUT/ab-after-gemm.txt
done
