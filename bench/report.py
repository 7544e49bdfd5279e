#!/usr/bin/env python3
"""Merges fp8c-bench's JSON with the PyTorch peer's (bench/peers/torch_fp8.py), and renders
the result: the merged JSON, a summary table (terminal and Markdown, for bench/README.md) and a
PNG plot of each variant's speedup over bf16 per shape, one panel per recipe.

usage: report.py FP8C.json [--torch TORCH.json | --torch-log TORCH.log] --out STEM
  writes STEM.json, STEM.md, STEM.png (the plot needs matplotlib; skipped with a note if absent)

--torch-log reads the peer's progress lines instead, for a run whose torch.json was lost: those
rows carry the median only (no spread), and the JSON says so.

Rows from the PyTorch peer get their TFLOP/s, roofline floor (the ceilings fp8c-bench measured
in the same run) and speedup against fp8c-bench's bf16 row of the same shape here.
"""
import argparse
import json
import re
import sys

SUMMARY = ["bf16", "fp8-gemm", "unfused", "fp8c", "fp8c.static", "fp8c.gen", "fp8c.lt", "fp8c.static.gen",
           "torch.bf16", "torch.scaled_mm", "torchao.eager", "torchao.compile", "torchao.infer"]
PLOTTED = ["fp8-gemm", "unfused", "fp8c", "fp8c.static", "fp8c.gen", "torch.scaled_mm", "torchao.eager",
           "torchao.compile", "torchao.infer"]
RECIPES = ["tensorwise", "delayed", "rowwise", "blockwise"]
YMAX = 2.5  # the plot's speedup axis; larger values are written on their bars


LOG_LINE = re.compile(r"^(\S+)\s+(\S+)\s+(torch\.\S+|torchao\.\S+)\s+"
                      r"(?:([\d.]+) us|n/a: (.*?))\s+\[\d+s\]$")


def torch_rows_from_log(path, main):
    """The peer's progress lines as rows (median only), dims and FLOPs from fp8c-bench's rows."""
    shape_info = {r["shape"]: r for r in main["rows"] if "flops" in r}
    rows = []
    for line in open(path, errors="replace"):
        m = LOG_LINE.match(line.rstrip("\n"))
        if not m or m.group(1) not in shape_info:
            continue
        ref = shape_info[m.group(1)]
        r = {"source": "torch (from its log: median only)", "shape": m.group(1),
             "dims": ref["dims"], "recipe": m.group(2), "variant": m.group(3),
             "flops": ref["flops"]}
        if m.group(4):
            r["median_us"] = float(m.group(4))
        else:
            r["error"] = m.group(5)
        rows.append(r)
    return {"tool": "torch_fp8.py", "note": f"rows parsed from {path}: torch.json was lost",
            "rows": rows}


def merge(main, torch_doc):
    c = main["ceilings"]
    bf16 = {r["shape"]: r for r in main["rows"] if r["variant"] == "bf16" and "median_us" in r}
    gemm = {(r["shape"], r["recipe"]): r for r in main["rows"]
            if r["variant"] == "fp8-gemm" and "floor_bytes" in r}
    static = {(r["shape"], r["recipe"]): r for r in main["rows"]
              if r["variant"] == "fp8c.static" and "floor_bytes" in r}
    rows = list(main["rows"])
    if torch_doc:
        for r in torch_doc["rows"]:
            r = dict(r)
            if "median_us" in r:
                r["tflops"] = r["flops"] / r["median_us"] / 1e6
                # The floor counts the bytes of the fp8c-bench row that reads the same inputs.
                key = (r["shape"], r["recipe"])
                ref = (gemm.get(key) if r["variant"] == "torch.scaled_mm"
                       else static.get(key) if r["variant"] == "torchao.infer"
                       else bf16.get(r["shape"]))
                if ref and "floor_bytes" in ref:
                    r["floor_bytes"] = ref["floor_bytes"]
                    r["floor_us"] = max(r["flops"] / (c["fp8_tflops"] * 1e12),
                                        r["floor_bytes"] / (c["copy_gbs"] * 1e9)) * 1e6
                if r["shape"] in bf16:
                    r["speedup_vs_bf16"] = bf16[r["shape"]]["median_us"] / r["median_us"]
            rows.append(r)
    out = dict(main)
    out["rows"] = rows
    if torch_doc:
        out["torch_peer"] = {k: v for k, v in torch_doc.items() if k != "rows"}
    return out


def index(doc):
    idx = {}
    for r in doc["rows"]:
        idx[(r["shape"], r["recipe"], r["variant"])] = r
    return idx


def cell(r):
    if r is None:
        return ""
    if "median_us" not in r:
        return "n/a"
    return f"{r['median_us']:.1f}"


def summary_rows(doc):
    """One row per (shape, recipe): medians of each variant, floor, fp8c's ratios."""
    idx = index(doc)
    shapes = []
    for r in doc["rows"]:
        if r["shape"] not in [s for s, _ in shapes]:
            shapes.append((r["shape"], r["dims"]))
    out = []
    for shape, dims in shapes:
        bf = idx.get((shape, "none", "bf16"))
        tbf = idx.get((shape, "none", "torch.bf16"))
        for recipe in RECIPES:
            fp = idx.get((shape, recipe, "fp8c"))
            if fp is None:
                continue
            cells = []
            for v in SUMMARY:
                r = bf if v == "bf16" else tbf if v == "torch.bf16" else idx.get((shape, recipe, v))
                cells.append(cell(r))
            floor = fp.get("floor_us")
            g = idx.get((shape, recipe, "fp8-gemm"))
            vs_bf16 = fp.get("speedup_vs_bf16")
            vs_gemm = (fp["median_us"] / g["median_us"]
                       if "median_us" in fp and g and "median_us" in g else None)
            out.append([shape, dims, recipe] + cells +
                       [f"{floor:.1f}" if floor else "",
                        f"{vs_bf16:.2f}x" if vs_bf16 else "",
                        f"{vs_gemm:.2f}" if vs_gemm else ""])
    return out


