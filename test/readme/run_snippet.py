#!/usr/bin/env python3
"""Driver of the ctest `readme-snippet`: builds README.md's C++ API program and runs it.

    run_snippet.py CMAKE BUILD_DIR TARGET EXECUTABLE

Builds TARGET in BUILD_DIR with CMAKE (the extraction from README.md, then the program against the
in-tree libraries; the target is not part of `all`, so a broken snippet fails this test, not the
build), runs it and checks what the README promises: exit status 0, the printed graph, and the
FP8 result within 10 % relative error of the bf16 graph (about 4 % is expected).
"""
import math
import re
import subprocess
import sys


def fail(message):
    sys.stderr.write(f"readme-snippet: {message}\n")
    return 1


def main():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: run_snippet.py CMAKE BUILD_DIR TARGET EXECUTABLE\n")
        return 2
    cmake, build_dir, target, exe = sys.argv[1:]
    built = subprocess.run([cmake, "--build", build_dir, "--target", target])
    if built.returncode != 0:
        return fail(f"building {target} from README.md failed (exit {built.returncode})")
    run = subprocess.run([exe], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        return fail(f"{exe} exited {run.returncode}")
    for expected in ("func.func @mlp", "fp8.linear", "fp8.gelu"):
        if expected not in run.stdout:
            return fail(f"the output lacks the printed graph ('{expected}')")
    m = re.search(r"relative error ([0-9.eE+-]+|nan|inf)", run.stdout)
    if not m:
        return fail("the output lacks 'relative error <value>'")
    err = float(m.group(1))
    if not (math.isfinite(err) and 0 < err < 0.1):
        return fail(f"relative error {err} is not in (0, 0.1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
