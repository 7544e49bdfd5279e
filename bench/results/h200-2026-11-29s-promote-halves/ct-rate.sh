#!/usr/bin/env bash
# Thirty-ninth session, call 11: the step's cast-transposes timed alone and after a GEMM
# (kernel_ab, their generated form), beside call 9's plain pass (3.99 TB/s alone): how much of
# their rate the transposed copy costs. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/ct-$$
mkdir -p $W/k/fp8c && cp codegen/kernels/*.cuh $W/k/fp8c/
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
AB="python3 bench/kernel_ab.py --reps ${REPS:-25}"
for mode in alone after; do
  extra=""; [ $mode = after ] && extra="--after-gemm 8192"
  for spec in "lin.cu fp8c_linear_bwd_k0_cast_transpose" "lin.cu fp8c_linear_fwd_k1_cast_transpose" \
              "mlp.cu fp8c_mlp_bwd_k1_grad_fallback" "mlp.cu fp8c_mlp_fwd_k0_cast_transpose"; do
    set -- $spec
    timeout 100 $AB $extra $W/$1 --kernel $2 --variant gen=$W/k > $OUT/$mode-$2.txt 2>&1
    echo "$mode $2 exit status: $?"
    grep -E "MB of tensors|median" $OUT/$mode-$2.txt | cut -c1-160
  done
done
