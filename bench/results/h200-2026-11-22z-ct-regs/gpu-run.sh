#!/usr/bin/env bash
# One device call of the eighteenth session (the cast-transpose through registers):
#   AB=1: kernel_ab timings and output comparison of the cast-transpose launches of the delayed
#         and tensorwise MLP training step (8192 tokens), header variants build-ab/old (HEAD
#         before the change, launch bounds 256) and build-ab/cur (the working tree), plus
#         cuobjdump of build-ab/*.cubin; NCU=1 adds one Nsight Compute profile of KERNEL;
#   the GPU tests named by TESTS (unless SKIP_TESTS=1);
#   BENCH=1: fp8c-train-bench (interleaved, per-launch profile) on RECIPES for the Linear and
#         the MLP, with the SM clock sampled; TORCH=1 adds bench/peers/torch_train.py.
# Logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -n "${AB:-}" ]; then
  for c in build-ab/*.cubin; do
    [ -e "$c" ] || continue
    cuobjdump -sass $c > $OUT/$(basename $c .cubin).sass 2>&1
    echo "$(basename $c): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $OUT/$(basename $c .cubin).sass) SASS instructions"
  done
  V="--variant old=$PWD/build-ab/old@256 --variant cur=$PWD/build-ab/cur ${AB_EXTRA:-}"
  timeout 200 python3 bench/kernel_ab.py build-ab/mlp_delayed.cu $V --reps ${REPS:-30} \
    --kernel fp8c_mlp_bwd_k1_grad_fallback --kernel fp8c_mlp_fwd_k0_cast_transpose \
    --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_bwd_k0_cast_transpose 2>&1 | tee $OUT/ab-delayed.txt
  timeout 150 python3 bench/kernel_ab.py build-ab/mlp_tensorwise.cu $V --reps ${REPS:-30} \
    --kernel fp8c_mlp_bwd_k3_cast_transpose --kernel fp8c_mlp_fwd_k4_cast_transpose \
    --kernel fp8c_mlp_fwd_k0_cast_transpose 2>&1 | tee $OUT/ab-tensorwise.txt
fi
if [ -n "${NCU:-}" ]; then
  K=${KERNEL:-fp8c_mlp_bwd_k1_grad_fallback}
  NCUB=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
  timeout 200 $NCUB --clock-control none -k regex:ab_entry -c 1 --set full -o /tmp/ab \
    python3 bench/kernel_ab.py build-ab/mlp_delayed.cu --variant cur=$PWD/build-ab/cur --reps 1 --kernel $K > $OUT/ncu-run.txt 2>&1
  echo "ncu exit status: $?"
  $NCUB -i /tmp/ab.ncu-rep --page details --print-units base > $OUT/details.txt 2>&1
  $NCUB -i /tmp/ab.ncu-rep --page raw --print-units base > $OUT/raw.txt 2>&1
  grep -E "Duration|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Registers Per|Achieved Occupancy|SM Frequency" $OUT/details.txt | head -20
  grep -E "smsp__inst_executed.sum |dram__bytes_read.sum |dram__bytes_write.sum " $OUT/raw.txt | head
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-*GpuCastTranspose*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran|cast-transpose \]' $OUT/unittests.log | head -60
fi
if [ -n "${BENCH:-}" ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 100 > $OUT/clocks.csv 2>&1 &
  CLOCKS=$!
  timeout ${BENCH_TIMEOUT:-220} $B/fp8c-train-bench --tokens=8192 --reps=20 --interleave --profile \
    --recipes=${RECIPES:-none,tensorwise,delayed} --json=$OUT/train-bench.json \
    examples/linear.mlir examples/mlp.mlir > $OUT/train-bench.txt 2>&1
  echo "train-bench exit status: $?" | tee -a $OUT/train-bench.txt
  grep -E "median|bound|step total|cast_transpo|grad_fallback" $OUT/train-bench.txt | head -80
  kill $CLOCKS 2>/dev/null
  awk -F', ' 'NR>1 && $2+0>0 {n++; s+=$2; if(min==""||$2+0<min)min=$2+0; if($2+0>max)max=$2+0; p+=$4} END {printf "SM clock during the bench: mean %.0f MHz, min %d, max %d over %d samples; mean power %.0f W\n", s/n, min, max, n, p/n}' $OUT/clocks.csv | tee $OUT/clocks-summary.txt
fi
if [ -n "${TORCH:-}" ]; then
  export PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1
  timeout 130 python3 bench/peers/torch_train.py --json $OUT/torch-train.json --tokens 8192 --reps 20 > $OUT/torch-train.txt 2>&1
  echo "torch exit status: $?" | tee -a $OUT/torch-train.txt
  grep -E "median" $OUT/torch-train.txt
fi
