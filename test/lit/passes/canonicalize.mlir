// `canonicalize` (passes/Canonicalize.cpp): each fold, and each condition that blocks it.
// RUN: fp8c %s --passes=canonicalize,dce --verify-each --emit=ir | FileCheck %s
// Without dce the folded ops stay (unused) for dce to remove.
// RUN: fp8c %s --passes=canonicalize --verify-each --emit=ir | FileCheck %s --check-prefix=NODCE

// --- convert chains through an exact widening ------------------------------------------------

// CHECK-LABEL: func.func @convert_chain_bf16_f32_f16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[X]] : (tensor<4x8xbf16>) -> tensor<4x8xf16>
// CHECK-NEXT:   return %[[C]] : tensor<4x8xf16>
// NODCE-LABEL: func.func @convert_chain_bf16_f32_f16(
// NODCE-NEXT:   %[[A:.+]] = fp8.convert %[[X:.+]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// NODCE-NEXT:   %[[B:.+]] = fp8.convert %[[X]] : (tensor<4x8xbf16>) -> tensor<4x8xf16>
// NODCE-NEXT:   return %[[B]]
func.func @convert_chain_bf16_f32_f16(%x: tensor<4x8xbf16>) -> tensor<4x8xf16> {
  %a = fp8.convert %x : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %b = fp8.convert %a : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %b : tensor<4x8xf16>
}

// FP8 widens exactly to bf16, and bf16 to f32: three converts become one.
// CHECK-LABEL: func.func @convert_chain_fp8_bf16_f32_f16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<16xf8E4M3FN>)
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[X]] : (tensor<16xf8E4M3FN>) -> tensor<16xf16>
// CHECK-NEXT:   return %[[C]] : tensor<16xf16>
func.func @convert_chain_fp8_bf16_f32_f16(%x: tensor<16xf8E4M3FN>) -> tensor<16xf16> {
  %a = fp8.convert %x : (tensor<16xf8E4M3FN>) -> tensor<16xbf16>
  %b = fp8.convert %a : (tensor<16xbf16>) -> tensor<16xf32>
  %c = fp8.convert %b : (tensor<16xf32>) -> tensor<16xf16>
  return %c : tensor<16xf16>
}

// A round trip through a wider type is the identity.
// CHECK-LABEL: func.func @convert_round_trip_f16_f32_f16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x8xf16>)
// CHECK-NEXT:   return %[[X]] : tensor<?x8xf16>
func.func @convert_round_trip_f16_f32_f16(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %a = fp8.convert %x : (tensor<?x8xf16>) -> tensor<?x8xf32>
  %b = fp8.convert %a : (tensor<?x8xf32>) -> tensor<?x8xf16>
  return %b : tensor<?x8xf16>
}

// CHECK-LABEL: func.func @convert_to_same_dtype(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK-NEXT:   return %[[X]] : tensor<4x8xbf16>
func.func @convert_to_same_dtype(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %a = fp8.convert %x : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %a : tensor<4x8xbf16>
}

