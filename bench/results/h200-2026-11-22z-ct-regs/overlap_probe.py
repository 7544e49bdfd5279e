#!/usr/bin/env python3
"""Does the delayed MLP backward's gelu_grad cast-transpose hide behind the independent w2
weight-gradient GEMM when both run at once on two streams? (An experiment for issue 8.)

The GEMM is torch._scaled_mm (cuBLASLt) at the wgrad's shape, M 4096 N 14336 K 8192, e5m2 x
e4m3, bf16 out; the cast-transpose is the launch fp8c emits (kernel_ab compiles it with NVRTC
and runs it through CuPy) with a grid of G blocks. Timed with CUDA events on the GEMM's stream
around: each alone, then both started together (the cast-transpose first, so its G blocks are
resident before the GEMM's CTAs arrive), for several G.

usage: overlap_probe.py EMITTED.cu INCLUDE_DIR [--reps N]
"""
import argparse
import importlib.util
import os
import statistics
import sys

import cupy as cp
import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "kernel_ab", os.path.join(here, "..", "..", "kernel_ab.py"))
kab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kab)

ap = argparse.ArgumentParser()
ap.add_argument("cuda")
ap.add_argument("include")
ap.add_argument("--kernel", default="fp8c_mlp_bwd_k1_grad_fallback")
ap.add_argument("--reps", type=int, default=20)
args = ap.parse_args()

src = kab.launch_source(open(args.cuda).read(), args.kernel)
bufs = kab.parse_buffers(src)
arrays = kab.allocate(bufs, np.random.default_rng(0))
fn = kab.compile_variant(src, len(bufs), args.include, "")
full_grid, regs = kab.resident_grid(fn)
zeroed = [a for a, b in zip(arrays, bufs) if "zeroed" in b["role"]]

M, N, K = 4096, 14336, 8192
a = torch.randn(M, K, device="cuda").to(torch.float8_e5m2)
b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
one = torch.ones((), device="cuda")
gemm_stream = torch.cuda.Stream()
ct_stream = cp.cuda.Stream(non_blocking=True)
torch_side = torch.cuda.ExternalStream(ct_stream.ptr)


def gemm():
    return torch._scaled_mm(a, b.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=False)


def cast_transpose(grid):
    for z in zeroed:
        z.fill(0)  # on cupy's current stream
    fn((grid,), (256,), (*arrays, np.int64(0)))


def timed(what, grid):
    """Median us from the GEMM stream's start event to the end of everything started."""
    times = []
    for rep in range(args.reps + 3):
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(gemm_stream):
            start.record()
        side_start = torch.cuda.Event()
        side_start.record(gemm_stream)
        torch_side.wait_event(side_start)
        if what in ("ct", "both"):
            with ct_stream:
                cast_transpose(grid)
        if what in ("gemm", "both"):
            with torch.cuda.stream(gemm_stream):
                gemm()
        side_done = torch.cuda.Event()
        side_done.record(torch_side)
        gemm_stream.wait_event(side_done)
        with torch.cuda.stream(gemm_stream):
            stop.record()
        torch.cuda.synchronize()
        if rep >= 3:
            times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


print(f"{torch.cuda.get_device_name()}: gelu_grad cast-transpose ({regs} registers, "
      f"resident grid {full_grid}) beside the w2 wgrad GEMM M {M} N {N} K {K}")
g_alone = timed("gemm", full_grid)
print(f"  GEMM alone                         {g_alone:8.1f} us")
for grid in (full_grid, 132, 66, 33, 16):
    c = timed("ct", grid)
    both = timed("both", grid)
    print(f"  grid {grid:4d}: cast-transpose alone {c:8.1f} us, both at once {both:8.1f} us "
          f"(sum {g_alone + c:8.1f}, saved {g_alone + c - both:7.1f})")
