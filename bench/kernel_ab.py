#!/usr/bin/env python3
"""A/B timing of one generated launch against several versions of the kernel headers.

Takes the CUDA that `fp8c FILE --emit=cuda` prints, keeps the launch named by --kernel, and
compiles it with NVRTC (through CuPy) once per header directory given with --variant NAME=DIR
(DIR holds fp8c/*.cuh, e.g. a copy of codegen/kernels under DIR/fp8c). Buffers are sized from the
launch's `// buffers:` comment: bf16 / f16 / f32 inputs get random normal values, f32 scalars and
histories 1.0, buffers marked `zeroed` are cleared before every launch. The grid is the
persistent one the runtime uses (resident blocks per SM x SMs). Variants run interleaved, one
launch each per round; the medians (CUDA events around the launch alone) are printed with the
bytes the launch moves at that time. --after-gemm N runs an untimed f16 N^3 matmul before each
timed launch (a training step's launches start right after a GEMM); --soak-ms MS runs that matmul
(random operands) back to back for about MS ms first, so the launch runs at the SM clock a
sustained, power-capped step settles at (H200: 1400-1470 MHz, where a launch that issues many
instructions per byte slows more than one bound by DRAM). For kernel development; the
product is timed by fp8c-train-bench and fp8c-bench.

A variant is NAME=DIR, optionally followed by `@B` (launch bounds, e.g. 256,4) and by comma-free
`+key=value` options: `+entry=generated` (the default: the entry point's form as generated,
which the runtime compiles), `+entry=args` (Args by value), `+entry=gridconst` (Args as a
__grid_constant__ parameter) or `+entry=params` (the buffers as separate pointer parameters), and
`+chunks=N` (a launch with column sums split into N chunks of tile rows instead of the generated
count). The entry's form changes ptxas's register choice for the same body, so timings meant for
the runtime keep the generated form.
"""
import argparse
import ctypes
import os
import re
import statistics
import sys
import tempfile

import cupy as cp
import numpy as np

DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4, "f8E4M3FN": 1, "f8E5M2": 1}
BUFFER_RE = re.compile(r"(\d+) %(\S+) tensor<([^>]*)>( pitch [^(]*)? \(([^)]*)\)")


def launch_source(text, kernel):
    """The section of --emit=cuda output for one generated launch."""
    start = text.find(f"launch {kernel} =====")
    if start < 0:
        sys.exit(f"kernel_ab: no launch named {kernel}")
    end = text.find("// =====", start + 1)
    return text[text.rfind("\n", 0, start) + 1:end if end > 0 else len(text)]


def parse_buffers(src):
    lines = src[src.find("// buffers:"):src.find("#include")]
    bufs = []
    for m in BUFFER_RE.finditer(lines):
        slot, name, ty, pitch, role = m.groups()
        parts = ty.split("x")
        dt, dims = parts[-1], [int(p) for p in parts[:-1]]
        if pitch and "roundup" not in pitch:
            dims[-1] = max(dims[-1], int(pitch.split()[-1]))
        count = int(np.prod(dims)) if dims else 1
        bufs.append(dict(slot=int(slot), name=name, dt=dt, count=count, role=role))
    return sorted(bufs, key=lambda b: b["slot"])


