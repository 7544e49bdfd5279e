#!/usr/bin/env bash
# Thirty-second session: the gelu_grad dgrad GEMM's forms alone (fp8c-gemm-bench --dgelu-shape), then Nsight Compute on
# the offloaded-epilogue kernel (full set, per-SASS-instruction warp stall samples) and its SASS.
# Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
if [ -n "${TESTS:-}" ]; then
  timeout 200 $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
  echo "unittests exit status: $?" | tee -a $OUT/unittests.log
  grep -E '^\[ +(FAILED|PASSED|SKIPPED) |Failure' $OUT/unittests.log | head -20
fi
mkdir -p /tmp/cubin
SHAPE=${SHAPE:-8192 4096 14336}
timeout 200 $B/fp8c-gemm-bench --no-plain --no-cast --variants none --dgelu-shape $SHAPE \
  --dump-cubin /tmp/cubin > $OUT/dgelu-bench.txt 2>&1
echo "gemm-bench exit status: $?"
grep -E "fused|plain" $OUT/dgelu-bench.txt
if [ -z "${SKIP_NCU:-}" ]; then
  EW=$(ls /tmp/cubin/*${KERNEL:-_dgelu8_colsumbf16_ew}.cubin | head -1)
  cuobjdump -sass $EW > /tmp/ew.sass && gzip -c /tmp/ew.sass > $OUT/ew.sass.gz
  timeout 300 ncu --kernel-name regex:${KERNEL:-_dgelu8_colsumbf16_ew} --launch-skip ${SKIP:-2} --launch-count 1 --set full \
    --import-source no -f -o /tmp/ew $B/fp8c-gemm-bench --no-plain --no-cast --variants none \
    --dgelu-shape $SHAPE > $OUT/ncu-run.txt 2>&1
  echo "ncu exit status: $?"
  ncu --import /tmp/ew.ncu-rep --page details > $OUT/ncu-details.txt 2>&1
  ncu --import /tmp/ew.ncu-rep --page source --csv --print-source sass 2> $OUT/ncu-source.err | gzip > $OUT/ncu-source.csv.gz
  grep -E "Duration|Issue Slots Busy|Executed Ipc|Warp Cycles Per Issued|No Eligible|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Shared Memory|DRAM Throughput" $OUT/ncu-details.txt | head -30
  python3 - $OUT/ncu-source.csv.gz <<'PY'
import csv, gzip, sys, collections
rows = list(csv.reader(gzip.open(sys.argv[1], 'rt')))
if not rows: print("no source rows"); sys.exit()
hdr = rows[0]; print("columns:", hdr[:40])
def col(name):
    for i, h in enumerate(hdr):
        if h.strip().lower() == name.lower(): return i
    return None
src = col("Source"); samp = col("Warp Stall Sampling (All Samples)") or col("Warp Stall Sampling (All Cycles)")
ex = col("Instructions Executed")
print("src", src, "samples", samp, "executed", ex)
if src is None or samp is None: sys.exit()
data = []
for r in rows[1:]:
    try: data.append((float(r[samp] or 0), r[src], r[ex] if ex is not None else ""))
    except: pass
tot = sum(d[0] for d in data); print("total samples", tot)
for d in sorted(data, reverse=True)[:40]:
    print(f"{d[0]:8.0f} {100*d[0]/max(tot,1):5.1f}%  {d[2]:>10}  {d[1]}")
# Every numeric column's total (the stall reasons among them), largest first.
sums = collections.Counter()
for r in rows[1:]:
    for i, v in enumerate(r):
        try: sums[hdr[i]] += float(v)
        except: pass
for name, v in sums.most_common(45):
    print(f"{v:14.0f}  {name}")
PY
fi
