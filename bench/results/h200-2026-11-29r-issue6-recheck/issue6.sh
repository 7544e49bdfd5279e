#!/usr/bin/env bash
# Thirty-eighth session: issue 6 re-checked at HEAD in one call. The generated GEMM's GPU tests
# (GemmSm90*), then issue 6's targets (../h200-2026-11-27e-cast-ahead/issue6.sh: fp8c-bench on
# issue 6's shapes, interleaved rounds, and fp8c-gemm-bench --quick on 8192^3), then the SASS of
# the plain 8192^3 kernels (fp8c-gemm-bench --quick --dump-cubin; cuobjdump: QGMMA, UTMALDG, no
# local memory). Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
B=build-gpu/bin
FP8C_CACHE_DIR=/tmp/t-$$ timeout ${TEST_TIMEOUT:-200} $B/fp8c-unittests --gtest_filter="${TESTS:-GemmSm90*}" > $OUT/gemm-tests.log 2>&1
echo "gemm tests exit status: $?"
grep -E '^\[ +(FAILED|PASSED) |Failure|gemm sm90' $OUT/gemm-tests.log | head -20
ROUNDS=${ROUNDS:-40} bash bench/results/h200-2026-11-27e-cast-ahead/issue6.sh
mkdir -p /tmp/cubin-$$
FP8C_CACHE_DIR=/tmp/s-$$ timeout 120 $B/fp8c-gemm-bench --quick --shape 8192 8192 8192 --no-cast --variants none \
  --dump-cubin /tmp/cubin-$$ > /tmp/sass-bench-$$.txt 2>&1
echo "gemm-bench (cubins) exit status: $?"
for f in /tmp/cubin-$$/*.cubin; do
  [ -f "$f" ] || continue
  sass=$(cuobjdump -sass "$f" 2>&1)
  echo "$(basename "$f"): QGMMA $(grep -c QGMMA <<<"$sass") UTMALDG $(grep -c UTMALDG <<<"$sass") LDL/STL $(grep -cE 'LDL|STL' <<<"$sass")"
done | tee $OUT/sass.txt
