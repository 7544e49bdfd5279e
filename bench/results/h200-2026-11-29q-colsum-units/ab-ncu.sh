#!/usr/bin/env bash
# Thirty-seventh session, call 1: the column-sum cast-transposes of the delayed steps (the
# Linear's dY with b's gradient, the MLP's gelu_grad with b1's) at other column-sum unit lengths,
# and the byte-staged form for one input with column sums, in kernel_ab after a GEMM; then
# Nsight Compute on one launch of each kept form (and the MLP's x, the fastest, for reference) and
# the SASS of every variant. Run from the repository root with OUT set; logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in general bytes bytesdy; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
sed -i 's/if constexpr (Spec::kByteStaged)/if constexpr (false)/' $W/general/fp8c/transpose.cuh
# bytesdy: fits() also takes one input with column sums.
sed -i 's/return ((Spec::kNumIn == 1 \&\& Spec::kColSum.buf < 0) ||/return ((Spec::kNumIn == 1) ||/' \
  $W/bytesdy/fp8c/transpose_bytes.cuh
grep -c "kNumIn == 1) ||" $W/bytesdy/fp8c/transpose_bytes.cuh
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
# The dY launches with kByteStaged in their Spec (the general variant ignores it).
python3 - $W/lin.cu $W/mlp.cu <<'PY'
import sys
for p in sys.argv[1:]:
    t = open(p).read()
    k = "_bwd_k0_cast_transpose ====="
    i = t.find(k); j = t.find("static constexpr int kColChunks", i)
    assert i > 0 and j > 0
    t = t[:j] + "static constexpr bool kByteStaged = true;\n  " + t[j:]
    open(p, "w").write(t)
PY
mkdir -p $OUT/sass
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-25} --save-cubin $OUT/sass"
timeout 150 $AB $W/lin.cu --kernel fp8c_linear_bwd_k0_cast_transpose --variant general=$W/general \
  --variant bytes16=$W/bytesdy+chunks=16 --variant bytes8=$W/bytesdy+chunks=8 \
  --variant bytes4=$W/bytesdy+chunks=4 --variant bytes32=$W/bytesdy+chunks=32 \
  --variant general10=$W/general+chunks=10 > $OUT/ab-linear-dy.txt 2>&1
echo "linear dY exit status: $?"
timeout 120 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k0_cast_transpose --variant general=$W/general \
  --variant bytes16=$W/bytesdy+chunks=16 --variant bytes8=$W/bytesdy+chunks=8 \
  --variant bytes32=$W/bytesdy+chunks=32 > $OUT/ab-mlp-dy.txt 2>&1
echo "mlp dY exit status: $?"
timeout 150 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --variant bytes=$W/bytes \
  --variant bytes8=$W/bytes+chunks=8 --variant bytes32=$W/bytes+chunks=32 \
  --variant bytes4=$W/bytes+chunks=4 --variant general=$W/general > $OUT/ab-mlp-gelu-grad.txt 2>&1
echo "gelu_grad exit status: $?"
grep -E "MB of tensors|median|differ|diff" $OUT/ab-*.txt | grep -v " 0 of " | cut -c1-150
for f in $OUT/sass/*.cubin; do cuobjdump -sass $f > ${f%.cubin}.sass 2>&1; rm -f $f; done
ls $OUT/sass | head -30
# Nsight Compute: one launch (the second round's) of each kernel's kept form.
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
prof() { # name cuda kernel variant
  timeout 100 $NCU --clock-control none -k regex:ab_entry --launch-skip 1 -c 1 --set full \
    -o $OUT/ncu-$1 python3 bench/kernel_ab.py $2 --kernel $3 --variant $4 --reps 1 > $OUT/ncu-$1.log 2>&1
  echo "ncu $1 exit status: $?"
  $NCU -i $OUT/ncu-$1.ncu-rep --page details --print-units base > $OUT/ncu-$1.txt 2>&1
  $NCU -i $OUT/ncu-$1.ncu-rep --page source --csv --print-source sass > $OUT/ncu-$1-sass.csv 2>&1
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|No Eligible|Executed Ipc A" $OUT/ncu-$1.txt | head -12
}
[ -n "$NCU" ] && {
  prof lin-dy-general $W/lin.cu fp8c_linear_bwd_k0_cast_transpose general=$W/general
  prof lin-dy-bytes8 $W/lin.cu fp8c_linear_bwd_k0_cast_transpose bytes8=$W/bytesdy+chunks=8
  prof gelu-grad $W/mlp.cu fp8c_mlp_bwd_k1_grad_fallback bytes=$W/bytes
  prof x $W/mlp.cu fp8c_mlp_fwd_k0_cast_transpose bytes=$W/bytes
}
rm -f $OUT/*.ncu-rep.gz; ls -la $OUT | head -40
