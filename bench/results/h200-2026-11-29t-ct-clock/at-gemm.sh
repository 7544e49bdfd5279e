#!/usr/bin/env bash
# Fortieth session: A MN-major (aTransposed, the weight gradient reading dY's untransposed
# copy) on the GPU: its GPU test, then the promoting configs at the Linear's wgrad shape
# (M 14336 K 8192 N 4096) with and without it, bursts and soaked, beside cuBLASLt; with
# CUBIN=1 the kernels' CUBINs and SASS of the 128 x 192 pair. Run from the repository root with
# OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
timeout ${TEST_TIMEOUT:-200} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90Gpu.ATransposedReadsItsTranspose}" > $OUT/tests.txt 2>&1
echo "tests exit status: $?"
grep -E "^\[  (PASSED|FAILED) |FAILED|OK \]|differ" $OUT/tests.txt | head -40
dump=""; [ -n "${CUBIN:-}" ] && mkdir -p /tmp/cubins && dump="--dump-cubin /tmp/cubins"
timeout 400 $B/fp8c-gemm-bench --no-plain --no-cast --variants precise --schedule cooperative \
  --a-transposed --soak ${SOAK:-3} $dump --epilogue-shape 14336 8192 4096 ${EXTRA_SHAPES:-} > $OUT/gemm-at.txt 2>&1
echo "gemm-bench exit status: $?"
grep -E "generated|cuBLASLt|soak|epilogues" $OUT/gemm-at.txt | cut -c1-200 | head -60
if [ -n "${CUBIN:-}" ]; then
  for f in /tmp/cubins/*n192_s5_o0_promote_tms1*.cubin; do
    cuobjdump -sass $f > $OUT/$(basename $f .cubin).sass 2>&1
  done
  ls -la $OUT
fi
