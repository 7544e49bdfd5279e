#!/usr/bin/env bash
# Where the delayed step's column-sum cast-transposes lose time in the step: the gelu_grad
# launch after the MLP's dgrad GEMM took ~280 us in train-bench's per-launch profile and
# 211 us alone (kernel_ab), the Linear's dY cast 200 against 153 us. (1) train-bench none /
# delayed --profile with the SM clock sampled; (2) Nsight Compute on those two launches inside
# the step (caches and clocks left alone); (3) the same launches alone under kernel_ab and ncu.
# Needs build-gpu (bin, lib) and build-ab/{mlp,linear}_delayed.cu, build-ab/base. Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv -lms 50 > $OUT/clocks.csv &
SMI=$!
timeout 300 ./build-gpu/bin/fp8c-train-bench --tokens=8192 --reps=10 --interleave --recipes=none,delayed --profile examples/linear.mlir examples/mlp.mlir > $OUT/train.txt 2>&1
echo "train-bench exit status: $?"
kill $SMI
python3 - $OUT/clocks.csv <<'PY'
import sys
v=[int(l.split(',')[1].split()[0]) for l in open(sys.argv[1]).readlines()[1:] if 'MHz' in l]
busy=[x for x in v]
print(f"SM clock: mean {sum(v)/len(v):.0f} MHz, min {min(v)}, max {max(v)}, {len(v)} samples")
PY
grep -E "median|grad_fallback|_bwd_k0|_bwd_k1|step total" $OUT/train.txt | head -30
NCUB=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || ls /usr/local/cuda/bin/ncu)
echo "ncu: $NCUB"
S="--section SpeedOfLight --section Occupancy --section LaunchStats"
timeout 240 $NCUB --clock-control none --cache-control none -k regex:"grad_fallback|linear_bwd_k0_cast" -c 4 $S \
  ./build-gpu/bin/fp8c-train-bench --tokens=8192 --reps=1 --recipes=delayed examples/linear.mlir examples/mlp.mlir > $OUT/ncu-step.txt 2>&1
echo "ncu in step exit status: $?"
grep -E "fp8c_|Duration|DRAM Throughput|SM Frequency|Achieved Occupancy|Registers Per|Grid Size" $OUT/ncu-step.txt | head -40
for f in mlp_delayed.cu:fp8c_mlp_bwd_k1_grad_fallback linear_delayed.cu:fp8c_linear_bwd_k0_cast_transpose; do
  timeout 120 $NCUB --clock-control none --cache-control none -k regex:ab_entry -c 1 $S \
    python3 bench/kernel_ab.py build-ab/${f%%:*} --variant base=$PWD/build-ab/base --reps 1 --kernel ${f##*:} > $OUT/ncu-alone-${f##*:}.txt 2>&1
  grep -E "Duration|DRAM Throughput|SM Frequency|Achieved Occupancy|Registers Per|Grid Size" $OUT/ncu-alone-${f##*:}.txt | head -8
done
