// Negative tests of the fusion plan an fp8.kernel carries (ir/KernelPlan.h): the names of its
// backend, FP8 GEMM backend and op roles; a gemm kernel's required attributes; GEMMs `main`,
// `prologue` ops not computed from a GEMM, `epilogue` ops computed from one. One case per
// split, each checking the message and its location.
// RUN: %expect-exit 1 fp8c %s --split-input-file --emit=ir 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @bad_role_name(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.relu' op attribute 'fp8.role' has value "middle"; expected one of: prologue, main, epilogue, body
    %r = fp8.relu %y {fp8.role = "middle"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %r : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @main_not_a_gemm(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.relu' op has role 'main' but is not a GEMM (fp8.scaled_matmul, fp8.linear, fp8.matmul)
    %r = fp8.relu %y {fp8.role = "main"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %r : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @prologue_after_main(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %r = fp8.relu %y {fp8.role = "epilogue"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.add' op has role 'prologue' but is computed from the GEMM %y (role 'main'); an op after the GEMM is 'epilogue'
    %s = fp8.add %r, %r {fp8.role = "prologue"} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %s : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @epilogue_before_main(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.relu' op has role 'epilogue' but is not computed from a GEMM of the kernel; an op before the GEMM is 'prologue'
    %ra = fp8.relu %a {fp8.role = "epilogue"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = fp8.linear %ra, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @gemm_not_main(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.linear' op is a GEMM of a gemm kernel, so its role is 'main', not 'prologue'
    %y = fp8.linear %a, %b {fp8.role = "prologue"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @body_in_gemm_kernel(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.relu' op has role 'body' in a gemm kernel, whose ops are 'prologue', 'main' or 'epilogue'
    %r = fp8.relu %y {fp8.role = "body"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %r : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @main_in_pointwise_kernel(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "pointwise" (%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.linear' op has role 'main' in a pointwise kernel; only the GEMMs of a gemm kernel are 'main'
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

// A gemm kernel written without its plan.
func.func @gemm_kernel_without_plan(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op requires attribute 'backend' (a gemm kernel carries its fusion plan: backend, gemm_backend and each op's fp8.role; `fuse` writes them)
  %k = fp8.kernel "gemm" (%x, %w) {gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @gemm_op_without_role(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "auto"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.linear' op requires attribute 'fp8.role' inside a gemm kernel (a gemm kernel carries its fusion plan: backend, gemm_backend and each op's fp8.role; `fuse` writes them)
    %y = fp8.linear %a, %b : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @bad_backend(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op attribute 'backend' has value "cutlass"; expected one of: generated, cublaslt
  %k = fp8.kernel "pointwise" (%x) {backend = "cutlass"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = fp8.relu %a {fp8.role = "body"} : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %r : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @bad_gemm_backend(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:3: error: 'fp8.kernel' op attribute 'gemm_backend' has value "fast"; expected one of: auto, cublaslt, generated
  %k = fp8.kernel "gemm" (%x, %w) {backend = "cublaslt", gemm_backend = "fast"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %y = fp8.linear %a, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    fp8.yield %y : tensor<4x16xf32>
  }
  return %k : tensor<4x16xf32>
}

// -----

func.func @role_outside_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:3: error: 'fp8.relu' op attribute 'fp8.role' applies to ops of an 'fp8.kernel' region only
  %r = fp8.relu %x {fp8.role = "body"} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @role_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = fp8.kernel "pointwise" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // CHECK: {{.*}}invalid-kernel-plan.mlir:[[@LINE+1]]:5: error: 'fp8.relu' op attribute 'fp8.role' must be a string, got 1
    %r = fp8.relu %a {fp8.role = 1} : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %r : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}
