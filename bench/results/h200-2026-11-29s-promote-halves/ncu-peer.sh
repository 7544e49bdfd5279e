#!/usr/bin/env bash
# Thirty-ninth session, call 5: which kernels cuBLASLt runs for the promoting GEMMs (no fast
# accumulation) at the Linear's dgrad and wgrad shapes, and what each kernel moves, next to the
# generated configs: Nsight Compute on every launch of one fp8c-gemm-bench pass (duration, SM
# clock, tensor-pipe activity, DRAM and L2 bytes), medians per kernel name. Run from the
# repository root with OUT set.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__block_size
for shape in "8192 14336 4096" "14336 8192 4096"; do
  tag=${shape// /x}
  timeout 200 $NCU --clock-control none --metrics $M --csv --page raw --print-units base -c 400 \
    build-gpu/bin/fp8c-gemm-bench --no-plain --no-cast --variants precise --schedule cooperative \
    --epilogue-shape $shape > $OUT/ncu-$tag.csv 2> $OUT/ncu-$tag.err
  echo "ncu $tag exit status: $?"
  python3 - $OUT/ncu-$tag.csv <<'PY'
import csv, sys, statistics as st
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; data = [r for r in rows[1:] if r[0].isdigit()]
ix = {h: i for i, h in enumerate(hdr)}
by = {}
for r in data:
    by.setdefault(r[ix["Kernel Name"]], []).append(r)
def med(rs, k):
    try: return st.median(float(r[ix[k]].replace(",", "")) for r in rs)
    except Exception: return float("nan")
print("%-90s %5s %9s %7s %6s %8s %8s %9s %s" % ("kernel", "n", "us", "MHz", "tc%", "dramR MB", "dramW MB", "L2rd MB", "grid/cluster/block"))
for name, rs in sorted(by.items(), key=lambda kv: -med(kv[1], "gpu__time_duration.sum")):
    print("%-90s %5d %9.1f %7.0f %6.1f %8.0f %8.0f %9.0f %s/%sx%s/%s" % (name[:90], len(rs),
          med(rs, "gpu__time_duration.sum") / 1e3, med(rs, "sm__cycles_elapsed.avg.per_second") / 1e6,
          med(rs, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
          med(rs, "dram__bytes_read.sum") / 1e6, med(rs, "dram__bytes_write.sum") / 1e6,
          med(rs, "lts__t_sectors_srcunit_tex_op_read.sum") * 32 / 1e6,
          rs[0][ix["launch__grid_size"]], rs[0][ix["launch__cluster_dim_x"]], rs[0][ix["launch__cluster_dim_y"]],
          rs[0][ix["launch__block_size"]]))
PY
done
gzip -f $OUT/*.csv
