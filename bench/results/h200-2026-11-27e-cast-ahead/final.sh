#!/usr/bin/env bash
# Cast-ahead A at the committed defaults: its GPU tests and the bf16-A prologue's (TESTS), then
# fp8c-gemm-bench's bf16-A section at issue 6's Linear shapes without the prologue kernels,
# each e4m3-A and cast-ahead kernel soaked SOAK seconds with nvidia-smi logging SM clock, power
# and throttle reasons every 50 ms (clocks.csv; the soak lines carry the Unix times to line up
# with it). Needs build-gpu (bin, lib). Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
B=build-gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/device.txt
TESTS=${TESTS:-GemmSm90Gpu.CastsAAheadOfTheMainLoop:GemmSm90Gpu.CastsBf16AInThePrologue}
timeout 240 $B/fp8c-unittests --gtest_filter="$TESTS" > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED|  OK) |Failure' $OUT/unittests.log | head -30
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 50 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 300 $B/fp8c-gemm-bench --no-plain --no-prologue --soak ${SOAK:-4} \
  --cast-shape 8192 4096 14336 --cast-shape 8192 14336 4096 > $OUT/cast-bench.txt 2>&1
echo "gemm-bench exit status: $?"
kill $SMI
grep -E "A |cast|soak" $OUT/cast-bench.txt | tail -30
python3 - $OUT/cast-bench.txt $OUT/clocks.csv <<'PY'
import sys, re, datetime
soaks = [(m.group(1), float(m.group(2)), float(m.group(3))) for m in
         re.finditer(r"soak (\S+): .* unix ([\d.]+) \.\. ([\d.]+)", open(sys.argv[1]).read())]
rows = []
for line in open(sys.argv[2]).read().splitlines()[1:]:
    f = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
        rows.append((t, float(f[1]), float(f[2]), f[3]))
    except Exception:
        pass
for name, t0, t1 in soaks:
    r = [x for x in rows if t0 + 0.5 <= x[0] <= t1]
    if not r:
        print(name, "no samples"); continue
    reasons = sorted(set(x[3] for x in r))
    print(f"{name}: {len(r)} samples, SM clock mean {sum(x[1] for x in r)/len(r):.0f} MHz, "
          f"power mean {sum(x[2] for x in r)/len(r):.0f} W, reasons {reasons}")
PY
