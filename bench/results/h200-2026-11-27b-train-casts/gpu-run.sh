#!/usr/bin/env bash
# One device call of the twenty-second session (tensorwise training step):
#   the GPU tests named by TESTS (unless SKIP_TESTS=1);
#   BENCH=1: fp8c-bench on ONLY (shapes) x RECIPES x VARIANTS with the new build
#         (build-gpu/bin) and, when build-ab/fp8c-bench-old exists, the build before the change,
#         alternating old / new ROUNDS times, each its own process; TORCH=1 adds the PyTorch
#         peer (bench/peers/torch_fp8.py, torchao from build-xfer-bench/pyao) on the same shapes;
#   PROFILE=1: fp8c --bench --profile of PROFILE_FILE (examples/mlp.mlir) with PROFILE_RECIPE
#         (blockwise) at M = PROFILE_M (8192) per backend in PROFILE_BACKENDS, new and old build;
#   TAR=1: every log in $OUT/logs.tgz (few files come back per call);
#   TRAIN=1: fp8c-train-bench (interleaved) on TRAIN_RECIPES for the Linear and the MLP, after
#         it build-ab/fp8c-train-bench-old (the build before the change) where it exists.
# Logs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/device.txt
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-300} $B/fp8c-unittests --gtest_filter="${TESTS:-*GpuExampleTest*}" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure|tests ran' $OUT/unittests.log | head -60
fi
if [ -n "${BENCH:-}" ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/clocks.csv 2>&1 &
  CLOCKS=$!
  A="--shapes=bench/shapes.txt --only=${ONLY:-decode.m1,decode.m16} --recipes=${RECIPES:-tensorwise,rowwise} --variants=${VARIANTS:-fp8-gemm,fp8c,fp8c.static} ${BENCH_ARGS:-}"
  for r in $(seq 1 ${ROUNDS:-1}); do
    if [ -x build-ab/fp8c-bench-old ]; then
      timeout ${BENCH_TIMEOUT:-120} build-ab/fp8c-bench-old $A --json=$OUT/bench-old-$r.json > $OUT/bench-old-$r.txt 2>&1
      echo "old round $r exit status: $?"
    fi
    timeout ${BENCH_TIMEOUT:-120} $B/fp8c-bench $A --json=$OUT/bench-new-$r.json > $OUT/bench-new-$r.txt 2>&1
    echo "new round $r exit status: $?"
  done
  kill $CLOCKS 2>/dev/null
  awk -F', ' 'NR>1 && $2+0>0 {n++; s+=$2; if(min==""||$2+0<min)min=$2+0; if($2+0>max)max=$2+0; p+=$4} END {printf "SM clock during the bench: mean %.0f MHz, min %d, max %d over %d samples; mean power %.0f W\n", s/n, min, max, n, p/n}' $OUT/clocks.csv | tee $OUT/clocks-summary.txt
fi
if [ -n "${TORCH:-}" ]; then
  export PYTHONPATH=$PWD/build-xfer-bench/pyao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1
  timeout ${TORCH_TIMEOUT:-150} python3 bench/peers/torch_fp8.py --shapes bench/shapes.txt --only ${ONLY:-decode.m1,decode.m16} \
    --json $OUT/torch.json ${TORCH_ARGS:-} > $OUT/torch.txt 2>&1
  echo "torch exit status: $?" | tee -a $OUT/torch.txt
  tail -30 $OUT/torch.txt
fi
if [ -n "${PROFILE:-}" ]; then
  # Per-step medians (fp8c --bench --profile) of one graph, the new build and the old, per backend.
  for b in ${PROFILE_BACKENDS:-generated cublaslt auto}; do
    for v in new old; do
      F=$B/fp8c
      [ $v = old ] && F=build-ab/fp8c-old
      [ -x $F ] || continue
      timeout ${PROFILE_TIMEOUT:-120} $F ${PROFILE_FILE:-examples/mlp.mlir} --recipe=${PROFILE_RECIPE:-blockwise} \
        --run=gpu --random-inputs=1 --dynamic-dim=${PROFILE_M:-8192} --bench --profile --backend=$b \
        > $OUT/profile-$v-$b.txt 2>&1
      echo "profile $v $b exit status: $?"
      tail -${PROFILE_TAIL:-14} $OUT/profile-$v-$b.txt
    done
  done
fi
for f in /tmp/c/gemm-sm90-tune-*.txt; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done > $OUT/tune-cache.txt 2>&1
if [ -n "${TAR:-}" ]; then
  # Only the archive comes back (a call returns at most 8 files).
  (cd $OUT && tar czf /tmp/logs.tgz . && find . -type f -delete && mv /tmp/logs.tgz . && ls -la logs.tgz)
fi
if [ -n "${TRAIN:-}" ]; then
  for v in new old; do
    T=$B/fp8c-train-bench
    [ $v = old ] && T=build-ab/fp8c-train-bench-old
    [ -x $T ] || continue
    timeout ${TRAIN_TIMEOUT:-200} $T --tokens=8192 --reps=20 --interleave ${TRAIN_ARGS:-} \
      --recipes=${TRAIN_RECIPES:-none,tensorwise,rowwise} --json=$OUT/train-$v.json \
      examples/linear.mlir examples/mlp.mlir > $OUT/train-$v.txt 2>&1
    echo "train-bench $v exit status: $?" | tee -a $OUT/train-$v.txt
    grep -E "median|step total" $OUT/train-$v.txt | head -40
  done
fi