HEAD = ["shape", "dims", "recipe"] + SUMMARY + ["floor", "fp8c vs bf16", "fp8c / fp8-gemm"]


def markdown(doc, rows):
    c = doc["ceilings"]
    lines = [f"Device: {doc['driver']}; date {doc['date']}; ceilings measured in the same run: "
             f"cuBLASLt FP8 8192^3 {c['fp8_tflops']:.0f} TFLOP/s, device-to-device copy "
             f"{c['copy_gbs']:.0f} GB/s.", "",
             "Median microseconds per run (lower is better); floor = max(FLOPs / FP8 peak, "
             "bytes / copy bandwidth) for fp8c's inputs; `fp8c vs bf16` = bf16 median / fp8c "
             "median; `fp8c / fp8-gemm` = fp8c median / cuBLASLt FP8 GEMM alone median.", "",
             "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    return "\n".join(lines) + "\n"


def full_markdown(doc):
    lines = ["| shape | recipe | variant | median us | p10 - p90 us | TFLOP/s | floor us | "
             "floor % | vs bf16 | err vs bf16 | launches |", "|" + "---|" * 11]
    for r in doc["rows"]:
        head = f"| {r['shape']} | {r['recipe']} | {r['variant']} |"
        if "median_us" not in r:
            err = (r.get("error") or "").splitlines()
            lines.append(f"{head} n/a: {err[0][:120] if err else ''} | | | | | | | |")
            continue
        fl, sp, er = r.get("floor_us"), r.get("speedup_vs_bf16"), r.get("rel_err_vs_bf16")
        cells = [f"{r['median_us']:.1f}",
             f"{r['p10_us']:.1f} - {r['p90_us']:.1f}" if "p10_us" in r else "",
                 f"{r.get('tflops', 0):.0f}", f"{fl:.1f}" if fl else "",
                 f"{100 * fl / r['median_us']:.0f}" if fl else "", f"{sp:.2f}x" if sp else "",
                 f"{er:.1e}" if er is not None else "",
                 f"{r.get('launches', '')}{' (graph)' if r.get('cuda_graph') else ''}"]
        lines.append(head + " " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def terminal(rows):
    widths = [max(len(HEAD[i]), *(len(r[i]) for r in rows)) for i in range(len(HEAD))]
    fmt = "  ".join("{:<%d}" % w if i < 3 else "{:>%d}" % w for i, w in enumerate(widths))
    out = [fmt.format(*HEAD)]
    out += [fmt.format(*r) for r in rows]
    return "\n".join(out)


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"report.py: no plot ({e})")
        return False
    idx = index(doc)
    shapes = []
    for r in doc["rows"]:
        if r["shape"] not in shapes:
            shapes.append(r["shape"])
    present = [v for v in PLOTTED if any(k[2] == v for k in idx)]
    fig, axes = plt.subplots(len(RECIPES), 1, figsize=(max(12, 0.9 * len(shapes) + 3), 4 * len(RECIPES)),
                             sharex=True)
    width = 0.8 / max(1, len(present))
    for ax, recipe in zip(axes, RECIPES):
        for j, v in enumerate(present):
            ys = []
            for s in shapes:
                r = idx.get((s, recipe, v))
                ys.append(r.get("speedup_vs_bf16") or 0 if r and "median_us" in r else 0)
            xs = [i + (j - (len(present) - 1) / 2) * width for i in range(len(shapes))]
            ax.bar(xs, [min(y, YMAX) for y in ys], width, label=v)
            for x, y in zip(xs, ys):  # bars past the axis (a slow bf16 peer) carry their value
                if y > YMAX:
                    ax.text(x, YMAX * 0.98, f"{y:.1f}", rotation=90, ha="center", va="top", fontsize=6)
        ax.set_ylim(0, YMAX)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("speedup over bf16")
        ax.set_title(f"recipe: {recipe}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(ncol=len(present), fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.12))
    axes[-1].set_xticks(range(len(shapes)))
    axes[-1].set_xticklabels(shapes, rotation=45, ha="right", fontsize=8)
    fig.suptitle(f"fp8c-bench on {doc['device']}, {doc['date']} (bf16 = cuBLASLt bf16, same run; "
                 "0 = did not run)")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("main")
    ap.add_argument("--torch")
    ap.add_argument("--torch-log")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    main_doc = json.load(open(a.main))
    torch_doc = None
    if a.torch:
        try:
            torch_doc = json.load(open(a.torch))
        except (OSError, ValueError) as e:
            print(f"report.py: no PyTorch peer rows ({e})")
    elif a.torch_log:
        torch_doc = torch_rows_from_log(a.torch_log, main_doc)
    doc = merge(main_doc, torch_doc)
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    rows = summary_rows(doc)
    print(terminal(rows))
    with open(a.out + ".md", "w") as f:
        f.write(markdown(doc, rows) + "\n## Every row\n\n" + full_markdown(doc))
    if plot(doc, a.out + ".png"):
        print(f"wrote {a.out}.json, .md, .png")
    else:
        print(f"wrote {a.out}.json, .md")


if __name__ == "__main__":
    sys.exit(main())