// Negative: f32 -> bf16 rounds, so bf16 -> f32 after it must stay.
// CHECK-LABEL: func.func @convert_chain_through_narrowing(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:   %[[A:.+]] = fp8.convert %[[X]] : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK-NEXT:   %[[B:.+]] = fp8.convert %[[A]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK-NEXT:   return %[[B]] : tensor<4x8xf32>
func.func @convert_chain_through_narrowing(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = fp8.convert %x : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %b = fp8.convert %a : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// Negative: bf16 -> f16 is no widening (f16 lacks bf16's range), nor is f16 -> bf16 (bf16
// lacks f16's mantissa bits).
// CHECK-LABEL: func.func @convert_chain_between_half_types(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xbf16>, %[[Y:[^:]+]]: tensor<8xf16>)
// CHECK-NEXT:   %[[A:.+]] = fp8.convert %[[X]] : (tensor<8xbf16>) -> tensor<8xf16>
// CHECK-NEXT:   %[[B:.+]] = fp8.convert %[[A]] : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[Y]] : (tensor<8xf16>) -> tensor<8xbf16>
// CHECK-NEXT:   %[[D:.+]] = fp8.convert %[[C]] : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK-NEXT:   return %[[B]], %[[D]]
func.func @convert_chain_between_half_types(%x: tensor<8xbf16>, %y: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = fp8.convert %x : (tensor<8xbf16>) -> tensor<8xf16>
  %b = fp8.convert %a : (tensor<8xf16>) -> tensor<8xf32>
  %c = fp8.convert %y : (tensor<8xf16>) -> tensor<8xbf16>
  %d = fp8.convert %c : (tensor<8xbf16>) -> tensor<8xf32>
  return %b, %d : tensor<8xf32>, tensor<8xf32>
}

// Negative: e5m2 does not hold every e4m3 value.
// CHECK-LABEL: func.func @convert_chain_between_fp8_types(
// CHECK-NEXT:   %[[A:.+]] = fp8.convert %{{.+}} : (tensor<8xf8E4M3FN>) -> tensor<8xf8E5M2>
// CHECK-NEXT:   %[[B:.+]] = fp8.convert %[[A]] : (tensor<8xf8E5M2>) -> tensor<8xf32>
func.func @convert_chain_between_fp8_types(%x: tensor<8xf8E4M3FN>) -> tensor<8xf32> {
  %a = fp8.convert %x : (tensor<8xf8E4M3FN>) -> tensor<8xf8E5M2>
  %b = fp8.convert %a : (tensor<8xf8E5M2>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}

// --- cast of dequant ------------------------------------------------------------------------

// CHECK-LABEL: func.func @cast_of_dequant_same_scale(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<4x8xf8E4M3FN>, %[[S:[^:]+]]: tensor<f32>, %[[R:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:   return %[[Q]], %[[Q]] : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>
func.func @cast_of_dequant_same_scale(%q: tensor<4x8xf8E4M3FN>, %s: tensor<f32>, %r: tensor<4xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>) {
  %d = fp8.dequant %q, %s : (tensor<4x8xf8E4M3FN>, tensor<f32>) -> tensor<4x8xf32>
  %c = fp8.cast %d, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf8E4M3FN>
  %dr = fp8.dequant %q, %r {granularity = "row"} : (tensor<4x8xf8E4M3FN>, tensor<4xf32>) -> tensor<4x8xf32>
  %cr = fp8.cast %dr, %r {granularity = "row"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf8E4M3FN>
  return %c, %cr : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>
}

// Negative: another scale value (even one that may hold the same number).
// CHECK-LABEL: func.func @cast_of_dequant_other_scale(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<4x8xf8E4M3FN>, %[[S:[^:]+]]: tensor<f32>, %[[S2:[^:]+]]: tensor<f32>)
// CHECK-NEXT:   %[[D:.+]] = fp8.dequant %[[Q]], %[[S]]
// CHECK-NEXT:   %[[C:.+]] = fp8.cast %[[D]], %[[S2]]
// CHECK-NEXT:   return %[[C]]
func.func @cast_of_dequant_other_scale(%q: tensor<4x8xf8E4M3FN>, %s: tensor<f32>, %s2: tensor<f32>) -> tensor<4x8xf8E4M3FN> {
  %d = fp8.dequant %q, %s : (tensor<4x8xf8E4M3FN>, tensor<f32>) -> tensor<4x8xf32>
  %c = fp8.cast %d, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf8E4M3FN>
  return %c : tensor<4x8xf8E4M3FN>
}

// Negative: the same [4] scale, applied per row by dequant and per column by cast.
// CHECK-LABEL: func.func @cast_of_dequant_other_granularity(
// CHECK-NEXT:   %[[D:.+]] = fp8.dequant %{{.+}} {granularity = "row"}
// CHECK-NEXT:   %[[C:.+]] = fp8.cast %[[D]], %{{.+}} {granularity = "col"}
// CHECK-NEXT:   return %[[C]]
func.func @cast_of_dequant_other_granularity(%q: tensor<4x4xf8E4M3FN>, %s: tensor<4xf32>) -> tensor<4x4xf8E4M3FN> {
  %d = fp8.dequant %q, %s {granularity = "row"} : (tensor<4x4xf8E4M3FN>, tensor<4xf32>) -> tensor<4x4xf32>
  %c = fp8.cast %d, %s {granularity = "col"} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf8E4M3FN>
  return %c : tensor<4x4xf8E4M3FN>
}

// Negative: through f16 (q / s can overflow its range) and through bf16 (its subnormals keep
// too few bits: q = 2^-9 with s = FLT_MAX dequantizes to 0).
// CHECK-LABEL: func.func @cast_of_dequant_through_half_types(
// CHECK-NEXT:   %[[D:.+]] = fp8.dequant {{.+}} -> tensor<4x8xf16>
// CHECK-NEXT:   %[[C:.+]] = fp8.cast %[[D]]
// CHECK-NEXT:   %[[D2:.+]] = fp8.dequant {{.+}} -> tensor<4x8xbf16>
// CHECK-NEXT:   %[[C2:.+]] = fp8.cast %[[D2]]
// CHECK-NEXT:   return %[[C]], %[[C2]]
func.func @cast_of_dequant_through_half_types(%q: tensor<4x8xf8E4M3FN>, %s: tensor<f32>) -> (tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>) {
  %d = fp8.dequant %q, %s : (tensor<4x8xf8E4M3FN>, tensor<f32>) -> tensor<4x8xf16>
  %c = fp8.cast %d, %s : (tensor<4x8xf16>, tensor<f32>) -> tensor<4x8xf8E4M3FN>
  %d2 = fp8.dequant %q, %s : (tensor<4x8xf8E4M3FN>, tensor<f32>) -> tensor<4x8xbf16>
  %c2 = fp8.cast %d2, %s : (tensor<4x8xbf16>, tensor<f32>) -> tensor<4x8xf8E4M3FN>
  return %c, %c2 : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>
}

// Negative: dequantized from e4m3, cast to e5m2.
// CHECK-LABEL: func.func @cast_of_dequant_other_fp8_type(
// CHECK-NEXT:   %[[D:.+]] = fp8.dequant
// CHECK-NEXT:   %[[C:.+]] = fp8.cast %[[D]], {{.+}} -> tensor<4x8xf8E5M2>
// CHECK-NEXT:   return %[[C]]
func.func @cast_of_dequant_other_fp8_type(%q: tensor<4x8xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xf8E5M2> {
  %d = fp8.dequant %q, %s : (tensor<4x8xf8E4M3FN>, tensor<f32>) -> tensor<4x8xf32>
  %c = fp8.cast %d, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf8E5M2>
  return %c : tensor<4x8xf8E5M2>
}

// --- identities ------------------------------------------------------------------------------

// CHECK-LABEL: func.func @transpose_of_transpose(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK-NEXT:   %[[T:.+]] = fp8.transpose %[[X]]
// CHECK-NEXT:   return %[[X]], %[[T]] : tensor<4x8xbf16>, tensor<8x4xbf16>
func.func @transpose_of_transpose(%x: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<8x4xbf16>) {
  %t = fp8.transpose %x : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  %tt = fp8.transpose %t : (tensor<8x4xbf16>) -> tensor<4x8xbf16>
  %ttt = fp8.transpose %tt : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  return %tt, %ttt : tensor<4x8xbf16>, tensor<8x4xbf16>
}

// CHECK-LABEL: func.func @relu_of_relu(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x8xbf16>)
// CHECK-NEXT:   %[[R:.+]] = fp8.relu %[[X]]
// CHECK-NEXT:   return %[[R]] : tensor<?x8xbf16>
func.func @relu_of_relu(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %r = fp8.relu %x : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %rr = fp8.relu %r : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  %rrr = fp8.relu %rr : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %rrr : tensor<?x8xbf16>
}

// Negative: other ops between, or no pair at all.
// CHECK-LABEL: func.func @no_identity(
// CHECK-NEXT:   %[[G:.+]] = fp8.gelu
// CHECK-NEXT:   %[[R:.+]] = fp8.relu %[[G]]
// CHECK-NEXT:   %[[S:.+]] = fp8.silu %[[R]]
// CHECK-NEXT:   %[[R2:.+]] = fp8.relu %[[S]]
// CHECK-NEXT:   return %[[R2]]
func.func @no_identity(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %g = fp8.gelu %x : (tensor<8xbf16>) -> tensor<8xbf16>
  %r = fp8.relu %g : (tensor<8xbf16>) -> tensor<8xbf16>
  %s = fp8.silu %r : (tensor<8xbf16>) -> tensor<8xbf16>
  %r2 = fp8.relu %s : (tensor<8xbf16>) -> tensor<8xbf16>
  return %r2 : tensor<8xbf16>
}

// Inside a kernel region too.
// CHECK-LABEL: func.func @inside_kernel(
// CHECK:       fp8.kernel "pointwise"
// CHECK-NEXT:  ^bb0(%[[A:[^:]+]]: tensor<8xf16>):
// CHECK-NEXT:    fp8.yield %[[A]] : tensor<8xf16>
func.func @inside_kernel(%x: tensor<8xf16>) -> tensor<8xf16> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<8xf16>) -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf16>):
    %w = fp8.convert %a : (tensor<8xf16>) -> tensor<8xf32>
    %n = fp8.convert %w : (tensor<8xf32>) -> tensor<8xf16>
    fp8.yield %n : tensor<8xf16>
  }
  return %k : tensor<8xf16>
}

