#!/usr/bin/env bash
# Call 6: the column sums added from the transposed read's registers (colsum-reads.patch) against
# the second read of the tile (the patch reversed), kernel_ab after an 8192^3 GEMM at 8192
# tokens; then the cast-transpose GPU tests and fp8c-train-bench (MLP: none, delayed, delayed
# without the FP8 tables).
set -uo pipefail
R=bench/results/h200-2026-11-28h-entry-forms
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
N=/tmp/h-new B=/tmp/h-base && rm -rf $N $B && mkdir -p $N $B
cp -r codegen/kernels $N/fp8c && cp -r codegen/kernels $B/fp8c
(cd $B/fp8c && patch -s -R -p3 < $OLDPWD/$R/colsum-reads.patch) || { echo "patch -R failed"; exit 1; }
for g in mlp linear; do for r in delayed tensorwise; do
  ./build-gpu/bin/fp8c examples/$g.mlir --train --recipe=$r --tokens=8192 --emit=cuda > /tmp/$g-$r.cu
done; done
AB="--reps ${REPS:-40} --after-gemm 8192 --variant base=$B --variant new=$N"
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose 2>&1 | tee -a $OUT/ab3.txt
python3 bench/kernel_ab.py /tmp/linear-delayed.cu $AB --kernel fp8c_linear_bwd_k0_cast_transpose \
  2>&1 | tee -a $OUT/ab3.txt
python3 bench/kernel_ab.py /tmp/mlp-tensorwise.cu $AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose 2>&1 | tee -a $OUT/ab3.txt
python3 bench/kernel_ab.py /tmp/linear-tensorwise.cu $AB --kernel fp8c_linear_bwd_k0_cast_transpose \
  2>&1 | tee -a $OUT/ab3.txt
