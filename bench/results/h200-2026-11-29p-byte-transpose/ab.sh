#!/usr/bin/env bash
# Thirty-sixth session: kernel_ab of the delayed steps' one-pass cast-transposes (x, W) in four
# header variants, interleaved, after an untimed 8192^3 f16 matmul each: `general` (transpose.cuh's
# f32-tile form: kByteStaged ignored), `regs` (the byte-staged form of 6792b15, the next tile's
# loads held in registers: transpose_bytes_regs.cuh here), `ring4` (HEAD: cp.async ring of 4
# tiles) and `ring2` (the same with 2). Then the GPU tests in TESTS. Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
D=bench/results/h200-2026-11-29p-byte-transpose
W=/tmp/ab-$$
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv > $OUT/device.txt
for v in general regs ring4 ring2; do mkdir -p $W/$v/fp8c && cp codegen/kernels/*.cuh $W/$v/fp8c/; done
# general: the dispatch off; general and regs: no dynamic shared memory (kernel_ab's probe).
sed -i 's/if constexpr (Spec::kByteStaged)/if constexpr (false)/' $W/general/fp8c/transpose.cuh
sed -i 's/return Spec::kByteStaged ? bytes::kRingStages \* bytes::kTileBytes : 0;/return 0;/' \
  $W/general/fp8c/transpose.cuh $W/regs/fp8c/transpose.cuh
cp $D/transpose_bytes_regs.cuh $W/regs/fp8c/transpose_bytes.cuh
grep -c "return 0;" $W/general/fp8c/transpose.cuh $W/regs/fp8c/transpose.cuh
sed -i 's/constexpr int kRingStages = 4;/constexpr int kRingStages = 2;/' $W/ring2/fp8c/transpose_bytes.cuh
for g in mlp linear; do
  build-gpu/bin/fp8c examples/$g.mlir --train --recipe=delayed --tokens=8192 --emit=cuda > $W/$g.cu || exit 1
done
V="--variant general=$W/general --variant regs=$W/regs --variant ring4=$W/ring4 --variant ring2=$W/ring2"
timeout 200 python3 bench/kernel_ab.py $W/mlp.cu $V --reps ${REPS:-30} --after-gemm 8192 \
  --kernel fp8c_mlp_fwd_k0_cast_transpose --kernel fp8c_mlp_fwd_k1_cast_transpose 2>&1 | tee $OUT/ab-mlp.txt | grep -v "^ *diff" | head -30
timeout 200 python3 bench/kernel_ab.py $W/linear.cu $V --reps ${REPS:-30} --after-gemm 8192 \
  --kernel fp8c_linear_fwd_k0_cast_transpose --kernel fp8c_linear_fwd_k1_cast_transpose 2>&1 | tee $OUT/ab-linear.txt | grep -v "^ *diff" | head -30
if [ -n "${TESTS:-}" ]; then
  FP8C_CACHE_DIR=/tmp/ct-$$ timeout ${TEST_TIMEOUT:-200} build-gpu/bin/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED) |Failure|tests ran' $OUT/unittests.log | head -20
fi
