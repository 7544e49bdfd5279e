#!/usr/bin/env bash
# Cast-ahead A's knobs (temporary defines, FP8C_CA_DEFS, read by gemmSm90Source in the patched
# tree: variants.patch): the background warps' loads in flight (FP8C_CA_BG_UNROLL) and what
# phase 1 casts (FP8C_CA_PHASE1: 0 the first wave's groups, 1 exactly the first wave's tile
# rows, 2 nothing, 3 all of A), rows per publication in phase 2 (FP8C_CA_BATCH) and the fences
# (FP8C_CA_FENCE: 0 proxy + gpu fence, 1 gpu fence only, 2 proxy fence + a release add). fp8c-gemm-bench --cast-shape at both Linear shapes per variant,
# the castA prologue skipped (FP8C_AHEAD_ONLY). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c FP8C_AHEAD_ONLY=1
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
# Fields: unroll phase1 batch fence [wait (FP8C_CA_WAIT: 0 per tile row, 1 per group of the
# tile order) [groupM (FP8C_GROUPM, 0: the heuristic's)]].
IFS=, read -ra VS <<< "${VARIANTS:-8 1 1 0,8 1 8 0,8 1 32 0,8 1 8 1,8 1 8 2,8 3 8 0,8 2 8 0}"
for v in "${VS[@]}"; do
  set -- $v
  export FP8C_CA_DEFS=$'#define FP8C_CA_BG_UNROLL '$1$'\n#define FP8C_CA_PHASE1 '$2$'\n#define FP8C_CA_BATCH '${3:-1}$'\n#define FP8C_CA_FENCE '${4:-0}$'\n#define FP8C_CA_WAIT '${5:-0}
  export FP8C_GROUPM=${6:-0}
  echo "== unroll $1 phase1 $2 batch ${3:-1} fence ${4:-0} wait ${5:-0} groupM ${6:-0}" | tee -a $OUT/variants.txt
  timeout 120 $B/fp8c-gemm-bench --no-plain --cast-shape 8192 4096 14336 --cast-shape 8192 14336 4096 \
    > /tmp/v.txt 2>&1
  echo "exit $?" >> $OUT/variants.txt
  grep -E "e4m3 A|cast ahead" /tmp/v.txt | tee -a $OUT/variants.txt
done
