"""Prints an fp8c graph whose op carries an attribute of N nested arrays: {a = [[...]]}.

    nested-attr.py N [--split]

With --split, the graph is the second chunk of a file split with `// -----`.
"""
import sys

depth = int(sys.argv[1])
pct = chr(37)
graph = (
    "// An attribute nested " + str(depth) + " arrays deep.\n"
    "func.func @f(" + pct + "x: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  " + pct + "y = fp8.relu " + pct + "x {a = " + "[" * depth + "]" * depth + "} "
    ": (tensor<2xf32>) -> tensor<2xf32>\n"
    "  return " + pct + "y : tensor<2xf32>\n"
    "}\n")
if "--split" in sys.argv:
    first = ("func.func @g(" + pct + "x: tensor<2xf32>) -> tensor<2xf32> {\n"
             "  return " + pct + "x : tensor<2xf32>\n"
             "}\n")
    graph = first + "\n// -----\n\n" + graph
sys.stdout.write(graph)
