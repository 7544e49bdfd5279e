#!/usr/bin/env python3
"""Renders the benches' JSON: fp8c-bench's rows merged with the PyTorch peer's
(bench/peers/torch_fp8.py), fp8c-train-bench's training steps with bench/peers/torch_train.py's,
and fp8c-gemm-bench's GEMMs.

usage: report.py FP8C.json [--torch TORCH.json | --torch-log TORCH.log] [--out STEM]
                 [--train TRAIN.json [TORCH_TRAIN.json]]... [--gemm GEMM.json]
                 [--markdown PAGE.md] [--plot PLOT.svg]

--out STEM writes STEM.json (the merged rows), STEM.md (the summary table and every row) and
STEM.png (each variant's speedup over bf16 per shape; needs matplotlib, skipped with a note
where it does not import).
--markdown writes the performance page (docs/performance.md): every table with the device, the
date, the command and the peers of its run, each figure as a ratio against a peer of the same
run with the roofline floor beside it; --train and --gemm add the training-step and GEMM tables.
--plot writes one SVG bar chart (fp8c's speedup over bf16 per shape and recipe), made here
without matplotlib.

--torch-log reads the peer's progress lines instead, for a run whose torch.json was lost: those
rows carry the median only (no spread), and the JSON says so.

Rows from the PyTorch peer get their TFLOP/s, roofline floor (the ceilings fp8c-bench measured
in the same run) and speedup against fp8c-bench's bf16 row of the same shape here.
"""
import argparse
import html
import json
import os
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
    lines = [f"Device: {doc.get('device_info') or doc['driver']}; date {doc['date']}; ceilings measured in the same run: "
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


# ---- The performance page (--markdown) and its plot (--plot) ----

RATIO_NOTE = ("A ratio is the peer's time over fp8c's (above 1: fp8c is faster), both timed in "
              "the same run.")


def fmt_us(v):
    return "" if v is None else f"{v:.1f}"


def fmt_x(v, digits=2):
    return "" if not v else f"{v:.{digits}f}x"


def run_line(doc):
    """The device, its power limit and driver, the date and the command of one run."""
    info = doc.get("device_info") or doc.get("driver") or doc.get("device", "unknown device")
    parts = [info]
    if doc.get("power_limit_w"):
        parts.append(f"power limit {doc['power_limit_w']:.0f} W")
    if doc.get("device_info") and doc.get("driver"):
        parts.append(f"NVIDIA driver {doc['driver']}")
    line = "; ".join(parts)
    if doc.get("date"):
        line += f"; {doc['date']}"
    out = [f"- Device: {line}."]
    if doc.get("command"):
        out.append(f"- Command: `{doc['command']}`")
    return out


def peer_line(doc):
    """The PyTorch peer's versions and command."""
    ao = doc.get("torchao") or "not importable"
    out = [f"- PyTorch peer: torch {doc.get('torch', '?')}, torchao {ao}, on {doc.get('device', '?')}."]
    if doc.get("command"):
        out.append(f"- Peer command: `{doc['command']}`")
    return out


def ratio(peer, mine):
    if peer is None or mine is None or "median_us" not in peer or "median_us" not in mine:
        return None
    return peer["median_us"] / mine["median_us"]


FWD_HEAD = ["shape", "dims", "fp8c us", "vs bf16", "vs unfused", "vs torchao.compile",
            "fp8c.static us", "vs fp8-gemm", "vs torchao.infer", "floor us", "floor / fp8c"]


def forward_section(doc, svg_name):
    """fp8c-bench's rows: per recipe, fp8c and fp8c.static against the peers of the run."""
    idx = index(doc)
    c = doc["ceilings"]
    shapes = []
    for r in doc["rows"]:
        if (r["shape"], r["dims"]) not in shapes:
            shapes.append((r["shape"], r["dims"]))
    peers = sorted({r["variant"] for r in doc["rows"]})
    lines = ["## Inference: fused graphs against their peers (`fp8c-bench`)", ""]
    lines += run_line(doc)
    if doc.get("torch_peer"):
        lines += peer_line(doc["torch_peer"])
    lines += [f"- Ceilings measured at the start of the run: cuBLASLt FP8 e4m3 8192^3 "
              f"{c['fp8_tflops']:.0f} TFLOP/s (tensor scales, fast accumulation), device-to-device "
              f"copy {c['copy_gbs']:.0f} GB/s (1 GiB, bytes read + written).",
              f"- Variants and peers in this run: {', '.join(f'`{p}`' for p in peers)}. The figures "
              "are this run's: code changed after its date is not in them.", ""]
    variants = doc.get("variants", {})
    if variants:
        lines += ["| peer | what it runs |", "|---|---|"]
        for name, what in variants.items():
            lines.append(f"| `{name}` | {what} |")
        for name, what in TORCH_VARIANTS.items():
            if name in peers:
                lines.append(f"| `{name}` | {what} |")
        lines.append("")
    lines += [RATIO_NOTE + " `vs bf16`, `vs unfused`, `vs torchao.compile`: against `fp8c` "
              "(weights quantized every run, as in training); `vs fp8-gemm` and "
              "`vs torchao.infer`: against `fp8c.static` (weights quantized once, as in "
              "inference). The floor is fp8c's: max(FLOPs / FP8 ceiling, bytes / copy rate), "
              "bytes = what the graph must read and write at least; `floor / fp8c` is the "
              "share of the roofline fp8c reaches. Times are medians in microseconds; an empty "
              "cell: the peer does not run that recipe or shape.", ""]
    if svg_name:
        lines += [f"![fp8c's speedup over bf16 per shape and recipe]({svg_name})", ""]
    for recipe in RECIPES:
        if not any(k[1] == recipe and k[2] == "fp8c" for k in idx):
            continue
        lines += [f"### {recipe}", "", "| " + " | ".join(FWD_HEAD) + " |", "|" + "---|" * len(FWD_HEAD)]
        for shape, dims in shapes:
            fp = idx.get((shape, recipe, "fp8c"))
            if fp is None:
                continue
            st = idx.get((shape, recipe, "fp8c.static"))
            bf = idx.get((shape, "none", "bf16"))
            floor = fp.get("floor_us")
            cells = [shape, dims, fmt_us(fp.get("median_us")),
                     fmt_x(ratio(bf, fp)), fmt_x(ratio(idx.get((shape, recipe, "unfused")), fp)),
                     fmt_x(ratio(idx.get((shape, recipe, "torchao.compile")), fp)),
                     fmt_us(st.get("median_us")) if st else "",
                     fmt_x(ratio(idx.get((shape, recipe, "fp8-gemm")), st)),
                     fmt_x(ratio(idx.get((shape, recipe, "torchao.infer")), st)),
                     fmt_us(floor),
                     f"{100 * floor / fp['median_us']:.0f} %" if floor and "median_us" in fp else ""]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return lines


TORCH_VARIANTS = {
    "torch.bf16": "PyTorch `nn.Linear` in bf16 (cuBLAS), GELU / SwiGLU in eager PyTorch",
    "torch.scaled_mm": "`torch._scaled_mm` alone on pre-quantized e4m3 operands",
    "torchao.eager": "torchao `Float8Linear` (tensorwise / rowwise), eager",
    "torchao.compile": "the same under `torch.compile`",
    "torchao.infer": "torchao's inference quantization (weights quantized once) under `torch.compile`",
}


def plain_recipe(r):
    return not any(ch in r for ch in "%+@") and r != "none"


def train_section(doc, peer):
    """fp8c-train-bench's rows (and the PyTorch peer's) of one run."""
    mode = doc.get("mode", "sustain")
    title = {"sustain": "sustained", "interleave": "interleaved", "steps": "back to back"}.get(mode, mode)
    lines = [f"### {doc['date']}: {', '.join(dict.fromkeys(r['graph'] for r in doc['rows']))}, "
             f"{doc['tokens']} tokens, timed {title}", ""]
    lines += run_line(doc)
    if mode == "sustain":
        lines.append(f"- Timing: the recipes round-robin, {doc['reps']} rounds; in each, a recipe's steps "
                     f"back to back for {doc['sustain_ms']:.0f} ms, the first third left out, the "
                     f"median of the rest; a ratio is the median of the per-round ratios.")
    if doc.get("copy_gbs"):
        lines.append(f"- Copy rate measured at the start of the same process: "
                     f"{doc['copy_gbs'] / 1e3:.2f} TB/s (1 GiB device-to-device, bytes read + written).")
    lines.append("- Peer in this process: recipe `none`, the same step with bf16 GEMMs (cuBLASLt).")
    if peer:
        lines += peer_line(peer)
    lines.append("")
    lines += ["`vs none`: recipe none's step time over this recipe's (above 1: faster than the bf16 "
              "step). `bound`: the same ratio with only this recipe's GEMMs as profiled (every other "
              "launch free). `floor`: with its GEMMs as profiled and every other launch's bytes "
              "(each buffer read or written once) at the copy rate: what the step could reach if "
              "only its GEMMs took compute. Energy from NVML over the timed blocks.", ""]
    head = ["graph", "recipe", "median us", "p10 - p90", "vs none", "bound", "floor",
            "J/step", "energy vs none", "SM MHz"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in doc["rows"]:
        cells = [r["graph"], f"`{r['recipe']}`", fmt_us(r["median_us"]),
                 f"{r['p10_us']:.1f} - {r['p90_us']:.1f}",
                 fmt_x(r.get("speedup_vs_none"), 3), fmt_x(r.get("bound_speedup"), 3),
                 fmt_x(r.get("floor_speedup"), 3),
                 f"{r['joules_per_step']:.3f}" if r.get("joules_per_step") else "",
                 fmt_x(r.get("energy_ratio_vs_none"), 3),
                 f"{r['sm_mhz']:.0f}" if r.get("sm_mhz") else ""]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if peer:
        mine = {(r["graph"], r["recipe"]): r for r in doc["rows"]}
        recipes = [r for r in dict.fromkeys(x["recipe"] for x in doc["rows"]) if plain_recipe(r)]
        head = ["graph", "PyTorch peer", "median us", "vs torch.bf16"] + [f"fp8c {r} vs it" for r in recipes]
        lines += ["The PyTorch peer, timed the same way in the same script run (`vs torch.bf16`: "
                  "torch.bf16's time over the peer's; `fp8c R vs it`: the peer's time over fp8c's "
                  "recipe R).", "",
                  "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        tb = {r["graph"]: r for r in peer["rows"] if r["variant"] == "torch.bf16" and "median_us" in r}
        for r in peer["rows"]:
            if "median_us" not in r:
                lines.append(f"| {r['graph']} | `{r['variant']}` | n/a | " + " | " * len(recipes) + " |")
                continue
            cells = [r["graph"], f"`{r['variant']}`", fmt_us(r["median_us"]),
                     fmt_x(ratio(tb.get(r["graph"]), r), 3)]
            cells += [fmt_x(ratio(r, mine.get((r["graph"], rc))), 3) for rc in recipes]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def gemm_section(doc):
    """fp8c-gemm-bench's rows: the heuristic's and the fastest generated config against cuBLASLt."""
    rows = doc["rows"]
    best_rate = max((2.0 * r["m"] * r["n"] * r["k"] / r["us"] / 1e6 for r in rows if r.get("us")),
                    default=0)
    copy = doc.get("copy_gbs")
    lines = ["## The generated Hopper GEMM against cuBLASLt (`fp8c-gemm-bench`)", ""]
    lines += run_line(doc)
    lines += ["- Peer in this process: cuBLASLt on the same random e4m3 operands (its nearest "
              "equivalent for each epilogue), timed just before the generated kernels.",
              f"- Floor: max(the GEMM's FLOPs at {best_rate:.0f} TFLOP/s, the fastest rate any "
              "kernel reached in the run; " + (
                  f"A, B and D's bytes at the copy rate, {copy / 1e3:.2f} TB/s measured first)."
                  if copy else "its bytes: no copy rate was measured in this run, so the floor "
                  "is the compute one only)."), "",
              "`vs cuBLASLt`: cuBLASLt's time over the generated kernel's (above 1: the generated "
              "kernel is faster). `heuristic`: the config the tile heuristic picks; `fastest`: the "
              "fastest config timed. Details of the configs and epilogues: [gemm.md](gemm.md).", ""]
    head = ["M K N", "epilogue", "cuBLASLt us", "heuristic", "us", "vs cuBLASLt", "fastest",
            "us", "vs cuBLASLt", "floor us"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups = []
    for r in rows:
        key = (r["m"], r["k"], r["n"], r["epilogue"])
        if key not in groups:
            groups.append(key)
    for key in groups:
        g = [r for r in rows if (r["m"], r["k"], r["n"], r["epilogue"]) == key]
        lt = next((r for r in g if r["backend"] == "cublaslt"), None)
        gen = [r for r in g if r["backend"] == "generated"]
        if not gen:
            continue
        heur = next((r for r in gen if r.get("heuristic")), gen[0])
        best = min(gen, key=lambda r: r["us"])
        m, k, n = key[:3]
        floor = 2.0 * m * n * k / (best_rate * 1e6) if best_rate else None
        if copy and floor is not None:  # e4m3 A and B, D in e4m3 or bf16
            d_bytes = 1 if "e4m3" in key[3] else 2
            floor = max(floor, (m * k + n * k + m * n * d_bytes) / (copy * 1e3))
        cells = [f"{key[0]} {key[1]} {key[2]}", key[3] + (f" ({lt['config']})" if lt and key[3] != "plain" else ""),
                 fmt_us(lt["us"]) if lt else "n/a", heur["config"], fmt_us(heur["us"]),
                 fmt_x(heur.get("vs_cublaslt"), 3), best["config"], fmt_us(best["us"]),
                 fmt_x(best.get("vs_cublaslt"), 3), fmt_us(floor)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def page(doc, trains, gemm, svg_name, made_by):
    lines = ["# Performance", "",
             "<!-- Generated by bench/report.py; edit the generator, not this page. -->", "",
             "The current measured figures of fp8c. " + RATIO_NOTE + " Each table names its own "
             "run: the device, the date, the exact command and the peers measured with it. "
             "Absolute times move with the clocks (the boards run at their power cap), so compare "
             "ratios within one run only. How each figure is taken: [bench/README.md](../bench/README.md).",
             "", "## Regenerating this page", "",
             "On a machine with an NVIDIA GPU, after `scripts/build-gpu`:", "",
             "    OUT=/tmp/fwd scripts/bench              # fp8c-bench and the PyTorch peer",
             "    OUT=/tmp/train scripts/gpu-train step   # fp8c-train-bench --sustain --profile, torch_train.py",
             "    OUT=/tmp/gemm scripts/gpu-gemm bench    # fp8c-gemm-bench --json",
             "", "then, with those folders copied back:", "",
             "    python3 bench/report.py /tmp/fwd/fp8c-bench.json --torch /tmp/fwd/torch.json \\",
             "        --train /tmp/train/train-step.json /tmp/train/torch-train.json \\",
             "        --gemm /tmp/gemm/gemm-bench.json --markdown docs/performance.md --plot docs/performance.svg",
             "", "`--train` may be given once per run (each makes a table). This page was made by:", "",
             f"    {made_by}", ""]
    lines += forward_section(doc, svg_name)
    if trains:
        lines += ["## Training: one step, forward and backward (`fp8c-train-bench`)", "",
                  "The graphs are examples/linear.mlir (M 8192, K 4096, N 14336, bias) and "
                  "examples/mlp.mlir (M 8192, 4096 -> 14336 -> 4096, bias, GELU); recipes as `fp8c "
                  "--recipe` names them, `%flag` an alternative plan the bench compares "
                  "([bench/README.md](../bench/README.md)).", ""]
        for t, p in trains:
            lines += train_section(t, p)
    if gemm:
        lines += gemm_section(gemm)
    return "\n".join(lines).rstrip() + "\n"


SVG_COLORS = {"tensorwise": "#4e79a7", "delayed": "#f28e2b", "rowwise": "#59a14f", "blockwise": "#b07aa1"}


def svg_plot(doc, path, ymax=2.5):
    """fp8c's speedup over bf16 (same run) per shape and recipe, as an SVG bar chart."""
    idx = index(doc)
    shapes = []
    for r in doc["rows"]:
        if r["shape"] not in shapes and (r["shape"], "none", "bf16") in idx:
            shapes.append(r["shape"])
    recipes = [rc for rc in RECIPES if any(k[1] == rc and k[2] == "fp8c" for k in idx)]
    left, top, plot_h, group_w, bar_w = 60, 50, 300, 44, 9
    width = left + group_w * len(shapes) + 110  # room for the last rotated label
    height = top + plot_h + 130
    y = lambda v: top + plot_h * (1 - min(v, ymax) / ymax)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">{html.escape(doc["device"])}, {doc["date"]}: '
           f'fp8c (weights quantized every run) over bf16 (cuBLASLt bf16, same run)</text>']
    for t in (0, 0.5, 1.0, 1.5, 2.0, 2.5):
        if t > ymax:
            continue
        out.append(f'<line x1="{left}" x2="{left + group_w * len(shapes)}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                   f'stroke="{"black" if t == 1.0 else "#ddd"}" stroke-width="{1 if t == 1.0 else 0.5}"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:.1f}x</text>')
    for i, s in enumerate(shapes):
        x0 = left + i * group_w + (group_w - bar_w * len(recipes)) / 2
        bf = idx[(s, "none", "bf16")]
        for j, rc in enumerate(recipes):
            v = ratio(bf, idx.get((s, rc, "fp8c")))
            if not v:
                continue
            x = x0 + j * bar_w
            out.append(f'<rect x="{x:.1f}" y="{y(v):.1f}" width="{bar_w - 1}" '
                       f'height="{top + plot_h - y(v):.1f}" fill="{SVG_COLORS.get(rc, "gray")}">'
                       f'<title>{html.escape(s)} {rc}: {v:.2f}x</title></rect>')
            if v > ymax:
                out.append(f'<text x="{x + 4:.1f}" y="{top - 4}" text-anchor="middle" font-size="9">{v:.1f}</text>')
        cx = left + i * group_w + group_w / 2
        out.append(f'<text transform="translate({cx:.1f},{top + plot_h + 8}) rotate(45)" '
                   f'text-anchor="start">{html.escape(s)}</text>')
    for j, rc in enumerate(recipes):
        lx = left + j * 110
        out.append(f'<rect x="{lx}" y="28" width="10" height="10" fill="{SVG_COLORS.get(rc, "gray")}"/>')
        out.append(f'<text x="{lx + 14}" y="37">{rc}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("main")
    ap.add_argument("--torch")
    ap.add_argument("--torch-log")
    ap.add_argument("--out")
    ap.add_argument("--train", nargs="+", action="append", default=[], metavar="JSON",
                    help="fp8c-train-bench's JSON, optionally followed by torch_train.py's")
    ap.add_argument("--gemm")
    ap.add_argument("--markdown")
    ap.add_argument("--plot")
    a = ap.parse_args()
    if not (a.out or a.markdown):
        ap.error("nothing to write: give --out and/or --markdown")
    if a.plot and not a.markdown:
        ap.error("--plot goes with --markdown")
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
    if a.out:
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
    if a.markdown:
        trains = []
        for files in a.train:
            if len(files) > 2:
                ap.error("--train takes fp8c-train-bench's JSON and at most one torch_train.py JSON")
            trains.append((json.load(open(files[0])), json.load(open(files[1])) if len(files) > 1 else None))
        gemm = json.load(open(a.gemm)) if a.gemm else None
        svg_name = None
        if a.plot:
            svg_plot(doc, a.plot)
            svg_name = os.path.relpath(a.plot, os.path.dirname(os.path.abspath(a.markdown)))
        # The command that made the page, with its inputs by file name.
        made_by = "python3 bench/report.py " + " ".join(
            os.path.basename(x) if os.path.isfile(x) and not x.endswith((".md", ".svg")) else x
            for x in sys.argv[1:])
        with open(a.markdown, "w") as f:
            f.write(page(doc, trains, gemm, svg_name, made_by))
        print(f"wrote {a.markdown}" + (f" and {a.plot}" if a.plot else ""))


if __name__ == "__main__":
    sys.exit(main())
