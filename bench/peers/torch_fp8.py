#!/usr/bin/env python3
"""The PyTorch peer of fp8c-bench: the shapes of bench/shapes.txt through PyTorch.

Variants (rows of the same JSON shape as fp8c-bench's, merged by bench/report.py):
  torch.bf16       nn.Linear layers in bf16 (cuBLAS), GELU / SwiGLU in eager PyTorch
  torch.scaled_mm  torch._scaled_mm alone on pre-quantized e4m3 operands (tensorwise: tensor
                   scales; rowwise: per-row scales), bf16 out, bias where the graph has one
  torchao.eager    torchao Float8Linear (convert_to_float8_training, recipe tensorwise /
                   rowwise) in eager mode: what an eager framework runs
  torchao.compile  the same module under torch.compile (default mode)
  torchao.infer    torchao's inference path: quantize_(Float8DynamicActivationFloat8WeightConfig,
                   PerTensor / PerRow / 1x128+128x128 blocks), weights quantized once, under
                   torch.compile (set_inductor_config=False: default inductor settings)
Timing as fp8c-bench (bench/Timing.h): CUDA events back to back, warm-up excluded, median of
many runs, input sets rotated so the working set exceeds L2, CUDA-graph replays for the
shapes marked `graph`. torchao is optional: without it only the first two variants run.

usage: torch_fp8.py --shapes bench/shapes.txt --json OUT.json [--only a,b] [--quick]
                    [--compile-budget-s 110] [--blockwise-infer]
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F


def parse_shapes(path):
    shapes = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        s = {"name": line[0], "kind": line[1], "bias": False, "graph": False, "residual": False}
        for t in line[2:]:
            if t in ("bias", "graph", "residual"):
                s[t] = True
            else:
                k, v = t.split("=")
                s[k] = int(v)
        if s["kind"] == "linear":
            s["dims"] = f"M={s['M']} K={s['K']} N={s['N']}"
            s["gemms"] = [(s["M"], s["N"], s["K"], s["bias"])]
        else:
            s["dims"] = f"M={s['M']} D={s['D']} H={s['H']}"
            m, d, h = s["M"], s["D"], s["H"]
            s["gemms"] = ([(m, h, d, True), (m, d, h, True)] if s["kind"] == "mlp"
                          else [(m, h, d, False), (m, h, d, False), (m, d, h, False)])
        s["flops"] = sum(2.0 * m * n * k for m, n, k, _ in s["gemms"])
        shapes.append(s)
    return shapes


class Model(torch.nn.Module):
    """The shape's graph as nn.Linear layers (weights [out, in], bf16)."""

    def __init__(self, s):
        super().__init__()
        self.kind = s["kind"]
        if self.kind == "linear":
            self.lin = torch.nn.Linear(s["K"], s["N"], bias=s["bias"])
            # The residual stream r [M, N] added to the output (flag residual), held by the model.
            self.r = (torch.nn.Buffer(torch.randn(s["M"], s["N"])) if s["residual"] else None)
        elif self.kind == "mlp":
            self.fc1 = torch.nn.Linear(s["D"], s["H"], bias=True)
            self.fc2 = torch.nn.Linear(s["H"], s["D"], bias=True)
        else:
            self.gate = torch.nn.Linear(s["D"], s["H"], bias=False)
            self.up = torch.nn.Linear(s["D"], s["H"], bias=False)
            self.down = torch.nn.Linear(s["H"], s["D"], bias=False)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, torch.nn.Linear):
                    m.weight.normal_(0, 1 / math.sqrt(m.in_features))
                    if m.bias is not None:
                        m.bias.normal_(0, 0.1)

    def forward(self, x):
        if self.kind == "linear":
            return self.lin(x) if self.r is None else self.lin(x) + self.r
        if self.kind == "mlp":
            return self.fc2(F.gelu(self.fc1(x), approximate="tanh"))
        return self.down(F.silu(self.gate(x)) * self.up(x))


