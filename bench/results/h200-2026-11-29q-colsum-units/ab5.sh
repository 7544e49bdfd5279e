#!/usr/bin/env bash
# Thirty-seventh session, call 9: call 6's variants (one tile of loads in flight, c1 = the tree as
# committed at f5b642d; a2 = ahead2.patch, two tiles for one input; a1 = a2 at one tile) timed
# by kernel_ab at the clock of a sustained, power-capped step: --soak-ms runs a random 8192^3 f16
# matmul back to back for about SOAK ms before each timed launch; nvidia-smi logs the SM clock.
# Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29q-colsum-units
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in c1 a1 a2; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
for v in a1 a2; do (cd $W/$v/fp8c && patch -s -p3 < $OLDPWD/$D/ahead2.patch) || exit 1; done
sed -i 's/return Spec::kNumIn == 1 ? 2 : 1;/return 1;/' $W/a1/fp8c/transpose_bytes.cuh
B=build-gpu/bin/fp8c
for f in linear mlp; do $B examples/$f.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/$f.cu || exit 1; done
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 50 > $OUT/clocks.csv 2>&1 &
SMI=$!
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-12} --soak-ms ${SOAK:-100}"
V="--variant c1=$W/c1 --variant a1=$W/a1 --variant a2=$W/a2 --variant a2b3=$W/a2@256,3"
timeout 250 $AB $W/mlp.cu --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose \
  --kernel fp8c_mlp_bwd_k0_cast_transpose $V > $OUT/ab-mlp-soak.txt 2>&1
echo "mlp exit status: $?"
timeout 120 $AB $W/linear.cu --kernel fp8c_linear_bwd_k0_cast_transpose $V > $OUT/ab-linear-soak.txt 2>&1
echo "linear exit status: $?"
timeout 120 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --variant c1=$W/c1 \
  --variant c1b4=$W/c1@256,4 > $OUT/ab-gelu-grad-soak.txt 2>&1
echo "gelu_grad exit status: $?"
kill $SMI
awk -F', ' 'NR>1 && $2+0>0 {n++; s+=$2; if ($2<mn||mn==0) mn=$2; if ($2>mx) mx=$2} END {print "SM clock samples", n, "mean", s/n, "min", mn, "max", mx}' $OUT/clocks.csv
gzip -f $OUT/clocks.csv
grep -E "MB of tensors|median|differ" $OUT/ab-*.txt | grep -v " 0 of " | cut -c1-150
