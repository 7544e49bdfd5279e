#!/usr/bin/env bash
# Thirty-seventh session, call 4 (call 3 failed at once: fp8c was being relinked): the working
# tree's kernels (the byte-staged units loop with one load site; one fence per column-sum unit,
# common.cuh's lastToArrive; committed as d90a2d4) against HEAD's (f12eabc: the tree with
# tmp/kernels.patch reversed; that patch is `git diff f12eabc d90a2d4 -- codegen/kernels`, to be
# written there before a run), on the delayed steps' column-sum cast-transposes and the bf16
# step's column sums, in kernel_ab after a GEMM; the byte-staged form for one input with column
# sums (fits() relaxed) at several chunk counts. Run from the repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29q-colsum-units
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in head headgen new newgen newdy; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
for v in head headgen; do (cd $W/$v/fp8c && patch -s -R -p3 < $OLDPWD/$D/tmp/kernels.patch) || exit 1; done
for v in headgen newgen; do sed -i 's/if constexpr (Spec::kByteStaged)/if constexpr (false)/' $W/$v/fp8c/transpose.cuh; done
sed -i 's/return ((Spec::kNumIn == 1 \&\& Spec::kColSum.buf < 0) ||/return ((Spec::kNumIn == 1) ||/' \
  $W/newdy/fp8c/transpose_bytes.cuh
grep -c "kNumIn == 1) ||" $W/newdy/fp8c/transpose_bytes.cuh
B=build-gpu/bin/fp8c
for f in linear mlp; do
  $B examples/$f.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/$f.cu || exit 1
  $B examples/$f.mlir --train --recipe=none --tokens=8192 --emit=cuda > $W/$f-bf16.cu || exit 1
done
python3 - $W/linear.cu $W/mlp.cu <<'PY'
import sys
for p in sys.argv[1:]:
    t = open(p).read()
    i = t.find("_bwd_k0_cast_transpose ====="); j = t.find("static constexpr int kColChunks", i)
    assert i > 0 and j > 0
    open(p, "w").write(t[:j] + "static constexpr bool kByteStaged = true;\n  " + t[j:])
PY
AB="python3 bench/kernel_ab.py --after-gemm 8192 --reps ${REPS:-25}"
timeout 150 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k1_grad_fallback --variant headgen=$W/headgen \
  --variant newgen=$W/newgen --variant head=$W/head --variant new=$W/new \
  --variant new8=$W/new+chunks=8 --variant new32=$W/new+chunks=32 > $OUT/ab-mlp-gelu-grad.txt 2>&1
echo "gelu_grad exit status: $?"
timeout 150 $AB $W/linear.cu --kernel fp8c_linear_bwd_k0_cast_transpose --variant headgen=$W/headgen \
  --variant newgen=$W/newgen --variant new8=$W/newdy+chunks=8 --variant new16=$W/newdy+chunks=16 \
  --variant new32=$W/newdy+chunks=32 > $OUT/ab-linear-dy.txt 2>&1
echo "linear dY exit status: $?"
timeout 120 $AB $W/mlp.cu --kernel fp8c_mlp_bwd_k0_cast_transpose --variant headgen=$W/headgen \
  --variant newgen=$W/newgen --variant new8=$W/newdy+chunks=8 --variant new16=$W/newdy+chunks=16 \
  --variant new32=$W/newdy+chunks=32 > $OUT/ab-mlp-dy.txt 2>&1
echo "mlp dY exit status: $?"
timeout 120 $AB $W/mlp-bf16.cu --kernel fp8c_mlp_bwd_k0_col_sum --kernel fp8c_mlp_bwd_k6_col_sum \
  --variant head=$W/head --variant new=$W/new > $OUT/ab-mlp-bf16-colsum.txt 2>&1
echo "mlp bf16 col_sum exit status: $?"
timeout 120 $AB $W/linear-bf16.cu --kernel fp8c_linear_bwd_k0_col_sum \
  --variant head=$W/head --variant new=$W/new > $OUT/ab-linear-bf16-colsum.txt 2>&1
echo "linear bf16 col_sum exit status: $?"
grep -E "MB of tensors|median|differ|diff" $OUT/ab-*.txt | grep -v " 0 of \|= 0$\|colsum_" | cut -c1-150