def stats(samples):
    s = sorted(samples)

    def q(p):
        pos = p * (len(s) - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    return {"median_us": q(0.5), "p10_us": q(0.1), "p90_us": q(0.9), "min_us": s[0],
            "max_us": s[-1], "reps": len(s)}


def time_steps(step, n, divisor=1.0):
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
    ev[0].record()
    for i in range(n):
        step(i)
        ev[i + 1].record()
    ev[n].synchronize()
    return [ev[i].elapsed_time(ev[i + 1]) * 1e3 / divisor for i in range(n)]


def time_runs(run, sets, cuda_graph, opts):
    """run(set) enqueues one run. Returns stats in microseconds (see bench/Timing.h)."""
    if cuda_graph:
        for i in range(2 * sets):
            run(i % sets)
        torch.cuda.synchronize()
        per_graph = sets * max(1, -(-opts.runs_per_graph // sets))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(per_graph):
                run(i % sets)
        step, divisor = (lambda i: g.replay()), float(per_graph)
    else:
        step, divisor = (lambda i: run(i % sets)), 1.0
    total, done, batch = 0.0, 0, 3
    while done < 3 or total < opts.warmup_ms:
        total += sum(time_steps(step, batch)) / 1e3
        done += batch
        if done > 2000:
            break
        batch = min(batch * 2, 64)
    est = sum(time_steps(step, 3)) / 3e3
    reps = max(opts.min_reps, min(opts.max_reps, int(opts.target_ms / est) if est > 0 else 10**9))
    out = stats(time_steps(step, reps, divisor))
    out["cuda_graph"] = bool(cuda_graph)
    return out


def to_e4m3(t, scale):
    return (t.float() * scale).clamp(-448, 448).to(torch.float8_e4m3fn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="bench/shapes.txt")
    ap.add_argument("--json", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--compile-budget-s", type=float, default=110.0)
    ap.add_argument("--blockwise-infer", action="store_true",
                    help="also torchao.infer with 1x128/128x128 blocks (about 17 s of compile per "
                         "shape on an H200, so off by default)")
    opts = ap.parse_args()
    opts.warmup_ms, opts.target_ms, opts.min_reps, opts.max_reps = 25.0, 200.0, 15, 400
    opts.runs_per_graph = 20
    if opts.quick:
        opts.warmup_ms, opts.target_ms, opts.min_reps = 5.0, 20.0, 5

    torch.manual_seed(0)
    dev = torch.cuda.get_device_properties(0)
    l2 = getattr(dev, "L2_cache_size", 50 << 20)
    info = {"tool": "torch_fp8.py", "torch": torch.__version__, "device": dev.name,
            "torchao": None, "torchao_error": None,
            "command": " ".join(["python3"] + sys.argv), "rows": []}
    try:
        import torchao
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
        info["torchao"] = getattr(torchao, "__version__", "unknown") + " from " + os.path.dirname(
            torchao.__file__)
    except Exception as e:  # noqa: BLE001 - optional peer
        info["torchao_error"] = f"{type(e).__name__}: {e}"
        print(f"torch_fp8.py: torchao not importable ({info['torchao_error']}); "
              "torchao rows skipped", flush=True)
    torch._dynamo.config.cache_size_limit = 64
    print(f"torch_fp8.py: torch {torch.__version__} on {dev.name}, torchao {info['torchao']}",
          flush=True)

    shapes = parse_shapes(opts.shapes)
    only = [o for o in opts.only.split(",") if o]
    if only:
        shapes = [s for s in shapes if any(o in s["name"] for o in only)]
    compile_spent = 0.0
    t0 = time.time()

    def emit(s, recipe, variant, fn):
        row = {"source": "torch", "shape": s["name"], "dims": s["dims"], "recipe": recipe,
               "variant": variant, "flops": s["flops"]}
        try:
            row.update(fn())
        except Exception as e:  # noqa: BLE001 - a peer that cannot run a shape is a row
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
            torch.cuda.synchronize()
        info["rows"].append(row)
        med = f"{row['median_us']:10.1f} us" if "median_us" in row else "n/a: " + row["error"][:90]
        print(f"{s['name']:<20} {recipe:<10} {variant:<16} {med}   [{time.time() - t0:.0f}s]",
              flush=True)

    for s in shapes:
        m = s["M"]
        kin = s.get("K", s.get("D"))
        set_bytes = sum(p.numel() * 2 for p in Model(s).parameters()) + m * kin * 2
        sets = max(1, min(8, math.ceil(3 * l2 / set_bytes)))
        models = [Model(s).cuda().to(torch.bfloat16) for _ in range(sets)]
        xs = [torch.randn(m, kin, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
        graph = s["graph"]

        with torch.no_grad():
            emit(s, "none", "torch.bf16",
                 lambda: time_runs(lambda i: models[i](xs[i]), sets, graph, opts))

            for recipe in ("tensorwise", "rowwise", "blockwise"):
                def scaled_mm():
                    ops = []
                    for i in range(sets):
                        chain = []
                        for (gm, gn, gk, bias) in s["gemms"]:
                            a = to_e4m3(torch.randn(gm, gk, device="cuda"), 64.0)
                            b = to_e4m3(torch.randn(gn, gk, device="cuda") / math.sqrt(gk), 64.0 * math.sqrt(gk))
                            if recipe == "tensorwise":
                                sa = torch.tensor(1 / 64, device="cuda")
                                sb = torch.tensor(1 / (64 * math.sqrt(gk)), device="cuda")
                            else:
                                sa = torch.full((gm, 1), 1 / 64, device="cuda")
                                sb = torch.full((1, gn), 1 / (64 * math.sqrt(gk)), device="cuda")
                            bb = torch.randn(gn, device="cuda", dtype=torch.bfloat16) * 0.1 if bias else None
                            chain.append((a, b, sa, sb, bb))
                        ops.append(chain)

                    def run(i):
                        for a, b, sa, sb, bb in ops[i]:
                            torch._scaled_mm(a, b.t(), sa, sb, bias=bb, out_dtype=torch.bfloat16,
                                             use_fast_accum=True)
                    return time_runs(run, sets, graph, opts)
                if recipe != "blockwise":
                    emit(s, recipe, "torch.scaled_mm", scaled_mm)

                if info["torchao"] is None:
                    continue

                def infer():
                    nonlocal compile_spent
                    import copy
                    from torchao.quantization import (Float8DynamicActivationFloat8WeightConfig,
                                                      PerBlock, PerRow, PerTensor, quantize_)
                    if compile_spent > opts.compile_budget_s:
                        raise RuntimeError(f"skipped: torch.compile budget of {opts.compile_budget_s:.0f} s spent")
                    kw = {}
                    if recipe == "blockwise":
                        from torchao.quantization.quantize_.common.kernel_preference import KernelPreference
                        gran = [PerBlock([1, 128]), PerBlock([128, 128])]
                        kw["kernel_preference"] = KernelPreference.TORCH
                    else:
                        gran = PerTensor() if recipe == "tensorwise" else PerRow()
                    cfg = Float8DynamicActivationFloat8WeightConfig(granularity=gran, set_inductor_config=False, **kw)
                    c0 = time.time()
                    qmods = []
                    for mdl in models:
                        q = copy.deepcopy(mdl)
                        quantize_(q, cfg)
                        qmods.append(torch.compile(q))
                    for i in range(sets):
                        qmods[i](xs[i])
                    torch.cuda.synchronize()
                    spent = time.time() - c0
                    compile_spent += spent
                    out = time_runs(lambda i: qmods[i](xs[i]), sets, graph, opts)
                    out["compile_s"] = spent
                    return out
                if recipe != "blockwise" or opts.blockwise_infer:
                    emit(s, recipe, "torchao.infer", infer)
                if recipe == "blockwise":
                    continue
                fmods = []

                def convert():
                    import copy
                    cfg = Float8LinearConfig.from_recipe_name(recipe)
                    for mdl in models:
                        fmods.append(convert_to_float8_training(copy.deepcopy(mdl), config=cfg))
                    return time_runs(lambda i: fmods[i](xs[i]), sets, graph, opts)
                emit(s, recipe, "torchao.eager", convert)

                def compiled():
                    nonlocal compile_spent
                    if not fmods:
                        raise RuntimeError("torchao.eager failed; nothing to compile")
                    if compile_spent > opts.compile_budget_s:
                        raise RuntimeError(f"skipped: torch.compile budget of {opts.compile_budget_s:.0f} s spent")
                    c0 = time.time()
                    cmods = [torch.compile(f) for f in fmods]
                    for i in range(sets):
                        cmods[i](xs[i])
                    torch.cuda.synchronize()
                    spent = time.time() - c0
                    compile_spent += spent
                    out = time_runs(lambda i: cmods[i](xs[i]), sets, graph, opts)
                    out["compile_s"] = spent
                    return out
                emit(s, recipe, "torchao.compile", compiled)
                del fmods
        del models, xs
        torch.cuda.empty_cache()
        with open(opts.json, "w") as f:  # after every shape: a run cut short keeps its rows
            json.dump(info, f, indent=1)
    print(f"wrote {opts.json}", flush=True)


if __name__ == "__main__":
    main()
