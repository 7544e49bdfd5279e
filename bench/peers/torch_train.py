#!/usr/bin/env python3
"""The PyTorch peer of fp8c-train-bench: one training step (forward + backward) of the same
graphs, as users run them in PyTorch.

Graphs (examples/*.mlir, bf16, M tokens):
  linear      nn.Linear(4096 -> 14336, bias)
  mlp         Linear(4096 -> 14336, bias) -> GELU(tanh) -> Linear(14336 -> 4096, bias)
  swiglu_mlp  down(silu(gate(x)) * up(x)), 4096 -> 14336 -> 4096, no biases
Variants:
  torch.bf16          eager bf16 (cuBLAS GEMMs with the transposes folded into the layouts)
  torch.bf16.compile  the same module under torch.compile (with --bf16-compile)
  torchao.<recipe>    torchao Float8Linear (convert_to_float8_training with
                      Float8LinearConfig.from_recipe_name(recipe): tensorwise, rowwise) under
                      torch.compile, as torchao recommends for training
The step is `y = model(x); y.backward(dy)` with x.requires_grad (fp8c's step returns dX too);
gradients are set to None before each step so nothing accumulates. Timing as fp8c-train-bench:
a CUDA event pair around each step, warm-up excluded, median of --reps steps.
With --sustain-ms MS, as fp8c-train-bench --sustain: each variant runs --reps blocks of MS
milliseconds of back-to-back steps (an event after every step, no synchronization inside a
block), the first third of each block left out (the clocks settle under the power cap), the
median of the rest per block, and the median of the blocks reported.

With --profile, each variant's step also runs under torch.profiler (after the timing) and
the CUDA kernels are printed with their time per step, the peer of fp8c-train-bench --profile.

usage: torch_train.py --json OUT.json [--tokens 8192] [--reps 20] [--graphs linear,mlp]
                      [--recipes tensorwise,rowwise] [--bf16-compile] [--profile]
                      [--sustain-ms MS]
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


class Graph(torch.nn.Module):
    def __init__(self, kind, d=4096, h=14336):
        super().__init__()
        self.kind = kind
        if kind == "linear":
            self.lin = torch.nn.Linear(d, h, bias=True)
        elif kind == "mlp":
            self.fc1 = torch.nn.Linear(d, h, bias=True)
            self.fc2 = torch.nn.Linear(h, d, bias=True)
        elif kind == "swiglu_mlp":
            self.gate = torch.nn.Linear(d, h, bias=False)
            self.up = torch.nn.Linear(d, h, bias=False)
            self.down = torch.nn.Linear(h, d, bias=False)
        else:
            raise ValueError(f"unknown graph {kind}")
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, torch.nn.Linear):
                    m.weight.normal_(0, 0.02)
                    if m.bias is not None:
                        m.bias.normal_(0, 0.02)

    def forward(self, x):
        if self.kind == "linear":
            return self.lin(x)
        if self.kind == "mlp":
            return self.fc2(F.gelu(self.fc1(x), approximate="tanh"))
        return self.down(F.silu(self.gate(x)) * self.up(x))


def training_step(model, x, dy):
    """One step: y = model(x); y.backward(dy), gradients cleared first so nothing accumulates."""
    def step():
        x.grad = None
        for p in model.parameters():
            p.grad = None
        model(x).backward(dy)
    return step


def time_steps(model, x, dy, reps, warmup=5):
    step = training_step(model, x, dy)

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    times.sort()
    return {"median_us": times[len(times) // 2], "p10_us": times[len(times) // 10],
            "p90_us": times[(len(times) * 9) // 10], "reps": len(times)}


def sustained_steps(model, x, dy, blocks, block_ms, warmup=5):
    """Median step time of each block of back-to-back steps (last two thirds), then their
    median: the regime of a training run under the board's power cap."""
    step = training_step(model, x, dy)

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(3):
        step()
    b.record()
    b.synchronize()
    est_us = a.elapsed_time(b) * 1000.0 / 3
    n = max(9, min(4000, int(block_ms * 1000.0 / max(est_us, 1.0))))
    medians = []
    for _ in range(blocks):
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
        ev[0].record()
        for i in range(n):
            step()
            ev[i + 1].record()
        ev[n].synchronize()
        kept = sorted(ev[i].elapsed_time(ev[i + 1]) * 1000.0 for i in range(n // 3, n))
        medians.append(kept[len(kept) // 2])
    medians.sort()
    return {"median_us": medians[len(medians) // 2], "p10_us": medians[len(medians) // 10],
            "p90_us": medians[(len(medians) * 9) // 10], "reps": len(medians),
            "steps_per_block": n, "sustain_ms": block_ms}


def profile_steps(model, x, dy, steps=5):
    """Per-kernel CUDA time of one step (mean over `steps` profiled steps), largest first."""
    from torch.profiler import ProfilerActivity, profile

    step = training_step(model, x, dy)

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    rows = []
    for ev in prof.key_averages():
        us = getattr(ev, "self_device_time_total", None)
        if us is None:
            us = getattr(ev, "self_cuda_time_total", 0.0)
        if us > 0:
            rows.append((us / steps, ev.count // steps, ev.key))
    rows.sort(reverse=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--graphs", default="linear,mlp")
    ap.add_argument("--recipes", default="tensorwise")
    ap.add_argument("--bf16-compile", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--sustain-ms", type=float, default=0.0)
    opts = ap.parse_args()
    if opts.sustain_ms < 0:
        ap.error("--sustain-ms must be positive")
    dev = torch.cuda.get_device_properties(0)
    info = {"tool": "torch_train.py", "device": dev.name, "torch": torch.__version__,
            "tokens": opts.tokens, "torchao": None,
            "command": " ".join(["python3"] + sys.argv), "rows": []}
    try:
        import torchao
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
        info["torchao"] = getattr(torchao, "__version__", "unknown")
    except Exception as e:  # noqa: BLE001 - report any import failure and go on without it
        print(f"torch_train.py: torchao not importable ({type(e).__name__}: {e}); "
              "torchao rows skipped", flush=True)
    print(f"torch_train.py: torch {torch.__version__} on {dev.name}, torchao {info['torchao']}, "
          f"{opts.tokens} tokens, " + (f"median of {opts.reps} blocks of {opts.sustain_ms:.0f} ms "
          "(last two thirds)" if opts.sustain_ms else f"median of {opts.reps} steps"),
          flush=True)

    def emit(graph, variant, make):
        row = {"graph": graph, "variant": variant}
        try:
            t0 = time.time()
            torch.manual_seed(0)
            model = make()
            x = torch.randn(opts.tokens, 4096, device="cuda", dtype=torch.bfloat16,
                            requires_grad=True)
            dy = torch.randn(opts.tokens, 4096 if graph != "linear" else 14336, device="cuda",
                             dtype=torch.bfloat16)
            if opts.sustain_ms:
                row.update(sustained_steps(model, x, dy, opts.reps, opts.sustain_ms))
            else:
                row.update(time_steps(model, x, dy, opts.reps))
            row["setup_s"] = time.time() - t0
            print(f"{graph:12s} {variant:20s} median {row['median_us']:9.1f} us  p10 "
                  f"{row['p10_us']:9.1f}  p90 {row['p90_us']:9.1f}  ({row['reps']} {'blocks' if opts.sustain_ms else 'steps'}, "
                  f"setup {row['setup_s']:.1f} s)", flush=True)
            if opts.profile:
                kernels = profile_steps(model, x, dy)
                row["kernels"] = [{"us": us, "calls": n, "name": k} for us, n, k in kernels]
                print(f"{graph:12s} {variant:20s} per-kernel profile "
                      f"(total {sum(us for us, _, _ in kernels):.1f} us per step)", flush=True)
                for us, n, k in kernels:
                    print(f"    {us:9.1f} us  x{n}  {k[:110]}", flush=True)
        except Exception as e:  # noqa: BLE001 - a failing variant is a row with its error
            row["error"] = f"{type(e).__name__}: {e}"
            print(f"{graph:12s} {variant:20s} FAILS: {row['error']}", flush=True)
            traceback.print_exc()
        info["rows"].append(row)
        with open(opts.json, "w") as f:
            json.dump(info, f, indent=1)

    for graph in opts.graphs.split(","):
        base = lambda: Graph(graph).cuda().to(torch.bfloat16)  # noqa: E731
        emit(graph, "torch.bf16", base)
        if opts.bf16_compile:
            emit(graph, "torch.bf16.compile", lambda: torch.compile(base()))
        if info["torchao"] is None:
            continue
        for recipe in filter(None, opts.recipes.split(",")):
            def fp8(recipe=recipe):
                cfg = Float8LinearConfig.from_recipe_name(recipe)
                return torch.compile(convert_to_float8_training(base(), config=cfg))
            emit(graph, f"torchao.{recipe}", fp8)
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
