#!/usr/bin/env bash
# Fortieth session: Nsight Compute (clocks locked to base, near a sustained step's capped clock)
# on the step's cast-transposes in kernel_ab: the Linear's dY, W, the MLP's gelu_grad, and the
# rowonly probe of dY (ct-clock.sh's variant without the transposed copy). Run from the
# repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/ncuct-$$
for v in gen rowonly; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
python3 - $W <<'PY'
import sys
w = sys.argv[1]
p = f"{w}/rowonly/fp8c/transpose_bytes.cuh"
s = open(p).read()
anchor = "  u32 *t = reinterpret_cast<u32 *>(stage);"
assert anchor in s
s = s.replace(anchor, "  if (true) return; // probe: no transposed copy\n" + anchor)
open(p, "w").write(s)
PY
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
run() { # tag file kernel variant
  timeout 200 $NCU --set full -k regex:ab_entry -s 3 -c 1 -o $OUT/$1 \
    python3 bench/kernel_ab.py --reps 2 $W/$2 --kernel $3 --variant $4=$W/$4 > $OUT/$1.log 2>&1
  echo "$1 ncu exit status: $?"
  $NCU --import $OUT/$1.ncu-rep --page details > $OUT/$1.txt 2>&1
  grep -E "Duration|SM Frequency|DRAM Throughput|Memory Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Executed Ipc A|Block Limit Reg|No Eligible|Active Warps Per" $OUT/$1.txt | head -20
  $NCU --import $OUT/$1.ncu-rep --page raw --csv 2>/dev/null > $W/$1.csv
  python3 - $W/$1.csv <<'PY2'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[0], rows[2] if len(rows) > 2 else rows[-1]
stalls = [(h, data[i]) for i, h in enumerate(hdr) if "issue_stalled" in h and "pct" not in h and h.endswith("per_warp_active.ratio") is False]
keep = [(h, v) for h, v in stalls if h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio")]
keep.sort(key=lambda hv: -float(hv[1].replace(",", "") or 0))
for h, v in keep[:10]:
    print("   ", h.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), v)
PY2
  rm -f $OUT/$1.ncu-rep
}
run dy lin.cu fp8c_linear_bwd_k0_cast_transpose gen
run dyrow lin.cu fp8c_linear_bwd_k0_cast_transpose rowonly
run gg mlp.cu fp8c_mlp_bwd_k1_grad_fallback gen
