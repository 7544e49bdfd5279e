#!/usr/bin/env python3
"""Writes a small .npy file for the lit tests, without numpy.

Usage: make_npy.py OUT.npy DTYPE SHAPE VALUES

  DTYPE   f4 (<f4), f2 (<f2), u2 (<u2: raw bf16 bits), u1 (|u1: raw FP8 bytes)
  SHAPE   dims joined by 'x' ("2x3", "130"), or "scalar" for rank 0
  VALUES  comma-separated, row-major. Floats for f4/f2 (1.5, -2e-3, 0x1p-9, nan, inf, -inf);
          integers for u2/u1 (decimal or 0x..). `V*N` repeats V N times ("0*126,1,2").

Example: make_npy.py %t/x.npy f4 2x3 1,2,3,4,5,6.5
"""
import struct
import sys

FORMATS = {"f4": ("<f4", "<f"), "f2": ("<f2", "<e"), "u2": ("<u2", "<H"), "u1": ("|u1", "<B")}


def parse_value(text, dtype):
    text = text.strip()
    if dtype in ("u2", "u1"):
        return int(text, 0)
    if text.lower().startswith(("0x", "-0x", "+0x")):
        return float.fromhex(text)
    return float(text)


def parse_values(spec, dtype):
    values = []
    for item in spec.split(","):
        if not item.strip():
            continue
        if "*" in item:
            value, count = item.rsplit("*", 1)
            values.extend([parse_value(value, dtype)] * int(count))
        else:
            values.append(parse_value(item, dtype))
    return values


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    out, dtype, shape_spec, value_spec = argv[1:]
    if dtype not in FORMATS:
        sys.stderr.write("make_npy.py: unknown DTYPE %r (f4, f2, u2, u1)\n" % dtype)
        return 2
    descr, fmt = FORMATS[dtype]
    shape = () if shape_spec in ("scalar", "") else tuple(int(d) for d in shape_spec.split("x"))
    values = parse_values(value_spec, dtype)
    count = 1
    for d in shape:
        count *= d
    if len(values) != count:
        sys.stderr.write("make_npy.py: shape %s needs %d values, got %d\n"
                         % (shape_spec, count, len(values)))
        return 2
    shape_text = "(" + "".join("%d, " % d for d in shape).rstrip(" ")
    if len(shape) > 1:
        shape_text = shape_text.rstrip(",")
    shape_text += ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        for v in values:
            f.write(struct.pack(fmt, v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
