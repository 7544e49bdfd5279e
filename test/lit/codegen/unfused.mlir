// Codegen needs the graph fused: with a pipeline that has no `fuse`, --emit=cuda reports the op
// it cannot lower, at its location.
// RUN: %expect-exit 1 fp8c %s --passes=shape-infer,canonicalize --emit=cuda 2>&1 | FileCheck %s

func.func @linear(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  // CHECK: unfused.mlir:[[@LINE+1]]:3: error: 'fp8.linear' op codegen: needs a fused graph (run `fuse` first): this op is outside any fp8.kernel
  %y = fp8.linear %x, %w : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
