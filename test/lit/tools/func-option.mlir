// --func NAME must name a function of the file: otherwise an error listing the file's functions,
// exit 1, whatever else was asked.
// RUN: %expect-exit 1 fp8c %s --func nope 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 fp8c %s --func nope --run=cpu --random-inputs=1 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 fp8c %s --func nope --recipe=tensorwise --print-fusion-plan 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 fp8c %s --func nope --train 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: {{^}}fp8c: error: --func nope: {{.*}}func-option.mlir has no function '@nope'; its functions: @first, @second{{$}}
// Nothing is printed on stdout.
// RUN: %expect-exit 1 fp8c %s --func nope 2>/dev/null | count 0
// A name that is there runs that function.
// RUN: fp8c %s --func second --run=cpu --random-inputs=1 | FileCheck %s --check-prefix=FOUND
// FOUND: // ran @second on the CPU interpreter

func.func @first(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %y = fp8.relu %x : (tensor<2x8xbf16>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

func.func @second(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %y = fp8.gelu %x : (tensor<2x8xbf16>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}
