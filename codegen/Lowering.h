// Lowering of a fused graph (every compute op inside an fp8.kernel) to a LaunchPlan: each
// pointwise/reduce kernel becomes generated CUDA C++ launches; each gemm kernel becomes a
// cuBLASLt FP8 GEMM with the epilogues cuBLASLt can take, and generated launches for its
// prologue and for the epilogue ops it cannot take. The CUDA text is deterministic.
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <string>

namespace fp8c {

/// Shape knobs of the generated elementwise launches (0 / -1: the built-in choice). The
/// defaults are what the H200 sweep of `fp8c-quant-bw --sweep` picked; the
/// knobs exist for that sweep and for tuning on other devices.
struct ElementwiseTuning {
  int chunk = 0;        ///< elements per chunk (kE: 8, 16 or 32) of row launches
  int unroll = 0;       ///< chunks per thread per grid-stride step (kUnroll) of flat row launches
  int tileTwoPass = -1; ///< 128x128 tiles: 1 = read the tile twice, 0 = hold it in registers
  /// Derivatives of an FP8 input (gelu_grad / silu_grad of a widened FP8 value) read from a
  /// 256-entry table instead of computed per element (rows.cuh, "FP8 tables"); 0 = off.
  int fp8Tables = -1;
  /// One-pass cast-transposes with a known tensor scale (of a bf16 input, or of a bf16 input and
  /// a table-read FP8 one) in the byte-staged form (transpose_bytes.cuh) instead of the general
  /// one (transpose.cuh); 0 = off.
  int byteStagedTranspose = -1;
  /// The byte-staged form's loops without bounds checks where every tile lies inside
  /// (transpose_bytes.cuh, kInsideTiles); 0 = the checked loops for every tile.
  int insideTiles = -1;
  bool isDefault() const {
    return chunk == 0 && unroll == 0 && tileTwoPass < 0 && fp8Tables < 0 &&
           byteStagedTranspose < 0 && insideTiles < 0;
  }
  std::string str() const;
};

struct CodegenOptions {
  std::string arch = "sm_90a"; ///< sm_90a (Hopper) or sm_89 (Ada)
  ElementwiseTuning tuning;
  /// Run a cast-transpose beside the GEMM step before it where they share no buffer
  /// (GemmStep::side: on the generated GEMM's idle warps; codegen/LowerSide.cpp). Off by
  /// default: measured a tie at best (CompileOptions::sideLaunches).
  bool sideLaunches = false;
};

/// Lowers `g`, which must have been through `fuse` (and verify). Errors name the op.
Expected<LaunchPlan> lowerGraph(const Graph &g, const CodegenOptions &opts);

/// Every generated source of the plan, each headed by a comment naming the kernel and its
/// ops; cuBLASLt steps appear as comments. What `fp8c --emit=cuda` prints.
std::string planToCudaText(const LaunchPlan &plan);

} // namespace fp8c
