// Errors of `quantize`. Bad options are pipeline errors, reported before any graph is read
// (`fp8c: error: ...`, no location); graphs it cannot rewrite are located errors at the op.
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=fp16}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-RECIPE
// RUN: %expect-exit 1 fp8c %s --passes='quantize' 2>&1 | FileCheck %s --check-prefix=NO-RECIPE
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise amax=max}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise pow2=yes}' 2>&1 | FileCheck %s --check-prefix=BAD-POW2
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise fast_accum=2}' 2>&1 | FileCheck %s --check-prefix=BAD-FAST-ACCUM
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise margin=65}' 2>&1 | FileCheck %s --check-prefix=BAD-MARGIN
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise margin=-1}' 2>&1 | FileCheck %s --check-prefix=NEG-MARGIN
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise margin=1.5}' 2>&1 | FileCheck %s --check-prefix=FRAC-MARGIN
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise weights=frozen}' 2>&1 | FileCheck %s --check-prefix=BAD-WEIGHTS
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=delayed history_len=0}' 2>&1 | FileCheck %s --check-prefix=BAD-HISTORY-LEN
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=delayed algo=mean}' 2>&1 | FileCheck %s --check-prefix=BAD-ALGO
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=rowwise history_len=4}' 2>&1 | FileCheck %s --check-prefix=HISTORY-NOT-DELAYED
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise act_dtype=e3m4}' 2>&1 | FileCheck %s --check-prefix=BAD-DTYPE
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise act_dtype=e5m2 weight_dtype=e5m2}' 2>&1 | FileCheck %s --check-prefix=BOTH-E5M2
// RUN: %expect-exit 1 fp8c %s --passes='quantize{recipe=tensorwise recipe=rowwise}' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %expect-exit 1 fp8c %s --recipe=fp4 2>&1 | FileCheck %s --check-prefix=CLI-RECIPE

// UNKNOWN-RECIPE: {{^}}fp8c: error: quantize: unknown recipe 'fp16'; recipes: tensorwise, delayed, rowwise, blockwise{{$}}
// NO-RECIPE: {{^}}fp8c: error: quantize: option recipe is required (tensorwise|delayed|rowwise|blockwise){{$}}
// UNKNOWN-OPTION: {{^}}fp8c: error: pass 'quantize' has no option 'amax'; its options: recipe=tensorwise|delayed|rowwise|blockwise, pow2=true|false, margin=0..64, fast_accum=true|false, weights=dynamic|static, history_len=1..4096, algo=max|most_recent, act_dtype=e4m3|e5m2, weight_dtype=e4m3|e5m2, grad_dtype=e4m3|e5m2, bwd_fast_accum=true|false, gelu_saved=e4m3|input{{$}}
// BAD-POW2: {{^}}fp8c: error: quantize: option pow2 must be true or false, got 'yes'{{$}}
// BAD-FAST-ACCUM: {{^}}fp8c: error: quantize: option fast_accum must be true or false, got '2'{{$}}
// BAD-MARGIN: {{^}}fp8c: error: quantize: option margin must be an integer in [0, 64], got '65'{{$}}
// NEG-MARGIN: {{^}}fp8c: error: quantize: option margin must be an integer in [0, 64], got '-1'{{$}}
// FRAC-MARGIN: {{^}}fp8c: error: quantize: option margin must be an integer in [0, 64], got '1.5'{{$}}
// BAD-WEIGHTS: {{^}}fp8c: error: quantize: option weights must be dynamic or static, got 'frozen'{{$}}
// BAD-HISTORY-LEN: {{^}}fp8c: error: quantize: option history_len must be an integer in [1, 4096], got '0'{{$}}
// BAD-ALGO: {{^}}fp8c: error: quantize: option algo must be max or most_recent, got 'mean'{{$}}
// HISTORY-NOT-DELAYED: {{^}}fp8c: error: quantize: option history_len applies to recipe=delayed only{{$}}
// BAD-DTYPE: {{^}}fp8c: error: quantize: option act_dtype must be e4m3 or e5m2, got 'e3m4'{{$}}
// BOTH-E5M2: {{^}}fp8c: error: quantize: act_dtype and weight_dtype cannot both be e5m2 (no e5m2 x e5m2 FP8 GEMM){{$}}
// TWICE: {{^}}fp8c: error: pass 'quantize': option 'recipe' given twice{{$}}
// CLI-RECIPE: {{^}}fp8c: error: --recipe=fp4: unknown recipe; recipes: tensorwise, delayed, rowwise, blockwise, none{{$}}

// Located errors: each chunk fails on its own, the message names the op and points at it.
// RUN: %expect-exit 1 fp8c %s --split-input-file --passes='quantize{recipe=tensorwise weights=static}' 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @computed_weight(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x128xbf16> {
  %w2 = fp8.relu %w : (tensor<128x256xbf16>) -> tensor<128x256xbf16>
  // CHECK: {{.*}}quantize-errors.mlir:[[@LINE+1]]:3: error: quantize: weights=static needs the weight of 'fp8.linear' to be a graph input, but %w2 is computed in the graph
  %y = fp8.linear %x, %w2 : (tensor<?x256xbf16>, tensor<128x256xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

func.func @computed_matmul_weight(%a: tensor<?x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<?x128xbf16> {
  %b2 = fp8.gelu %b : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  // CHECK: {{.*}}quantize-errors.mlir:[[@LINE+1]]:3: error: quantize: weights=static needs the weight of 'fp8.matmul' to be a graph input, but %b2 is computed in the graph
  %y = fp8.matmul %a, %b2 : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
