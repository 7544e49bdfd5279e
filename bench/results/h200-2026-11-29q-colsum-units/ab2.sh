#!/usr/bin/env bash
# Thirty-seventh session, call 2: the byte-staged units loop with one load site (the working
# tree's transpose_bytes.cuh) against call 1's (transpose_bytes_head.cuh, HEAD f12eabc's file,
# to be written here with `git show f12eabc:codegen/kernels/transpose_bytes.cuh` first) and
# the general form, on the delayed steps' column-sum launches, in kernel_ab after a GEMM; the
# one-input launches (dY) with fits() relaxed to take them. Then Nsight Compute on the new
# gelu_grad launch. Run from the repository root with OUT set; logs in $OUT (tarred SASS/ncu).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29q-colsum-units
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in general new old newdy olddy; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
sed -i 's/if constexpr (Spec::kByteStaged)/if constexpr (false)/' $W/general/fp8c/transpose.cuh
cp $D/transpose_bytes_head.cuh $W/old/fp8c/transpose_bytes.cuh
cp $D/transpose_bytes_head.cuh $W/olddy/fp8c/transpose_bytes.cuh
for v in newdy olddy; do
  sed -i 's/return ((Spec::kNumIn == 1 \&\& Spec::kColSum.buf < 0) ||/return ((Spec::kNumIn == 1) ||/' \
    $W/$v/fp8c/transpose_bytes.cuh
  grep -c "kNumIn == 1) ||" $W/$v/fp8c/transpose_bytes.cuh
done
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
python3 - $W/lin.cu $W/mlp.cu <<'PY'
import sys
for p in sys.argv[1:]:
    t = open(p).read()
    i = t.find("_bwd_k0_cast_transpose ====="); j = t.find("static constexpr int kColChunks", i)
    assert i > 0 and j > 0
    open(p, "w").write(t[:j] + "static constexpr bool kByteStaged = true;\n  " + t[j:])
PY
mkdir -p $OUT/sass
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-25} --save-cubin $OUT/sass"
timeout 150 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --variant general=$W/general \
  --variant new=$W/new --variant old=$W/old --variant new8=$W/new+chunks=8 \
  --variant new32=$W/new+chunks=32 > $OUT/ab-mlp-gelu-grad.txt 2>&1
echo "gelu_grad exit status: $?"
timeout 150 $AB $W/lin.cu --kernel fp8c_linear_bwd_k0_cast_transpose --variant general=$W/general \
  --variant new16=$W/newdy+chunks=16 --variant new8=$W/newdy+chunks=8 --variant new32=$W/newdy+chunks=32 \
  --variant old16=$W/olddy+chunks=16 > $OUT/ab-linear-dy.txt 2>&1
echo "linear dY exit status: $?"
timeout 120 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k0_cast_transpose --variant general=$W/general \
  --variant new16=$W/newdy+chunks=16 --variant new8=$W/newdy+chunks=8 --variant new32=$W/newdy+chunks=32 \
  --variant old8=$W/olddy+chunks=8 > $OUT/ab-mlp-dy.txt 2>&1
echo "mlp dY exit status: $?"
grep -E "MB of tensors|median|differ|diff" $OUT/ab-*.txt | grep -v " 0 of \|= 0$\|colsum_" | cut -c1-150
for f in $OUT/sass/*.cubin; do cuobjdump -sass $f > ${f%.cubin}.sass 2>&1; rm -f $f; done
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
prof() { # name cuda kernel variant
  timeout 100 $NCU --clock-control none -k regex:ab_entry --launch-skip 1 -c 1 --set full \
    -o $OUT/ncu-$1 python3 bench/kernel_ab.py $2 --kernel $3 --variant $4 --reps 1 > $OUT/sass/ncu-$1.log 2>&1
  echo "ncu $1 exit status: $?"
  $NCU -i $OUT/ncu-$1.ncu-rep --page details --print-units base > $OUT/sass/ncu-$1.txt 2>&1
  $NCU -i $OUT/ncu-$1.ncu-rep --page source --csv --print-source sass > $OUT/sass/ncu-$1-sass.csv 2>&1
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued" $OUT/sass/ncu-$1.txt | head -12
  rm -f $OUT/ncu-$1.ncu-rep
}
[ -n "$NCU" ] && {
  prof gelu-grad-new $W/mlp.cu fp8c_mlp_bwd_k1_grad_fallback new=$W/new
  prof lin-dy-general $W/lin.cu fp8c_linear_bwd_k0_cast_transpose general=$W/general
  prof lin-dy-new8 $W/lin.cu fp8c_linear_bwd_k0_cast_transpose new8=$W/newdy+chunks=8
}
tar czf $OUT/sass-ncu.tgz -C $OUT sass && rm -rf $OUT/sass
ls -la $OUT
