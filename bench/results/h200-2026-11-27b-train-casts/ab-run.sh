#!/usr/bin/env bash
# kernel_ab of the rowwise MLP training step's cast-transpose pairs (kRowCast) at several launch
# bounds, and (NCU=1) one Nsight Compute profile of KERNEL. Inputs: build-ab/mlp_rowwise.cu
# (fp8c examples/mlp.mlir --train --recipe=rowwise --tokens=8192 --emit=cuda) and build-ab/cur
# (a copy of codegen/kernels under fp8c/). Logs under $OUT.
set -uo pipefail
V=""
for b in ${BOUNDS:-256,4 256,3 256,5 256,6}; do V="$V --variant b${b/,/_}=$PWD/build-ab/cur@$b"; done
timeout 300 python3 bench/kernel_ab.py build-ab/mlp_rowwise.cu $V --reps ${REPS:-20} \
  --kernel fp8c_mlp_fwd_k4_cast_transpose --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_fwd_k0_cast_transpose 2>&1 | tee $OUT/ab-rowwise.txt
if [ -n "${NCU:-}" ]; then
  K=${KERNEL:-fp8c_mlp_fwd_k4_cast_transpose}
  NCUB=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
  timeout 200 $NCUB --clock-control none -k regex:ab_entry -c 1 --set full -o /tmp/ab \
    python3 bench/kernel_ab.py build-ab/mlp_rowwise.cu --variant cur=$PWD/build-ab/cur --reps 1 --kernel $K > $OUT/ncu-run.txt 2>&1
  echo "ncu exit status: $?"
  $NCUB -i /tmp/ab.ncu-rep --page details --print-units base > $OUT/details.txt 2>&1
  grep -E "Duration|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Registers Per|Achieved Occupancy|SM Frequency|Executed Ipc|Warp Cycles Per Issued|Stall" $OUT/details.txt | head -40
fi