// --- pointwise ops on [K, ?] tensors run on the [?, K] transposes ---------------------------

// CHECK-LABEL: func.func @pointwise_on_transposed_tokens(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x17xbf16>, %[[W:[^:]+]]: tensor<?x17xbf16>)
// CHECK-NEXT:   %[[R:.+]] = fp8.relu %[[W]] : (tensor<?x17xbf16>) -> tensor<?x17xbf16>
// CHECK-NEXT:   %[[M:.+]] = fp8.mul %[[X]], %[[R]] : (tensor<?x17xbf16>, tensor<?x17xbf16>) -> tensor<?x17xbf16>
// CHECK-NEXT:   %[[MT:.+]] = fp8.transpose %[[M]] : (tensor<?x17xbf16>) -> tensor<17x?xbf16>
// CHECK-NEXT:   %[[S:.+]] = fp8.silu %[[M]] : (tensor<?x17xbf16>) -> tensor<?x17xbf16>
// CHECK-NEXT:   %[[C:.+]] = fp8.convert %[[S]] : (tensor<?x17xbf16>) -> tensor<?x17xf32>
// CHECK-NEXT:   %[[CT:.+]] = fp8.transpose %[[C]] : (tensor<?x17xf32>) -> tensor<17x?xf32>
// CHECK-NEXT:   return %[[MT]], %[[CT]] :
// The values are the graph's as written.
// RUN: fp8c %s --func pointwise_on_transposed_tokens --passes=canonicalize,dce --run=cpu --compare --random-inputs=3 | FileCheck %s --check-prefix=SAME
// SAME-COUNT-2: relative Frobenius error 0{{$}}
func.func @pointwise_on_transposed_tokens(%x: tensor<?x17xbf16>, %w: tensor<?x17xbf16>) -> (tensor<17x?xbf16>, tensor<17x?xf32>) {
  %t = fp8.transpose %x : (tensor<?x17xbf16>) -> tensor<17x?xbf16>
  %u = fp8.transpose %w : (tensor<?x17xbf16>) -> tensor<17x?xbf16>
  %r = fp8.relu %u : (tensor<17x?xbf16>) -> tensor<17x?xbf16>
  %m = fp8.mul %t, %r : (tensor<17x?xbf16>, tensor<17x?xbf16>) -> tensor<17x?xbf16>
  %s = fp8.silu %m : (tensor<17x?xbf16>) -> tensor<17x?xbf16>
  %c = fp8.convert %s : (tensor<17x?xbf16>) -> tensor<17x?xf32>
  return %m, %c : tensor<17x?xbf16>, tensor<17x?xf32>
}

