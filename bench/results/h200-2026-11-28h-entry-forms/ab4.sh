#!/usr/bin/env bash
# Call 8: at HEAD (50385f2), kernel_ab after an 8192^3 GEMM, 8192 tokens: the plain
# cast-transposes with the next tile's loads issued ahead (transpose.cuh's kPrefetch for every
# launch without per-output-row scales, not only those with column sums), and the delayed
# gelu_grad allowed 128 registers ("256, 2"); prefetch6: the prefetching launches held to 40
# registers ("256, 6").
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
H=/tmp/h-head P=/tmp/h-prefetch && rm -rf $H $P && mkdir -p $H $P
cp -r codegen/kernels $H/fp8c && cp -r codegen/kernels $P/fp8c
sed -i 's/constexpr bool kPrefetch = kUnits \&\& !kOutRows;/constexpr bool kPrefetch = !kOutRows;/' $P/fp8c/transpose.cuh
grep -q "kPrefetch = !kOutRows;" $P/fp8c/transpose.cuh || { echo "sed failed"; exit 1; }
for g in mlp linear; do
  ./build-gpu/bin/fp8c examples/$g.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > /tmp/$g-delayed.cu
done
AB="--reps ${REPS:-40} --after-gemm 8192"
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_fwd_k0_cast_transpose \
  --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_fwd_k2_cast_transpose \
  --variant head=$H --variant prefetch=$P --variant prefetch6=$P@256,6 2>&1 | tee -a $OUT/ab4.txt
python3 bench/kernel_ab.py /tmp/linear-delayed.cu $AB --kernel fp8c_linear_fwd_k0_cast_transpose \
  --kernel fp8c_linear_fwd_k1_cast_transpose \
  --variant head=$H --variant prefetch=$P --variant prefetch6=$P@256,6 2>&1 | tee -a $OUT/ab4.txt
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose \
  --variant head=$H --variant b2=$H@256,2 --variant b6=$H@256,6 2>&1 | tee -a $OUT/ab4.txt
