// `fuse` on examples/mlp.mlir with each recipe: no standalone amax, scale or cast kernel lies
// between the two GEMM kernels. The first GEMM's epilogue reduces its output's amax (and casts
// it where the scale is known before the GEMM); otherwise the second GEMM's prologue casts.
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --verify-each --emit=ir | FileCheck %s --check-prefixes=CHECK,TENSORWISE
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=delayed --verify-each --emit=ir | FileCheck %s --check-prefixes=CHECK,DELAYED
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --verify-each --emit=ir | FileCheck %s --check-prefixes=CHECK,ROWWISE
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=blockwise --verify-each --emit=ir | FileCheck %s --check-prefixes=CHECK,BLOCKWISE
// The same in the plan: the two gemm kernels are consecutive.
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=tensorwise --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=delayed --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=rowwise --print-fusion-plan | FileCheck %s --check-prefix=PLAN
// RUN: fp8c %fp8c_src/examples/mlp.mlir --recipe=blockwise --print-fusion-plan | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @mlp(
// CHECK:         = fp8.kernel "gemm" ({{.+}}) {backend = "{{cublaslt|generated}}", gemm_backend = "auto"} :
// CHECK-NEXT:    ^bb0(
// TENSORWISE:      fp8.amax %{{.+}} {fp8.role = "epilogue", granularity = "tensor"}
// ROWWISE:         fp8.amax %{{.+}} {fp8.role = "epilogue", granularity = "row"}
// DELAYED:         fp8.cast %{{.+}} -> tensor<?x14336xf8E4M3FN>
// BLOCKWISE:       fp8.cast %{{.+}} {fp8.role = "epilogue", granularity = "block_1x128"} : (tensor<?x14336xbf16>, tensor<?x112xf32>) -> tensor<?x14336xf8E4M3FN>
// CHECK:           fp8.yield
// CHECK-NEXT:    }
// CHECK-NOT:     = fp8.kernel
// CHECK:         = fp8.kernel "gemm" ({{.+}}) {backend = "{{cublaslt|generated}}", gemm_backend = "auto"} :
// CHECK-NEXT:    ^bb0(
// TENSORWISE-NEXT:  fp8.scale
// TENSORWISE-NEXT:  fp8.cast %{{.+}} {fp8.role = "prologue", granularity = "tensor"}
// ROWWISE-NEXT:     fp8.scale
// ROWWISE-NEXT:     fp8.cast %{{.+}} {fp8.role = "prologue", granularity = "row"}
// DELAYED-NEXT:     fp8.scaled_matmul
// BLOCKWISE-NEXT:   fp8.scaled_matmul

// PLAN:      {{^}}kernel #[[#G:]] gemm
// PLAN-NOT:  {{^}}kernel #
// PLAN:      {{^}}kernel #[[#G+1]] gemm
// PLAN-NOT:  {{^}}kernel #{{[0-9]+}} gemm
