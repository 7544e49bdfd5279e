#!/usr/bin/env bash
# Call 3: the __grid_constant__ entry with other column-sum chunk counts (delayed MLP gelu_grad
# and dY), and the tensorwise MLP / delayed Linear launches whose registers the form changes
# little. kernel_ab after an 8192^3 GEMM, 8192 tokens.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
H=/tmp/headers && rm -rf $H && mkdir -p $H && cp -r codegen/kernels $H/fp8c
for r in delayed tensorwise; do
  ./build-gpu/bin/fp8c examples/mlp.mlir --train --recipe=$r --tokens=8192 --emit=cuda > /tmp/mlp-$r.cu
done
./build-gpu/bin/fp8c examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > /tmp/linear-delayed.cu
AB="--reps ${REPS:-40} --after-gemm 8192"
G=$H+entry=gridconst
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --variant args=$H --variant gc=$G --variant gc_c8=$G+chunks=8 --variant gc_c12=$G+chunks=12 \
  --variant gc_c16=$G+chunks=16 --variant gc3=$H@256,3+entry=gridconst 2>&1 | tee $OUT/ab-gelu-grad-chunks.txt
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k0_cast_transpose \
  --variant args=$H --variant gc=$G --variant gc_c16=$G+chunks=16 --variant gc_c33=$G+chunks=33 \
  --variant gc_c44=$G+chunks=44 2>&1 | tee $OUT/ab-dy-chunks.txt
python3 bench/kernel_ab.py /tmp/mlp-tensorwise.cu $AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k4_cast_transpose \
  --variant args=$H --variant gc=$G 2>&1 | tee $OUT/ab-tensorwise.txt
python3 bench/kernel_ab.py /tmp/linear-delayed.cu $AB --kernel fp8c_linear_bwd_k0_cast_transpose \
  --kernel fp8c_linear_fwd_k1_cast_transpose \
  --variant args=$H --variant gc=$G 2>&1 | tee $OUT/ab-linear-delayed.txt
