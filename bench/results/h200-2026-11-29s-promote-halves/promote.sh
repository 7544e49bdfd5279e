#!/usr/bin/env bash
# Thirty-ninth session: the promoting GEMM (fast accumulation off: the training step's dgrad and
# wgrad) at the Linear's backward shapes, every cooperative tile against cuBLASLt with and
# without fast accumulation, the new 128 x 256 tile that promotes in two 128-column halves among
# them; its GPU test; then Nsight Compute on one launch of the 128 x 192 and the 128 x 256
# promoting kernels. Run from the repository root with OUT set; logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active \
  --format=csv -lms 250 > $OUT/clocks.csv 2>&1 &
SMI=$!
SHAPES=${SHAPES:---epilogue-shape 8192 14336 4096 --epilogue-shape 14336 8192 4096}
timeout ${T_PRECISE:-200} $B/fp8c-gemm-bench --no-plain --no-cast --variants precise $SHAPES \
  > $OUT/precise.txt 2>&1
echo "precise exit status: $?"
grep -E "M=|cuBLASLt|generated" $OUT/precise.txt | cut -c1-150
if [ -z "${NO_FAST:-}" ]; then
  timeout 150 $B/fp8c-gemm-bench --quick --no-cast --variants none --schedule cooperative \
    --shape 8192 14336 4096 --shape 14336 8192 4096 > $OUT/fast.txt 2>&1
  echo "fast exit status: $?"
  grep -E "M=|cuBLASLt|generated|best" $OUT/fast.txt | cut -c1-150
fi
if [ -n "${TESTS:-}" ]; then
  timeout 240 $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "tests exit status: $?"
  grep -E "^\[  (PASSED|FAILED) |OK \]|tests ran" $OUT/unittests.log | tail -12
fi
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
prof() { # name kernel-regex
  timeout 150 $NCU --clock-control none -k regex:$2 --launch-skip 2 -c 1 --set full \
    -o $OUT/ncu-$1 $B/fp8c-gemm-bench --no-plain --no-cast --variants precise \
    --schedule cooperative --epilogue-shape 8192 14336 4096 > $OUT/ncu-$1.log 2>&1
  echo "ncu $1 exit status: $?"
  $NCU -i $OUT/ncu-$1.ncu-rep --page details --print-units base > $OUT/ncu-$1.txt 2>&1
  grep -E "Duration|SM Frequency|Issue Slots Busy|Registers Per|Warp Cycles Per Issued|No Eligible|Executed Ipc A|Tensor|L2 Hit|DRAM Throughput|L1/TEX Hit|Local" $OUT/ncu-$1.txt | head -24
}
[ -n "$NCU" ] && [ -z "${NO_NCU:-}" ] && for x in ${NCU_KERNELS:-n192_s5_o0_promote n256_s4_o._promote}; do prof ${x//[^a-z0-9]/} $x; done
rm -f $OUT/*.ncu-rep
kill $SMI
