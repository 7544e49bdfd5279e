#!/usr/bin/env bash
# Thirty-eighth session, call 5: the delayed MLP and SwiGLU MLP at decode size (M 16, CUDA-graph
# replays, weights quantized once: fp8c.static), fp8c-bench of the build before the GEMM-hosted
# history pushes (f0f0af7, build-base/fp8c-bench: a state launch after the second GEMM) against
# this build (none), alternating processes, each with its own kernel cache. Run from the
# repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
S=/tmp/decode-shapes.txt
printf '%s\n' 'mlp.decode.m16     mlp    M=16 D=4096 H=14336 graph' \
  'swiglu.decode.m16  swiglu M=16 D=4096 H=14336 graph' > $S
for r in 1 2; do
  for v in base new; do
    B=build-gpu/bin/fp8c-bench
    [ $v = base ] && B=build-base/fp8c-bench
    FP8C_CACHE_DIR=/tmp/c-$v timeout ${T:-60} $B --shapes=$S --recipes=delayed --variants=fp8c.static \
      --profile --json=/dev/null > $OUT/$v-$r.txt 2>&1
    echo "$v round $r exit status: $?"
    grep -E "fp8c.static  " $OUT/$v-$r.txt | cut -c1-110
  done
done
