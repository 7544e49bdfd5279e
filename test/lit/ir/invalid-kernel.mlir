// Negative tests of fp8.kernel (verifier rule 6): the region, its arguments and its fp8.yield,
// isolation from above, nesting, the `kind` attribute, and ops inside regions being verified by
// the same rules. One case per split, each checking the message and its location.
// RUN: %expect-exit 1 fp8c %s --split-input-file --emit=ir 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @kernel_without_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op must have a region
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %k : tensor<4xf32>
}

// -----

func.func @region_on_other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op must not have a region
  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0:
    fp8.yield
  }
  return %y : tensor<4xf32>
}

// -----

func.func @kernel_without_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op requires attribute 'kind'
  %k = fp8.kernel (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fp8.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @kernel_bad_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op attribute 'kind' has value "fused"; expected one of: gemm|pointwise|reduce
  %k = fp8.kernel "fused" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fp8.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @kernel_unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op unknown attribute 'tile' (known: kind, backend, gemm_backend)
  %k = fp8.kernel "pointwise" (%x) {tile = 128} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fp8.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @argument_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region has 1 argument, but the kernel has 2 operands
  %k = fp8.kernel "pointwise" (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fp8.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @argument_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region argument #0 has type tensor<4xbf16>, but operand #0 has type tensor<4xf32>
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xbf16>):
    fp8.yield %a : tensor<4xbf16>
  }
  return %k : tensor<4xbf16>
}

// -----

func.func @empty_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region must end with 'fp8.yield'
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
  }
  return %k : tensor<4xf32>
}

// -----

func.func @region_without_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region must end with 'fp8.yield'
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = fp8.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @yield_not_last(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.yield' op must be the last op of an 'fp8.kernel' region
    fp8.yield %a : tensor<4xf32>
    %r = fp8.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %r : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @yield_outside_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.yield' op must be the last op of an 'fp8.kernel' region
  fp8.yield %x : tensor<4xf32>
}

// -----

func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.yield' op has 2 operands, but the kernel has 1 result
    fp8.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.yield' op type of operand #0 is tensor<4xf32>, but result #0 of the kernel is tensor<4xbf16>
    fp8.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xbf16>
}

// -----

func.func @not_isolated(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // %w is used twice inside the region: reported once.
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region uses %w, defined outside the kernel; pass it as an operand
  %k = fp8.kernel "pointwise" (%x) : (tensor<4x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %y = fp8.linear %a, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %z = fp8.linear %a, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %s = fp8.add %y, %z : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %s : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @not_isolated_op_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op region uses %h, defined outside the kernel; pass it as an operand
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = fp8.add %a, %h : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %s : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @nested_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.kernel' op cannot be nested inside another 'fp8.kernel'
    %i = fp8.kernel "pointwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %r = fp8.relu %b : (tensor<4xf32>) -> tensor<4xf32>
      fp8.yield %r : tensor<4xf32>
    }
    fp8.yield %i : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @return_inside_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // Reported once: not again as a region without fp8.yield.
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'func.return' op cannot be used inside an 'fp8.kernel' region; end the region with 'fp8.yield'
    return %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @ops_in_region_verified(%x: tensor<4x8xf32>, %w: tensor<16x512xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "pointwise" (%x, %w) : (tensor<4x8xf32>, tensor<16x512xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x512xf32>):
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.linear' op K mismatch: input has 8, weight has 512
    %y = fp8.linear %a, %b : (tensor<4x8xf32>, tensor<16x512xf32>) -> tensor<4x16xf32>
    // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:5: error: 'fp8.gelu' op unknown attribute 'approx' (known: approximate)
    %g = fp8.gelu %y {approx = "tanh"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %g : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @kernel_operand_counted_as_use(%x: tensor<4xf32>) -> tensor<4xf32> {
  // A kernel's own operand list follows the usual type rules of its uses (checked by the parser).
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:32: error: use of value '%x' expects type tensor<8xf32> but it has type tensor<4xf32>
  %k = fp8.kernel "pointwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    fp8.yield %a : tensor<8xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @region_value_used_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = fp8.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %r : tensor<4xf32>
  }
  // CHECK: {{.*}}invalid-kernel.mlir:[[@LINE+1]]:10: error: use of value '%r' outside the kernel region that defines it
  return %r : tensor<4xf32>
}
