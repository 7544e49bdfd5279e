#!/usr/bin/env bash
# Call 2: kernel_ab after an 8192^3 GEMM, 8192 tokens, the delayed MLP forward's three
# cast-transposes (x, w1, w2; one 64 x 64 tile per unit) with the units walked in groups of G tile
# rows (consecutive blocks take vertically adjacent tiles, so the transposed output's rows get
# G x 64 contiguous bytes at once) against HEAD's row-major walk.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
H=/tmp/h-head && rm -rf $H && mkdir -p $H && cp -r codegen/kernels $H/fp8c
V=""
for G in 4 8 16; do
  D=/tmp/h-g$G && rm -rf $D && mkdir -p $D && cp -r codegen/kernels $D/fp8c
  python3 - $D/fp8c/transpose.cuh $G <<'PY'
import sys
p, g = sys.argv[1], sys.argv[2]
s = open(p).read()
old = "    const i64 tcol = u % kTileCols, chunk = u / kTileCols;\n"
new = ("    i64 tcol = u % kTileCols, chunk = u / kTileCols;\n"
       "    if constexpr (!kUnits && !kColAmax) {\n"
       "      constexpr i64 G = " + g + ";\n"
       "      const i64 grp = u / (G * kTileCols), idx = u % (G * kTileCols);\n"
       "      const i64 rem = tileRows - grp * G, gr = rem < G ? rem : G;\n"
       "      chunk = grp * G + idx % gr;\n"
       "      tcol = idx / gr;\n"
       "    }\n")
assert s.count(old) == 1
open(p, "w").write(s.replace(old, new))
PY
  V="$V --variant g$G=$D"
done
./build-gpu/bin/fp8c examples/mlp.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > /tmp/mlp-delayed.cu
AB="--reps ${REPS:-40} --after-gemm 8192"
python3 bench/kernel_ab.py /tmp/mlp-delayed.cu $AB --kernel fp8c_mlp_fwd_k0_cast_transpose \
  --kernel fp8c_mlp_fwd_k1_cast_transpose --kernel fp8c_mlp_fwd_k2_cast_transpose \
  --variant head=$H $V 2>&1 | tee -a $OUT/ab-order.txt
