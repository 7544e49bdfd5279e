#!/usr/bin/env bash
# One device call: the delayed MLP backward's gelu_grad cast-transpose (fp8c_mlp_bwd_k1_grad_fallback)
# alone: kernel_ab timing of each header variant under build-ab/<name>/fp8c (VARIANTS, default
# cur), its SASS (build-ab/gelu_grad_ct.cubin, compiled by NVRTC on the build machine), and one
# Nsight Compute profile of the first variant. Logs under $OUT.
set -uo pipefail
K=${KERNEL:-fp8c_mlp_bwd_k1_grad_fallback}
V=""; for d in ${VARIANTS:-cur}; do V="$V --variant ${d%%=*}=$PWD/build-ab/${d#*=}"; done
cuobjdump -sass build-ab/gelu_grad_ct.cubin > $OUT/gelu_grad_ct.sass 2>&1; echo "cuobjdump exit status: $?"
grep -cE "^\s+/\*[0-9a-f]{4}\*/" $OUT/gelu_grad_ct.sass
timeout 150 python3 bench/kernel_ab.py build-ab/mlp_delayed.cu $V --reps ${REPS:-30} --kernel $K 2>&1 | tee $OUT/ab.txt
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
first=${VARIANTS:-cur}; first=${first%% *}
timeout 200 $NCU --clock-control none -k regex:ab_entry -c 1 --set full -o /tmp/ab \
  python3 bench/kernel_ab.py build-ab/mlp_delayed.cu --variant ${first%%=*}=$PWD/build-ab/${first#*=} --reps 1 --kernel $K > $OUT/ncu-run.txt 2>&1
echo "ncu exit status: $?"
$NCU -i /tmp/ab.ncu-rep --page details --print-units base > $OUT/details.txt 2>&1
$NCU -i /tmp/ab.ncu-rep --page raw --print-units base > $OUT/raw.txt 2>&1
$NCU -i /tmp/ab.ncu-rep --page source --csv --print-units base > $OUT/source.csv 2>&1
grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Issue Slots Busy|Executed Ipc|Registers Per|Achieved Occupancy|Theoretical Occupancy|SM Frequency|Warp Cycles Per Issued|No Eligible|One or More Eligible|Block Limit" $OUT/details.txt | head -30
grep -E "smsp__inst_executed.sum |smsp__pcsamp_warps_issue_stalled_[a-z_]+ |sm__inst_executed_pipe_[a-z_]+.sum |dram__bytes_read.sum |dram__bytes_write.sum " $OUT/raw.txt | sort -k3 -n -r | head -40
