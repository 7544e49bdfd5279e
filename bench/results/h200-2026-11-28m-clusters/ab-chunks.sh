#!/usr/bin/env bash
# Call 4: kernel_ab after an 8192^3 GEMM, 8192 tokens, delayed MLP backward: the gelu_grad
# cast-transpose (k1_grad_fallback, 19 chunks generated) and the dY cast-transpose (k0, 32
# chunks) with their column-sum units split into other chunk counts (+chunks=N).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
H=/tmp/h-head && rm -rf $H && mkdir -p $H && cp -r codegen/kernels $H/fp8c
./build-gpu/bin/fp8c examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > /tmp/mlp-delayed.cu
AB="--reps ${REPS:-40} --after-gemm 8192"
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k1_grad_fallback \
  --variant head=$H --variant c8=$H+chunks=8 --variant c12=$H+chunks=12 --variant c26=$H+chunks=26 \
  --variant c32=$H+chunks=32 2>&1 | tee -a $OUT/ab-chunks.txt
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k0_cast_transpose \
  --variant head=$H --variant c16=$H+chunks=16 --variant c22=$H+chunks=22 --variant c64=$H+chunks=64 \
  2>&1 | tee -a $OUT/ab-chunks.txt
