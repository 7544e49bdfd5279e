// The lowered form of a fused graph: the buffers it needs and the ordered steps that compute
// it, each a generated CUDA kernel launch (source text that NVRTC compiles) or a cuBLASLt FP8
// GEMM. codegen/ produces it from the graph's fp8.kernel ops; runtime/ plans memory for the
// buffers, compiles the sources and runs the steps. Nothing here includes a CUDA header.
//
// The dynamic leading dim M is known only at run time: every generated kernel takes it as an
// argument, sizes are expressed as affine functions of M, and grids are computed at launch.
#pragma once

#include "ir/Type.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace fp8c {

/// a * M + b, with M the run-time size of the dynamic leading dim (ignored when static).
struct AffineM {
  int64_t perM = 0;
  int64_t fixed = 0;
  int64_t eval(int64_t m) const { return perM * m + fixed; }
};

enum class BufferRole {
  Input,    ///< a graph input bound by the caller
  Param,    ///< an input marked fp8.param (weights=static): bound once, at load
  State,    ///< an fp8.state pair: one persistent device buffer, input and output
  Output,   ///< a graph output written into the caller's buffer
  Constant, ///< computed at load from parameters only (quantized static weights)
  Temp,     ///< an intermediate; the memory plan may share its bytes with other temps
};

/// One device buffer. 2-D tensors may be stored with a padded row pitch (`ld` elements per
/// row >= cols) so that FP8 GEMM operands meet cuBLASLt's 16-byte alignment for any K.
struct BufferDesc {
  std::string name;    ///< the graph value's name (for messages and bindings)
  TensorType type;     ///< logical type; `?` is M
  BufferRole role = BufferRole::Temp;
  int64_t ld = 0;      ///< row pitch in elements for rank-2 tensors (0 = compact)
  int graphIndex = -1; ///< input index (Input/Param/State) or output index (Output/State)
  bool zeroInit = false; ///< must be zeroed before each step writing it (atomic amax targets)

  /// Bytes for a given M, with the row pitch's padding.
  int64_t bytes(int64_t m) const {
    const std::vector<int64_t> &shape = type.shape();
    int64_t elems = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t d = shape[i] == kDynamic ? m : shape[i];
      if (i + 1 == shape.size() && shape.size() == 2 && ld > d)
        d = ld;
      elems *= d;
    }
    return elems * dtypeBytes(type.dtype());
  }
};

/// How many thread blocks a generated launch uses.
struct GridRule {
  AffineM work;           ///< units of work (e.g. 16-byte vectors, rows, tiles)
  int64_t perBlock = 1;   ///< units per block per grid-stride iteration
  bool persistent = true; ///< cap at the number of co-resident blocks (grid-stride loops)
  bool cooperative = false; ///< needs all blocks co-resident (grid barrier): cooperative launch
};

/// A generated kernel launch. Its entry point takes one argument, a struct laid out as
/// `{ void *buffers[N]; long long m; }` with the buffers listed in `buffers` order.
struct GeneratedLaunch {
  std::string kernelName; ///< unique within the plan; the NVRTC program's name
  std::string entry;      ///< the `extern "C" __global__` function in `source`
  std::string source;     ///< complete CUDA C++ (includes embedded headers by name)
  std::vector<int> buffers;
  int blockThreads = 256;
  int64_t sharedBytes = 0;
  GridRule grid;
  std::string description; ///< the ops it runs, for logs and --emit=cuda comments
};

enum class GemmScaleMode { Tensor, OuterVector, Block128 };
enum class GemmEpilogue { Default, Bias, Gelu, GeluBias, Relu, ReluBias };

/// D[m, n] = sum_k A[m, k] B[n, k] * invScaleA * invScaleB (+ bias)(activation), optionally
/// with amax(|D|) and FP8 output D * scaleD. A and B are FP8, K-major (TN). Scale buffers
/// hold *inverse* scales (dequantization factors), as cuBLASLt multiplies by them.
struct CublasLtGemm {
  std::string name;
  int a = -1, b = -1, d = -1;
  int invScaleA = -1, invScaleB = -1; ///< f32 buffers: scalar, [M]/[N], or 128-block grids
  int bias = -1;                      ///< [N], bf16/f16/f32, or -1
  int amaxD = -1;                     ///< f32 scalar receiving max |D|, or -1
  int scaleD = -1;                    ///< f32 scalar for FP8 D, or -1
  GemmScaleMode scaleMode = GemmScaleMode::Tensor;
  GemmEpilogue epilogue = GemmEpilogue::Default;
  bool fastAccum = true;
  AffineM m;                          ///< rows of A and D
  int64_t n = 0, k = 0;               ///< k is the logical K (operand pitch may be padded)
};

using Step = std::variant<GeneratedLaunch, CublasLtGemm>;

struct LaunchPlan {
  std::string graphName;
  std::vector<BufferDesc> buffers;
  std::vector<Step> steps;     ///< run on every call, in order
  std::vector<Step> loadSteps; ///< run once when parameters are bound (weights=static)
};

} // namespace fp8c
