#!/usr/bin/env bash
# Fortieth session: the step's cast-transposes at the power-capped clock a sustained step runs
# at (kernel_ab --soak-ms) against the same launches after one GEMM at boost clock, and against
# two probe variants of the byte-staged kernel (measurement only, not product code):
#   rowonly  - the untransposed copy, amax and column sums only (the transposed copy skipped):
#              what the launch would cost if a GEMM read the untransposed copy for both uses;
#   cs       - the generated kernel with streaming (evict-first) stores.
# Then Nsight Compute (clocks locked to base, near the capped clock) on the Linear's dY launch.
# Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
W=/tmp/ctc-$$
for v in gen rowonly cs; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
python3 - $W <<'PY'
import sys, re
w = sys.argv[1]
p = f"{w}/rowonly/fp8c/transpose_bytes.cuh"
s = open(p).read()
anchor = "  u32 *t = reinterpret_cast<u32 *>(stage);"
assert anchor in s
s = s.replace(anchor, "  if (true) return; // probe: no transposed copy\n" + anchor)
open(p, "w").write(s)
p = f"{w}/cs/fp8c/transpose_bytes.cuh"
s = open(p).read()
a1 = """        *reinterpret_cast<uint2 *>(static_cast<u8 *>(buf[Spec::kRowCastBuf]) +
                                   (r + j) * Spec::kRowCastLd + c) = make_uint2(w[j][0], w[j][1]);"""
assert a1 in s
s = s.replace(a1, """        asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" ::"l"(static_cast<u8 *>(buf[Spec::kRowCastBuf]) +
                                   (r + j) * Spec::kRowCastLd + c), "r"(w[j][0]), "r"(w[j][1]) : "memory");""")
a2 = "      *reinterpret_cast<uint4 *>(dst) = v;"
assert a2 in s
s = s.replace(a2, '      asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");')
open(p, "w").write(s)
PY
B=build-gpu/bin/fp8c
$B examples/linear.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/lin.cu || exit 1
$B examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/mlp.cu || exit 1
AB="python3 bench/kernel_ab.py --reps ${REPS:-15}"
V="--variant gen=$W/gen --variant rowonly=$W/rowonly --variant cs=$W/cs"
for mode in soak after; do
  extra="--after-gemm 8192"; [ $mode = soak ] && extra="--after-gemm 8192 --soak-ms ${SOAK_MS:-150}"
  for spec in "lin.cu fp8c_linear_bwd_k0_cast_transpose" "lin.cu fp8c_linear_fwd_k1_cast_transpose" \
              "mlp.cu fp8c_mlp_bwd_k1_grad_fallback" "mlp.cu fp8c_mlp_fwd_k0_cast_transpose"; do
    set -- $spec
    timeout 150 $AB $extra $W/$1 --kernel $2 $V > $OUT/$mode-$2.txt 2>&1
    echo "$mode $2 exit status: $?"
    grep -E "MB of tensors|median" $OUT/$mode-$2.txt | cut -c1-160
  done
done
if [ -z "${NO_NCU:-}" ]; then
  NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  timeout 240 $NCU --set full -k regex:cast_transpose -s 2 -c 1 -o $OUT/ncu-dy \
    python3 bench/kernel_ab.py --reps 1 $W/lin.cu --kernel fp8c_linear_bwd_k0_cast_transpose \
    --variant gen=$W/gen > $OUT/ncu-dy.log 2>&1
  echo "ncu exit status: $?"
  $NCU --import $OUT/ncu-dy.ncu-rep --page details > $OUT/ncu-dy-details.txt 2>&1
  grep -E "Duration|SM Frequency|DRAM Throughput|Memory Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued|L2 Hit|Executed Ipc" $OUT/ncu-dy-details.txt | head -40
  $NCU --import $OUT/ncu-dy.ncu-rep --page raw --csv 2>/dev/null | gzip > $OUT/ncu-dy-raw.csv.gz
fi
