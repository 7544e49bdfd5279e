#!/usr/bin/env bash
# One device call: Nsight Compute on the MLP delayed training step's cast-transpose launches
# (one step: the forward's four, the backward's two), logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
which ncu || ls /opt/nvidia/nsight-compute/*/ncu
timeout 400 ncu --clock-control none -k regex:cast_transpose -c 6 --set full -o $OUT/ct \
  $B/fp8c-train-bench --tokens=8192 --reps=1 --recipes=delayed examples/mlp.mlir > $OUT/ncu.txt 2>&1
echo "ncu exit status: $?" | tee -a $OUT/ncu.txt
tail -5 $OUT/ncu.txt
ncu -i $OUT/ct.ncu-rep --page details --print-units base > $OUT/details.txt 2>&1
grep -E "fp8c_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Achieved Occupancy|Registers Per|Theoretical Occupancy|L1/TEX Hit|Warp Cycles Per Issued|No Eligible|Executed Ipc A|Block Limit" $OUT/details.txt | head -150
