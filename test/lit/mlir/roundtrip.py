#!/usr/bin/env python3
"""Counts the files that round-trip through both parsers: fp8c's and MLIR's (the fp8 dialect).

For each FILE, with A = `fp8c FILE --emit=ir` (fp8c's parser and printer):
  mlir-print  `fp8c-opt A` == A: MLIR parses fp8c's output, verifies it, prints the same text
  mlir-parse  `fp8c-opt FILE` == A: MLIR reads the file as written, prints what fp8c prints
  translate   `fp8c-opt A --fp8c-roundtrip` == A: MLIR -> fp8c Graph -> MLIR is the identity
Files with `// -----` cases go through both tools with --split-input-file. Prints one line
per file (`ok`, or `FAIL` and the steps that differ), then
`round-trip: N files, K identical through both parsers`. Exits 1 unless K == N.
With --skip-invalid, files fp8c rejects (negative tests) are left out of N.

usage: roundtrip.py [--skip-invalid] FP8C FP8C_OPT FILE...
"""
import subprocess
import sys


def run(cmd, stdin=None):
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def main():
    args = sys.argv[1:]
    skip_invalid = args[0] == "--skip-invalid"
    fp8c, opt, files = args[skip_invalid], args[skip_invalid + 1], args[skip_invalid + 2:]
    identical = total = 0
    for path in files:
        split = ["--split-input-file"] if "\n// -----" in open(path).read() else []
        printed = run([fp8c, path, "--emit=ir"] + split)
        if printed is None and skip_invalid:
            continue
        total += 1
        if printed is None:
            print(f"FAIL {path}: fp8c rejects it")
            continue
        steps = {
            "mlir-print": run([opt, "-"] + split, printed),
            "mlir-parse": run([opt, path] + split),
            "translate": run([opt, "-", "--fp8c-roundtrip"] + split, printed),
        }
        bad = [name for name, text in steps.items() if text != printed]
        if bad:
            print(f"FAIL {path}: {', '.join(bad)}")
        else:
            identical += 1
            print(f"ok   {path}")
    print(f"round-trip: {total} files, {identical} identical through both parsers")
    return 0 if identical == total else 1


if __name__ == "__main__":
    sys.exit(main())
