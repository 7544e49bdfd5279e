"""Prints an fp8c graph of N linears in a chain that all read one weight: h_i = x_{i-1} W^T.

    linear-chain.py N
"""
import sys

n = int(sys.argv[1])
pct = chr(37)
t = "tensor<16x64xbf16>"
lines = ["func.func @chain(" + pct + "x: " + t + ", " + pct + "w: tensor<64x64xbf16>) -> " + t + " {"]
prev = pct + "x"
for i in range(n):
    lines.append("  " + pct + "h" + str(i) + " = fp8.linear " + prev + ", " + pct + "w : (" + t +
                 ", tensor<64x64xbf16>) -> " + t)
    prev = pct + "h" + str(i)
lines.append("  return " + prev + " : " + t)
lines.append("}")
print("\n".join(lines))
