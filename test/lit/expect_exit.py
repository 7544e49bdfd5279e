#!/usr/bin/env python3
"""Runs a command and succeeds only when it exits with exactly the expected status.

    expect_exit.py CODE COMMAND [ARGS...]

lit's `not` passes for any non-zero status, a signal included, so a negative test written with
it cannot tell a located error (exit 1) from a crash or an internal error (exit 2). Standard
input, output and error pass through unchanged, so the command's output can still be piped into
FileCheck.
"""
import signal
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        sys.stderr.write("usage: expect_exit.py CODE COMMAND [ARGS...]\n")
        return 2
    expected = int(sys.argv[1])
    try:
        status = subprocess.call(sys.argv[2:])
    except OSError as e:
        sys.stderr.write(f"expect_exit.py: cannot run {sys.argv[2]}: {e}\n")
        return 2
    if status == expected:
        return 0
    if status < 0:
        try:
            what = f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            what = f"was killed by signal {-status}"
    else:
        what = f"exited {status}"
    sys.stderr.write(f"expect_exit.py: {sys.argv[2]} {what}; expected exit {expected}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
