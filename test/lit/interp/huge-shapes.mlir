// Tensors too large for a host tensor (interp/HostTensor.h, kMaxHostTensorElements: 2^30
// elements) are located errors naming the value and its size, exit 1, checked before anything
// is allocated: random inputs (at the function; also where the element count overflows 64
// bits) and results of the interpreter (at the op).
// RUN: %expect-exit 1 fp8c %s --split-input-file --run=cpu --random-inputs=1 2>&1 | FileCheck %s
// A dynamic dim given a size that makes an input too large.
// RUN: %expect-exit 1 fp8c %S/../../../examples/mlp.mlir --run=cpu --random-inputs=1 --dynamic-dim=1048576 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: {{^}}{{.*}}mlp.mlir:[[#]]:1: error: random input %x of '@mlp' has shape [1048576, 4096] with 4294967296 elements (16 GiB as f32), more than the 1073741824 elements (4 GiB as f32) a host tensor may hold{{$}}

// CHECK: {{^}}{{.*}}huge-shapes.mlir:[[@LINE+1]]:1: error: random input %x of '@huge_input' has shape [100000000, 100000000] with 10000000000000000 elements (3.725e+07 GiB as f32), more than the 1073741824 elements (4 GiB as f32) a host tensor may hold{{$}}
func.func @huge_input(%x: tensor<100000000x100000000xf32>) -> tensor<100000000x100000000xf32> {
  %y = fp8.relu %x : (tensor<100000000x100000000xf32>) -> tensor<100000000x100000000xf32>
  return %y : tensor<100000000x100000000xf32>
}

// -----

// The static dims alone fit in 64 bits; with the dynamic dim's 4 (--dynamic-dim's default)
// they do not.
// CHECK: {{^}}{{.*}}huge-shapes.mlir:[[@LINE+1]]:1: error: random input %x of '@overflow' has shape [4, 4611686018427387904], whose element count overflows 64 bits: more than the 1073741824 elements (4 GiB as f32) a host tensor may hold{{$}}
func.func @overflow(%x: tensor<?x4611686018427387904xbf16>) -> tensor<?x4611686018427387904xbf16> {
  return %x : tensor<?x4611686018427387904xbf16>
}

// -----

func.func @huge_result(%a: tensor<65536x1xbf16>, %b: tensor<1x65536xbf16>) -> tensor<65536x65536xbf16> {
  // CHECK: {{^}}{{.*}}huge-shapes.mlir:[[@LINE+1]]:3: error: 'fp8.matmul' op result %y has shape [65536, 65536] with 4294967296 elements (16 GiB as f32), more than the 1073741824 elements (4 GiB as f32) a host tensor may hold{{$}}
  %y = fp8.matmul %a, %b : (tensor<65536x1xbf16>, tensor<1x65536xbf16>) -> tensor<65536x65536xbf16>
  return %y : tensor<65536x65536xbf16>
}
