#!/usr/bin/env bash
# kernel_ab after an 8192^3 GEMM, the delayed MLP step's cast-transposes (8192 tokens) as the
# runtime compiles them (Args by value) against other entry forms, launch bounds and column-sum
# chunk counts. Run from the repository root on the device with build-gpu/ carried.
set -uo pipefail
R=bench/results/h200-2026-11-28h-entry-forms
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
H=/tmp/headers && rm -rf $H && mkdir -p $H && cp -r codegen/kernels $H/fp8c
./build-gpu/bin/fp8c examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > /tmp/delayed.cu
AB="python3 bench/kernel_ab.py /tmp/delayed.cu --reps ${REPS:-40} --after-gemm 8192"
$AB --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --variant args=$H --variant args_c32=$H+chunks=32 --variant args_c64=$H+chunks=64 \
  --variant args_c128=$H+chunks=128 --variant gridconst=$H+entry=gridconst \
  --variant params=$H+entry=params 2>&1 | tee $OUT/ab-gelu-grad.txt
$AB --kernel fp8c_mlp_bwd_k0_cast_transpose \
  --variant args=$H --variant args_c128=$H+chunks=128 --variant gridconst=$H+entry=gridconst \
  --variant args6=$H@256,6 --variant args6_c128=$H@256,6+chunks=128 \
  --variant params=$H+entry=params 2>&1 | tee $OUT/ab-dy.txt
$AB --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose \
  --kernel fp8c_mlp_fwd_k2_cast_transpose \
  --variant args=$H --variant gridconst=$H+entry=gridconst --variant args6=$H@256,6 \
  --variant params=$H+entry=params 2>&1 | tee $OUT/ab-casts.txt
for c in $R/cubin/*.cubin; do cuobjdump -sass $c > $OUT/$(basename $c .cubin).sass 2>&1; done
