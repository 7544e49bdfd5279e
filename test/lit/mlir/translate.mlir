// REQUIRES: mlir
// MLIR -> fp8c Graph -> MLIR (--fp8c-roundtrip) keeps what fp8c's IR holds: functions, input
// names and attributes (fp8.state), result attributes, ops, attributes, kernel regions, names,
// and op locations (FileLineColLoc <-> fp8c::Location). fp8c's inputs and region arguments have
// no location of their own: back in MLIR they are located at their function or kernel.
// RUN: fp8c-opt %s --fp8c-roundtrip > %t.a && fp8c-opt %s > %t.b && diff %t.a %t.b
// RUN: fp8c-opt %s --fp8c-roundtrip --fp8c-roundtrip > %t.c && diff %t.a %t.c
// RUN: fp8c-opt %s --fp8c-roundtrip --print-mlir --mlir-print-debuginfo | FileCheck %s

// CHECK-DAG:  #[[F:loc[0-9]+]] = loc("{{.*}}translate.mlir":[[@LINE+12]]:1)
// CHECK-DAG:  #[[K:loc[0-9]+]] = loc("{{.*}}translate.mlir":[[@LINE+14]]:3)
// CHECK:      func.func @step(%arg0: tensor<?x64xbf16> loc("x"(#[[F]])), %arg1: tensor<16xf32> {fp8.state = "hist"} loc("h"(#[[F]]))) -> (tensor<?x64xf8E4M3FN>, tensor<16xf32> {fp8.state = "hist"}) {
// CHECK-NEXT:   %s = fp8.history_scale %arg1 {algo = "most_recent", margin = 1} : (tensor<16xf32>) -> tensor<f32> loc(#[[S:loc[0-9]+]])
// CHECK-NEXT:   %q, %a = fp8.kernel "reduce" (%arg0, %s) : {{.*}} {
// CHECK-NEXT:   ^bb0(%xk: tensor<?x64xbf16> loc("xk"(#[[K]])), %sc: tensor<f32> loc("sc"(#[[K]]))):
// CHECK:        } loc(#[[KL:loc[0-9]+]])
// CHECK:        return %q, %h2
// CHECK-DAG:  #[[SF:loc[0-9]+]] = loc("{{.*}}translate.mlir":[[@LINE+6]]:3)
// CHECK-DAG:  #[[S]] = loc("s"(#[[SF]]))
// CHECK-DAG:  #[[KL]] = loc(fused<["q", "a"]>[#[[K]]])
// CHECK-DAG:  loc("h2"(#{{loc[0-9]+}}))
func.func @step(%x: tensor<?x64xbf16>, %h: tensor<16xf32> {fp8.state = "hist"})
    -> (tensor<?x64xf8E4M3FN>, tensor<16xf32> {fp8.state = "hist"}) {
  %s = fp8.history_scale %h {algo = "most_recent", margin = 1} : (tensor<16xf32>) -> tensor<f32>
  %q, %a = fp8.kernel "reduce" (%x, %s) : (tensor<?x64xbf16>, tensor<f32>) -> (tensor<?x64xf8E4M3FN>, tensor<f32>) {
  ^bb0(%xk: tensor<?x64xbf16>, %sc: tensor<f32>):
    %c = fp8.cast %xk, %sc : (tensor<?x64xbf16>, tensor<f32>) -> tensor<?x64xf8E4M3FN>
    %m = fp8.amax %xk : (tensor<?x64xbf16>) -> tensor<f32>
    fp8.yield %c, %m : tensor<?x64xf8E4M3FN>, tensor<f32>
  }
  %h2 = fp8.history_push %h, %a : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  return %q, %h2 : tensor<?x64xf8E4M3FN>, tensor<16xf32>
}
