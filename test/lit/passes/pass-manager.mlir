// The pass manager (passes/PassManager.cpp) through the CLI: pipeline strings and their
// errors (no location: they are about the command line), IR dumps, and a failing pass, which
// gives a located error, exit status 1 and no IR on stdout.
// RUN: %expect-exit 1 fp8c %s --passes=canonicalize,fusion 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PASS
// RUN: %expect-exit 1 fp8c %s --passes='cse{aggressive=true}' 2>&1 | FileCheck %s --check-prefix=NO-OPTIONS
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{token=4}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// RUN: %expect-exit 1 fp8c %s --passes='cse,,dce' 2>&1 | FileCheck %s --check-prefix=EMPTY-NAME
// RUN: %expect-exit 1 fp8c %s --passes='cse,' 2>&1 | FileCheck %s --check-prefix=TRAILING-COMMA
// RUN: %expect-exit 1 fp8c %s --passes='{tokens=4}' 2>&1 | FileCheck %s --check-prefix=NO-NAME
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens=4' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens=4} cse' 2>&1 | FileCheck %s --check-prefix=NO-COMMA
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens}' 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// RUN: %expect-exit 1 fp8c %s --passes='shape-infer{tokens=4 tokens=5}' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %expect-exit 1 fp8c %s --print-fusion-plan --passes=cse 2>&1 | FileCheck %s --check-prefix=PLAN-NEEDS-FUSE

// UNKNOWN-PASS: {{^}}fp8c: error: unknown pass 'fusion'; known passes: verify, shape-infer, canonicalize, cse, dce, autodiff, quantize, fuse{{$}}
// NO-OPTIONS: {{^}}fp8c: error: pass 'cse' has no option 'aggressive'; it takes none{{$}}
// UNKNOWN-OPTION: {{^}}fp8c: error: pass 'shape-infer' has no option 'token'; its options: tokens=N{{$}}
// EMPTY-NAME: {{^}}fp8c: error: empty pass name in the pipeline 'cse,,dce'{{$}}
// TRAILING-COMMA: {{^}}fp8c: error: trailing ',' in the pass pipeline{{$}}
// NO-NAME: {{^}}fp8c: error: empty pass name in the pipeline '{tokens=4}'{{$}}
// UNCLOSED: {{^}}fp8c: error: pass 'shape-infer': missing '}' in the pass pipeline{{$}}
// NO-COMMA: {{^}}fp8c: error: expected ',' after 'shape-infer{tokens=4}' in the pass pipeline{{$}}
// NO-VALUE: {{^}}fp8c: error: pass 'shape-infer': option 'tokens' is not of the form name=value{{$}}
// TWICE: {{^}}fp8c: error: pass 'shape-infer': option 'tokens' given twice{{$}}
// PLAN-NEEDS-FUSE: {{^}}fp8c: error: --print-fusion-plan needs `fuse` in the pipeline (--recipe=R or --passes=...,fuse){{$}}

// Spaces around names and commas between options are accepted.
// RUN: fp8c %s --passes=' shape-infer{tokens=2} , cse,dce ' --verify-each --emit=ir | FileCheck %s --check-prefix=SPACES
// SPACES: func.func @f(%{{.+}}: tensor<2x64xbf16>

// --print-ir-after=PASS dumps after each run of PASS, to stderr; --print-ir-after-all after
// every pass.
// RUN: fp8c %s --passes='canonicalize,quantize{recipe=tensorwise},cse,canonicalize' --print-ir-after=canonicalize --emit=ir 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// AFTER-NOT:   IR Dump After quantize
// AFTER:       {{^}}// -----// IR Dump After canonicalize (@f) //----- //{{$}}
// AFTER-NEXT:  func.func @f(
// AFTER-NOT:     fp8.scaled_matmul
// AFTER-NOT:   IR Dump After cse
// AFTER:       {{^}}// -----// IR Dump After canonicalize (@f) //----- //{{$}}
// AFTER-NEXT:  func.func @f(
// AFTER:         fp8.scaled_matmul
// AFTER-NOT:   IR Dump
// RUN: fp8c %s --passes='canonicalize,cse' --print-ir-after-all --emit=ir 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER-ALL
// AFTER-ALL:       {{^}}// -----// IR Dump After canonicalize (@f) //----- //{{$}}
// AFTER-ALL-NEXT:  func.func @f(
// AFTER-ALL:       {{^}}// -----// IR Dump After cse (@f) //----- //{{$}}
// AFTER-ALL-NEXT:  func.func @f(

// A pass that fails: a located error, exit status 1, nothing on stdout (neither the IR nor the
// dumps of the passes before it, which go to stderr).
// RUN: %expect-exit 1 fp8c %s --passes='cse,quantize{recipe=tensorwise weights=static}' 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: %expect-exit 1 fp8c %s --passes='cse,quantize{recipe=tensorwise weights=static}' --emit=ir --print-ir-after-all 2>/dev/null | count 0
// The exit status is 1 (a user error), not 2 (an internal error).
// RUN: %python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" fp8c %s --passes='cse,quantize{recipe=tensorwise weights=static}' --emit=ir

func.func @f(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %w2 = fp8.relu %w : (tensor<32x64xbf16>) -> tensor<32x64xbf16>
  // FAIL: {{^}}{{.*}}pass-manager.mlir:[[@LINE+1]]:3: error: quantize: weights=static needs the weight of 'fp8.linear' to be a graph input, but %w2 is computed in the graph
  %y = fp8.linear %x, %w2 : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
