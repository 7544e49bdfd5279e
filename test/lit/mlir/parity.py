#!/usr/bin/env python3
"""Verifier parity between fp8c's parser and MLIR's (the fp8 dialect).

Runs every `// -----` case of the given files through `fp8c --split-input-file --emit=ir` and
`fp8c-opt --split-input-file --fp8c-verify`, takes the first error each reports for the case,
and prints one line per case:

  same      both fail, same location and same message
  location  both fail at the same location; MLIR's parser or an upstream op (func.func,
            func.return, builtin.module) reports the rule in its own words (KNOWN below)
  elsewhere both fail; the upstream check (KNOWN below) reports it at another token
  DIFFERENT anything else: one accepts, or an unlisted message

and a summary line `parity: N cases: S same message, L same location, E elsewhere, D
different`. Exits 1 when any case is DIFFERENT.

usage: parity.py FP8C FP8C_OPT FILE...
"""
import re
import subprocess
import sys

ERROR = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$")

# Rules that MLIR's parser or an upstream op (func.func, func.return, builtin.module) checks
# before the fp8 dialect or fp8c's verifier can: a message prefix of MLIR's -> why.
KNOWN = {
    "custom op 'fp8.sigmoid' is unknown": "MLIR's parser: unknown op",
    "use of undeclared SSA value name": "MLIR's parser: undefined value",
    "use of value '%": "MLIR's parser: operand type differs from the value's",
    "redefinition of SSA value": "MLIR's parser: redefinition",
    "'func.return' op must be the last operation in the parent block":
        "func.return's Terminator trait",
    "'func.return' op has ": "func.return's verifier: operand count",
    "type of return operand": "func.return's verifier: operand type",
    "custom op 'func.func' expected non-empty function body":
        "func.func's parser: `{}` is no body",
    "'func.func' op arguments may only have dialect attributes":
        "func.func's verifier: argument attributes need a dialect prefix",
    "redefinition of symbol named": "builtin.module's symbol table",
    "expected ':'": "func.return's parser: its attributes come before the operands",
}


def split_cases(path):
    """[(first_line, last_line)] of each `// -----` case, 1-based, inclusive."""
    lines = open(path).read().split("\n")
    cases, start = [], 1
    for i, line in enumerate(lines, 1):
        if line.rstrip() == "// -----":
            cases.append((start, i - 1))
            start = i + 1
    cases.append((start, len(lines)))
    return cases


def errors(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    found = []
    for line in out.stderr.splitlines():
        m = ERROR.match(line)
        if m:
            found.append((int(m.group(2)), int(m.group(3)), m.group(4)))
    return found


def first_in(errs, lo, hi):
    for e in errs:
        if lo <= e[0] <= hi:
            return e
    return None


def main():
    fp8c, opt, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    counts = {"same": 0, "location": 0, "elsewhere": 0, "DIFFERENT": 0}
    for path in files:
        a = errors([fp8c, path, "--split-input-file", "--emit=ir"])
        b = errors([opt, path, "--split-input-file", "--fp8c-verify"])
        name = path.rsplit("/", 1)[-1]
        for lo, hi in split_cases(path):
            ea, eb = first_in(a, lo, hi), first_in(b, lo, hi)
            if ea is None and eb is None:
                continue  # a case that both accept is no negative case
            why = next((v for k, v in KNOWN.items() if eb and eb[2].startswith(k)), "")
            if ea and eb and ea == eb:
                verdict, why = "same", ""
            elif ea and eb and why:
                verdict = "location" if ea[:2] == eb[:2] else "elsewhere"
            else:
                verdict, why = "DIFFERENT", ""
            counts[verdict] += 1
            where = f"{name}:{ea[0] if ea else lo}"
            print(f"{verdict:9} {where}: fp8c: {ea[2] if ea else 'accepted'}")
            if verdict != "same":
                print(f"{'':9} {' ' * len(where)}  mlir: {eb[2] if eb else 'accepted'}"
                      f"{'  (' + why + ')' if why else ''}"
                      f"{'' if not eb or not ea or eb[:2] == ea[:2] else f'  at {eb[0]}:{eb[1]}'}")
    total = sum(counts.values())
    print(f"parity: {total} cases: {counts['same']} same message, {counts['location']} same "
          f"location, {counts['elsewhere']} elsewhere, {counts['DIFFERENT']} different")
    return 1 if counts["DIFFERENT"] else 0


if __name__ == "__main__":
    sys.exit(main())
