#!/usr/bin/env python3
"""Writes the C++ program of README.md's "## C++ API" section to a .cpp file.

    extract_snippet.py README.md OUT.cpp

The section must hold exactly one ```cpp fenced block; it is written with a #line directive, so
that a compiler error points at README.md's own lines. A missing section, no block, more than
one, or an unclosed fence is an error `README.md:LINE: message` (exit 1).
"""
import sys

HEADING = "## C++ API"


def extract(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    try:
        start = next(i for i, l in enumerate(lines) if l.rstrip() == HEADING)
    except StopIteration:
        raise ValueError(f"{path}:1: no '{HEADING}' section")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    blocks = []
    i = start + 1
    while i < end:
        fence = lines[i].strip()
        if fence.startswith("```"):
            close = next((j for j in range(i + 1, end) if lines[j].strip() == "```"), None)
            if close is None:
                raise ValueError(f"{path}:{i + 1}: the fence opened here is not closed in '{HEADING}'")
            if fence == "```cpp":
                blocks.append((i + 1, lines[i + 1:close]))  # i + 1: the 0-based first code line
            i = close
        i += 1
    if len(blocks) != 1:
        raise ValueError(f"{path}:{start + 1}: '{HEADING}' holds {len(blocks)} ```cpp blocks; "
                         "it must hold exactly one complete program")
    first, code = blocks[0]
    return f'#line {first + 1} "{path}"\n' + "\n".join(code) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: extract_snippet.py README.md OUT.cpp\n")
        return 2
    try:
        text = extract(sys.argv[1])
    except (OSError, ValueError) as e:
        sys.stderr.write(f"{e}\n")
        return 1
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