def allocate(bufs, rng):
    arrays = []
    for b in bufs:
        nbytes = b["count"] * DTYPE_BYTES[b["dt"]]
        a = cp.zeros((nbytes + 15) // 16 * 16, dtype=cp.uint8)
        if "zeroed" not in b["role"]:
            if b["dt"] == "f32":
                a.view(cp.float32)[: b["count"]] = 1.0
            elif b["dt"] in ("bf16", "f16"):
                x = cp.asarray(rng.standard_normal(b["count"], dtype=np.float32))
                bits = (x.view(cp.uint32) >> 16).astype(cp.uint16) if b["dt"] == "bf16" \
                    else x.astype(cp.float16).view(cp.uint16)
                a.view(cp.uint16)[: b["count"]] = bits
        arrays.append(a)
    return arrays


def compile_variant(src, n, include, bounds, entry_form, save_as=None):
    entry = re.search(r'extern "C" __global__ void (__launch_bounds__\([^)]*\)) (\w+)\('
                      r'(const __grid_constant__ )?fp8c::Args<\d+> args\) \{\n\s*(.*)\n\}', src)
    if not entry:
        sys.exit("kernel_ab: no generated entry point in the launch")
    generated_bounds, name, generated_qual, body = entry.groups()
    if entry_form == "generated":
        entry_form = "gridconst" if generated_qual else "args"
    bounds = f"__launch_bounds__({bounds})" if bounds else generated_bounds
    head = src[:entry.start()]
    if entry_form == "params":
        # The buffers as separate parameters, gathered into Args in the body.
        params = ", ".join(f"void *b{i}" for i in range(n))
        ptrs = ", ".join(f"b{i}" for i in range(n))
        code = head + f"""
extern "C" __global__ void {bounds} ab_entry({params}, long long m) {{
  const fp8c::Args<{n}> args = {{{{{ptrs}}}, m}};
  {body}
}}
"""
    elif entry_form in ("args", "gridconst"):
        qual = "const __grid_constant__ " if entry_form == "gridconst" else ""
        code = head + f"""
extern "C" __global__ void {bounds} ab_entry({qual}fp8c::Args<{n}> args) {{
  {body}
}}
"""
    else:
        sys.exit(f"kernel_ab: unknown entry form {entry_form} (generated, args, gridconst, params)")
    # Header variants whose transposes stage their inputs in dynamic shared memory (the cp.async
    # ring of bench/results/h200-2026-11-27c-staged-casts/staged-ring.patch, measured slower and
    # not kept) say how much through transpose.cuh's stagedSharedBytes.
    probe = "transposeKernel" in body and "stagedSharedBytes" in open(
        os.path.join(include, "fp8c", "transpose.cuh")).read()
    if probe:
        code += """
extern "C" __global__ void ab_smem(int *o) { *o = fp8c::transpose::stagedSharedBytes<Spec>(); }
"""
    # An sm_90a CUBIN from NVRTC with the runtime's options (CuPy's own compile path goes
    # through PTX and the driver's JIT, whose register choices differ).
    opts = ["--std=c++17", "--gpu-architecture=sm_90a", "-lineinfo", "-I" + include,
            "-I" + os.path.join(CUDA_HOME, "include")]
    cubin = nvrtc_cubin(code, opts)
    if save_as:
        with open(save_as, "wb") as f:
            f.write(cubin)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
    module = cp.RawModule(path=f.name)
    fn = Entry(module.get_function("ab_entry"), entry_form)
    dyn = 0
    # A launch with an FP8 table (rows.cuh, kTabIn) asks for it in the plan's grid line.
    table = re.search(r"(\d+) B of dynamic shared memory", src)
    if table:
        dyn = int(table.group(1))
        fn.function.max_dynamic_shared_size_bytes = dyn
    if probe:
        out = cp.zeros(1, dtype=cp.int32)
        module.get_function("ab_smem")((1,), (1,), (out,))
        dyn = int(out.get()[0])
        # Static plus dynamic shared memory above 48 KiB needs the function's opt-in.
        fn.function.max_dynamic_shared_size_bytes = dyn
    return fn, dyn


CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def nvrtc_cubin(code, opts):
    lib = ctypes.CDLL(os.path.join(CUDA_HOME, "lib64", "libnvrtc.so"))
    prog = ctypes.c_void_p()
    check = lambda r, what: r == 0 or sys.exit(f"kernel_ab: {what} failed ({r})")
    check(lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), b"ab.cu", 0, None, None),
          "nvrtcCreateProgram")
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    r = lib.nvrtcCompileProgram(prog, len(opts), arr)
    if r != 0:
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        sys.exit(f"kernel_ab: NVRTC failed:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    check(lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
    buf = ctypes.create_string_buffer(size.value)
    check(lib.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


class Entry:
    """A variant's compiled entry point and the form of its parameters."""

    def __init__(self, function, form):
        self.function, self.form = function, form
        self.num_regs, self.shared_size_bytes = function.num_regs, function.shared_size_bytes


def launch(fn, grid, arrays, m, dyn):
    """One launch of the variant's entry: Args<N> by value is packed as the runtime packs it (the
    buffers' addresses, then M) and passed as the kernel's single parameter."""
    if fn.form == "params":
        fn.function((grid,), (256,), (*arrays, np.int64(m)), shared_mem=dyn)
        return
    packed = (ctypes.c_uint64 * (len(arrays) + 1))(*[a.data.ptr for a in arrays], m & (2**64 - 1))
    params = (ctypes.c_void_p * 1)(ctypes.addressof(packed))
    cp.cuda.driver.launchKernel(fn.function.kernel.ptr, grid, 1, 1, 256, 1, 1, dyn,
                                cp.cuda.get_current_stream().ptr, ctypes.addressof(params), 0)


def with_chunks(src, chunks):
    """The launch with its column sums split into `chunks` chunks of tile rows."""
    old = re.search(r"kColChunks = (\d+)", src)
    if not old:
        sys.exit("kernel_ab: +chunks on a launch without column sums")
    src = src.replace(old.group(0), f"kColChunks = {chunks}")
    # The partial sums buffer [chunks, cols] (the grid is the resident one, as for any variant).
    return re.sub(r"(%colsum_partial\S* tensor<)\d+x", rf"\g<1>{chunks}x", src)


def resident_grid(fn, dyn):
    dev = cp.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    regs = (fn.num_regs + 7) // 8 * 8
    by_regs = 65536 // (regs * 256)
    by_smem = (228 * 1024) // (fn.shared_size_bytes + dyn + 1024)
    return min(8, by_regs, by_smem) * sms, fn.num_regs


def parse_variant(text):
    """NAME=DIR[@BOUNDS][+key=value ...] as (name, dir, bounds, {key: value})."""
    name, rest = text.split("=", 1)
    rest, *options = rest.split("+")
    inc, _, bounds = rest.partition("@")
    opts = dict(o.split("=", 1) for o in options)
    unknown = set(opts) - {"entry", "chunks"}
    if unknown:
        sys.exit(f"kernel_ab: unknown variant options {sorted(unknown)} (entry, chunks)")
    return name, inc, bounds, opts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cuda", help="output of fp8c --emit=cuda")
    ap.add_argument("--kernel", action="append", required=True, help="launch name (repeatable)")
    ap.add_argument("--variant", action="append", required=True,
                    help="NAME=INCLUDE_DIR[@BOUNDS][+entry=generated|args|gridconst|params]"
                         "[+chunks=N]: BOUNDS replace the launch bounds (e.g. 256,4); see the "
                         "module's help")
    ap.add_argument("--m", type=int, default=0, help="the dynamic M (0: the graph's static size)")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--after-gemm", type=int, default=0, metavar="N",
                    help="run an N x N x N f16 matmul (untimed) before each timed launch: the "
                         "launch then starts as it does in a training step, right after a GEMM")
    ap.add_argument("--soak-ms", type=float, default=0.0, metavar="MS",
                    help="with --after-gemm: run that matmul back to back for about MS ms before "
                         "each timed launch, so the launch runs at the clock a sustained, "
                         "power-capped training step settles at")
    ap.add_argument("--save-cubin", metavar="DIR",
                    help="write each variant's CUBIN as DIR/KERNEL.NAME.cubin (for cuobjdump)")
    args = ap.parse_args()
    text = open(args.cuda).read()
    rng = np.random.default_rng(0)
    print(f"kernel_ab on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"median of {args.reps} launches per variant, interleaved")
    for kernel in args.kernel:
        src = launch_source(text, kernel)
        specs = [parse_variant(v) for v in args.variant]
        # The partial column sums are allocated for the most chunks any variant asks for.
        most = max((int(o["chunks"]) for *_, o in specs if "chunks" in o), default=0)
        generated = re.search(r"kColChunks = (\d+)", src)
        sized = with_chunks(src, most) if generated and most > int(generated.group(1)) else src
        bufs = parse_buffers(sized)
        moved = sum(b["count"] * DTYPE_BYTES[b["dt"]] for b in parse_buffers(src)
                    if b["count"] > 4096)  # the tensors, read or written once
        arrays = allocate(bufs, rng)
        variants = []
        for name, inc, bounds, opts in specs:
            vsrc = with_chunks(src, int(opts["chunks"])) if "chunks" in opts else src
            save = os.path.join(args.save_cubin, f"{kernel}.{name}.cubin") if args.save_cubin \
                else None
            fn, dyn = compile_variant(vsrc, len(bufs), inc, bounds, opts.get("entry", "generated"),
                                      save)
            grid, regs = resident_grid(fn, dyn)
            variants.append((name, fn, grid, regs, [], dyn))
        zeroed = [a for a, b in zip(arrays, bufs) if "zeroed" in b["role"]]
        soaks = 0
        if args.after_gemm:
            ga = cp.ones((args.after_gemm, args.after_gemm), dtype=cp.float16)
            gc = cp.empty_like(ga)
            if args.soak_ms > 0:
                # Random operands: a GEMM of constants draws less power than a training step's.
                gs = cp.asarray(rng.standard_normal(ga.shape, dtype=np.float32)).astype(cp.float16)
                s0, s1 = cp.cuda.Event(), cp.cuda.Event()
                cp.matmul(gs, gs, out=gc)
                s0.record()
                cp.matmul(gs, gs, out=gc)
                s1.record()
                s1.synchronize()
                soaks = max(1, int(args.soak_ms / cp.cuda.get_elapsed_time(s0, s1)))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for rep in range(args.reps + 2):
            for name, fn, grid, regs, times, dyn in variants:
                for a in zeroed:
                    a.fill(0)
                if args.after_gemm:
                    for _ in range(soaks):
                        cp.matmul(gs, gs, out=gc)
                    cp.matmul(ga, ga, out=gc)
                start.record()
                launch(fn, grid, arrays, args.m, dyn)
                stop.record()
                stop.synchronize()
                if rep >= 2:
                    times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
        print(f"{kernel}: {moved / 1e6:.1f} MB of tensors")
        for name, fn, grid, regs, times, dyn in variants:
            med = statistics.median(times)
            print(f"  {name:<14} median {med:8.1f} us  p10 {np.percentile(times, 10):8.1f}  "
                  f"{moved / med / 1e3:7.1f} GB/s  ({regs} registers, grid {grid}"
                  f"{f', {dyn} B dynamic shared' if dyn else ''})")
        if len(variants) > 1:
            compare_outputs(variants, arrays, bufs, args.m, read_slots(src))


def read_slots(src):
    """Buffer slots the launch reads: its inputs, scale buffers and graph inputs / state."""
    spec = src[src.find("struct Spec"):]
    return {int(i) for i in re.findall(r"InDesc::\w+\((\d+)|bufferScale\((\d+)\)", spec)
            for i in i if i}


def snapshot(fn, grid, dyn, arrays, bufs, m, reads):
    """The written buffers after one launch from cleared outputs (inputs left as allocated)."""
    written = [i for i, b in enumerate(bufs) if i not in reads
               and b["role"].split(",")[0] not in ("input", "state")]
    for i in written:
        arrays[i].fill(0)
    launch(fn, grid, arrays, m, dyn)
    cp.cuda.Device().synchronize()
    return {i: cp.asnumpy(arrays[i]) for i in written}


def compare_outputs(variants, arrays, bufs, m, reads):
    """Each variant's outputs against the first's: FP8 and integer buffers byte for byte, f32
    and bf16 ones as the largest difference relative to the largest magnitude."""
    ref_name, ref_fn, ref_grid = variants[0][:3]
    ref = snapshot(ref_fn, ref_grid, variants[0][5], arrays, bufs, m, reads)
    for name, fn, grid, _, _, dyn in variants[1:]:
        out = snapshot(fn, grid, dyn, arrays, bufs, m, reads)
        for i, a in ref.items():
            b, dt = out[i], bufs[i]["dt"]
            n = bufs[i]["count"] * DTYPE_BYTES[dt]
            if dt in ("f32", "bf16"):
                conv = (lambda x: x[:n].view(np.float32)) if dt == "f32" else \
                    (lambda x: (x[:n].view(np.uint16).astype(np.uint32) << 16).view(np.float32))
                x, y = conv(a).astype(np.float64), conv(b).astype(np.float64)
                scale = max(np.abs(x).max(), 1e-30)
                d = np.abs(x - y).max() / scale if x.size else 0.0
                print(f"  {name} vs {ref_name}: %{bufs[i]['name']} max |diff| / max |x| = {d:.3g}")
            else:
                diff = int(np.count_nonzero(a[:n] != b[:n]))
                print(f"  {name} vs {ref_name}: %{bufs[i]['name']} {diff} of {n} bytes differ")


if __name__ == "__main__":
    main()
