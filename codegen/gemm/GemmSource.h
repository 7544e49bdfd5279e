// The CUDA source of one generated Hopper FP8 GEMM spec (GemmSpec.h): #include
// "fp8c/gemm_sm90.cuh", a config struct with the spec's members by name, and one extern "C"
// __global__ entry (named GemmSm90Spec::name()) that instantiates sm90::gemmSm90<Config>; with
// a column-sum output also "<name>_colsum", the partial sums' kernel. Compiled by NVRTC for
// sm_90a (wgmma and setmaxnreg need it) with no toolkit headers.
#pragma once

#include "codegen/gemm/GemmSpec.h"

#include <string>

namespace fp8c {

/// The CUDA source of `k`: the config struct, the kernel and (colSumType) its column sums.
std::string gemmSm90Source(const GemmSm90Spec &k);

} // namespace fp8c
