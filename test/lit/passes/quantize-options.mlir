// Options every recipe takes (passes/Recipe.h): pow2, margin, fast_accum, weights=static,
// act_dtype / weight_dtype. Each must reach the ops that use it.
// RUN: fp8c %s --passes='quantize{recipe=tensorwise pow2=true margin=3}' --verify-each --emit=ir | FileCheck %s --check-prefix=POW2-MARGIN
// RUN: fp8c %s --passes='quantize{recipe=blockwise pow2=false}' --verify-each --emit=ir | FileCheck %s --check-prefix=BLOCK-NO-POW2
// RUN: fp8c %s --passes='quantize{recipe=rowwise fast_accum=false}' --verify-each --emit=ir | FileCheck %s --check-prefix=NO-FAST-ACCUM
// RUN: fp8c %s --passes='quantize{recipe=tensorwise act_dtype=e5m2}' --verify-each --emit=ir | FileCheck %s --check-prefix=E5M2-ACT
// RUN: fp8c %s --passes='quantize{recipe=rowwise weight_dtype=e5m2}' --verify-each --emit=ir | FileCheck %s --check-prefix=E5M2-WEIGHT
// RUN: fp8c %s --passes='quantize{recipe=tensorwise weights=static}' --verify-each --emit=ir | FileCheck %s --check-prefix=STATIC
// RUN: fp8c %s --passes='quantize{recipe=delayed weights=static}' --verify-each --emit=ir | FileCheck %s --check-prefix=STATIC-DELAYED

// POW2-MARGIN-LABEL: func.func @linear(
// POW2-MARGIN:         %[[XS:.+]] = fp8.scale %{{.+}} {dtype = f8E4M3FN, margin = 3, pow2 = true} : (tensor<f32>) -> tensor<f32>
// POW2-MARGIN:         %[[WS:.+]] = fp8.scale %{{.+}} {dtype = f8E4M3FN, margin = 3, pow2 = true} : (tensor<f32>) -> tensor<f32>
// POW2-MARGIN:         fp8.scaled_matmul %{{.+}}, %{{.+}}, %[[XS]], %[[WS]], %{{.+}} {fast_accum = true, out = bf16}

// BLOCK-NO-POW2-LABEL: func.func @linear(
// BLOCK-NO-POW2:         fp8.scale %{{.+}} {dtype = f8E4M3FN} : (tensor<?x2xf32>) -> tensor<?x2xf32>
// BLOCK-NO-POW2:         fp8.scale %{{.+}} {dtype = f8E4M3FN} : (tensor<3x2xf32>) -> tensor<3x2xf32>

// fast_accum=false is the op's default, so the attribute is absent.
// NO-FAST-ACCUM-LABEL: func.func @linear(
// NO-FAST-ACCUM:         fp8.scaled_matmul {{.+}} {out = bf16} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E4M3FN>, tensor<?xf32>, tensor<384xf32>, tensor<384xbf16>) -> tensor<?x384xbf16>

// E5M2-ACT-LABEL: func.func @linear(
// E5M2-ACT-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16>
// E5M2-ACT-NEXT:   %[[XA:.+]] = fp8.amax %[[X]]
// E5M2-ACT-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]] {dtype = f8E5M2} : (tensor<f32>) -> tensor<f32>
// E5M2-ACT-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]] {granularity = "tensor"} : (tensor<?x256xbf16>, tensor<f32>) -> tensor<?x256xf8E5M2>
// E5M2-ACT-NEXT:   %[[WA:.+]] = fp8.amax %[[W]]
// E5M2-ACT-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]] {dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
// E5M2-ACT-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]] {granularity = "tensor"} : (tensor<384x256xbf16>, tensor<f32>) -> tensor<384x256xf8E4M3FN>
// E5M2-ACT-NEXT:   fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %{{.+}} : (tensor<?x256xf8E5M2>, tensor<384x256xf8E4M3FN>,

// E5M2-WEIGHT-LABEL: func.func @linear(
// E5M2-WEIGHT:         fp8.scale %{{.+}} {dtype = f8E4M3FN} : (tensor<?xf32>) -> tensor<?xf32>
// E5M2-WEIGHT:         fp8.scale %{{.+}} {dtype = f8E5M2} : (tensor<384xf32>) -> tensor<384xf32>
// E5M2-WEIGHT:         fp8.scaled_matmul {{.+}} : (tensor<?x256xf8E4M3FN>, tensor<384x256xf8E5M2>,

// The weight is marked a parameter; the graph is otherwise the same.
// STATIC-LABEL: func.func @linear(
// STATIC-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16> {fp8.param = true}, %[[B:[^:]+]]: tensor<384xbf16>) -> tensor<?x384xbf16> {
// STATIC-NEXT:   %[[XA:.+]] = fp8.amax %[[X]] {granularity = "tensor"}
// STATIC-NEXT:   %[[XS:.+]] = fp8.scale %[[XA]]
// STATIC-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]]
// STATIC-NEXT:   %[[WA:.+]] = fp8.amax %[[W]] {granularity = "tensor"}
// STATIC-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]]
// STATIC-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]]
// STATIC-NEXT:   fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]]

// Under delayed scaling a static weight is still quantized with its current amax, once at
// load: it gets no history; the activation does.
// STATIC-DELAYED-LABEL: func.func @linear(
// STATIC-DELAYED-SAME: %[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<384x256xbf16> {fp8.param = true}, %[[B:[^:]+]]: tensor<384xbf16>, %[[XH:[^:]+]]: tensor<16xf32> {fp8.state = "x_amax_history"})
// STATIC-DELAYED-SAME: -> (tensor<?x384xbf16>, tensor<16xf32> {fp8.state = "x_amax_history"}) {
// STATIC-DELAYED-NEXT:   %[[XA:.+]] = fp8.amax %[[X]]
// STATIC-DELAYED-NEXT:   %[[XS:.+]] = fp8.history_scale %[[XH]]
// STATIC-DELAYED-NEXT:   %[[XN:.+]] = fp8.history_push %[[XH]], %[[XA]]
// STATIC-DELAYED-NEXT:   %[[XQ:.+]] = fp8.cast %[[X]], %[[XS]]
// STATIC-DELAYED-NEXT:   %[[WA:.+]] = fp8.amax %[[W]]
// STATIC-DELAYED-NEXT:   %[[WS:.+]] = fp8.scale %[[WA]] {dtype = f8E4M3FN}
// STATIC-DELAYED-NEXT:   %[[WQ:.+]] = fp8.cast %[[W]], %[[WS]]
// STATIC-DELAYED-NEXT:   %[[Y:.+]] = fp8.scaled_matmul %[[XQ]], %[[WQ]], %[[XS]], %[[WS]], %[[B]]
// STATIC-DELAYED-NEXT:   return %[[Y]], %[[XN]] : tensor<?x384xbf16>, tensor<16xf32>
func.func @linear(%x: tensor<?x256xbf16>, %w: tensor<384x256xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  return %y : tensor<?x384xbf16>
}
