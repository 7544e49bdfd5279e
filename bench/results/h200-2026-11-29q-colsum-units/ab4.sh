#!/usr/bin/env bash
# Thirty-seventh session, call 6: the byte-staged cast-transpose with two tiles' loads in flight
# for one input (kAhead, a ring of registers, each loop unrolled by it; the column-sum units'
# loop flattened: ahead2.patch here, not kept) against the same code at one tile (a1) and against
# d90a2d4's kernels (c1, as committed), at the generated launch bounds and at 256,3 / 256,4, in
# kernel_ab after a GEMM (the delayed steps' launches at 8192 tokens). Run from the repository
# root at d90a2d4 or f5b642d (the same transpose_bytes.cuh). (As run in call 6, the tree held
# the patched file and c1 reversed it; the variants are the same.)
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29q-colsum-units
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in c1 a1 a2; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
for v in a1 a2; do (cd $W/$v/fp8c && patch -s -p3 < $OLDPWD/$D/ahead2.patch) || exit 1; done
sed -i 's/return Spec::kNumIn == 1 ? 2 : 1;/return 1;/' $W/a1/fp8c/transpose_bytes.cuh
grep -c "return 1;" $W/a1/fp8c/transpose_bytes.cuh
B=build-gpu/bin/fp8c
for f in linear mlp; do $B examples/$f.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/$f.cu || exit 1; done
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-25}"
V="--variant c1=$W/c1 --variant a1=$W/a1 --variant a2=$W/a2 --variant a2b3=$W/a2@256,3 --variant a2b4=$W/a2@256,4"
timeout 200 $AB $W/mlp.cu --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose $V > $OUT/ab-mlp.txt 2>&1
echo "mlp exit status: $?"
timeout 150 $AB $W/linear.cu --kernel fp8c_linear_bwd_k0_cast_transpose $V > $OUT/ab-linear.txt 2>&1
echo "linear exit status: $?"
timeout 120 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --variant c1=$W/c1 --variant a1=$W/a1 \
  > $OUT/ab-gelu-grad.txt 2>&1
echo "gelu_grad exit status: $?"
grep -E "MB of tensors|median|differ|diff" $OUT/ab-*.txt | grep -v " 0 of \|= 0$\|colsum_" | cut -c1-150