// A scalar operand stays as it is.
// CHECK-LABEL: func.func @pointwise_with_scalar(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x17xf16>, %[[S:[^:]+]]: tensor<f16>)
// CHECK-NEXT:   %[[A:.+]] = fp8.add %[[S]], %[[X]] : (tensor<f16>, tensor<?x17xf16>) -> tensor<?x17xf16>
// CHECK-NEXT:   %[[AT:.+]] = fp8.transpose %[[A]] : (tensor<?x17xf16>) -> tensor<17x?xf16>
// CHECK-NEXT:   return %[[AT]] :
func.func @pointwise_with_scalar(%x: tensor<?x17xf16>, %s: tensor<f16>) -> tensor<17x?xf16> {
  %t = fp8.transpose %x : (tensor<?x17xf16>) -> tensor<17x?xf16>
  %a = fp8.add %s, %t : (tensor<f16>, tensor<17x?xf16>) -> tensor<17x?xf16>
  return %a : tensor<17x?xf16>
}

// A static last dim, or a dynamic first dim, stays as written.
// CHECK-LABEL: func.func @pointwise_static_or_token_rows(
// CHECK-NEXT:   fp8.relu %{{.+}} : (tensor<17x4xbf16>) -> tensor<17x4xbf16>
// CHECK-NEXT:   fp8.relu %{{.+}} : (tensor<?x17xbf16>) -> tensor<?x17xbf16>
func.func @pointwise_static_or_token_rows(%x: tensor<17x4xbf16>, %y: tensor<?x17xbf16>) -> (tensor<17x4xbf16>, tensor<?x17xbf16>) {
  %a = fp8.relu %x : (tensor<17x4xbf16>) -> tensor<17x4xbf16>
  %b = fp8.relu %y : (tensor<?x17xbf16>) -> tensor<?x17xbf16>
  return %a, %b : tensor<17x4xbf16>, tensor<?x17xbf16>
}
