#!/usr/bin/env bash
# One device call: Nsight Compute on the plain e4m3 GEMM, cuBLASLt's kernel against the generated
# one (cooperative 128 x 256 x 4 and ping-pong 128 x 128 x 6), at SHAPE (default 8192^3), logs
# under $OUT. The bench's first kernel is cuBLASLt's (operands are filled by host copies).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
SHAPE=${SHAPE:-8192 8192 8192}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
BENCH="$B/fp8c-gemm-bench --quick --shape $SHAPE --epilogue-shape 128 128 128 --cast-shape 128 128 128"
# Warm the kernel cache (NVRTC) and print the timings outside ncu.
$BENCH > $OUT/bench.txt 2>&1; echo "bench exit status: $?" >> $OUT/bench.txt
grep -E "cuBLASLt|generated|best" $OUT/bench.txt | head -12
run() { # name, ncu filter args...
  local name=$1; shift
  timeout 200 $NCU --clock-control none "$@" --set full -o /tmp/$name $BENCH > /tmp/ncu-$name.txt 2>&1
  echo "ncu $name exit status: $?" | tee -a $OUT/ncu.txt
  grep -E "==PROF==|==ERROR==|==WARNING==" /tmp/ncu-$name.txt | head -5 >> $OUT/ncu.txt
  echo "===== $name" >> $OUT/details.txt
  $NCU -i /tmp/$name.ncu-rep --page details --print-units base >> $OUT/details.txt 2>&1
}
run lt -c 1
run coop -k regex:fp8c_gemm -c 1
run pp -k regex:_pp -c 1
for n in lt coop pp; do
  echo "== $n"
  sed -n "/^===== $n/,/^===== /p" $OUT/details.txt | grep -E "^  [a-zA-Z_]|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\)|Issue Slots Busy|Executed Ipc Active|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Grid Size|Block Size|Cluster Size|Waves Per SM|Achieved Occupancy|SM Frequency|Warp Cycles Per Issued|L2 Hit Rate|One or More Eligible|No Eligible" | head -40
done
# Tensor pipe and stall breakdown, raw.
for n in lt coop pp; do
  echo "===== $n" >> $OUT/raw.txt
  $NCU -i /tmp/$n.ncu-rep --page raw --print-units base 2>/dev/null | grep -E "launch__func|gpu__time_duration.sum|sm__pipe_tensor_op_gmma_cycles_active.avg.pct|sm__inst_executed_pipe_tensor|smsp__average_warp|smsp__pcsamp_warps_issue_stalled_[a-z_]+ |l1tex__data_pipe_lsu_wavefronts_mem_shared.sum |lts__t_bytes.sum |dram__bytes_read.sum |dram__bytes_write.sum |sm__cycles_elapsed.avg.per_second|launch__cluster|launch__grid_size|launch__registers|launch__shared_mem" >> $OUT/raw.txt
done
wc -l $OUT/raw.txt
ls -la $OUT
