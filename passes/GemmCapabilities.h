// What each GEMM backend (GemmBackend.h) can run, and why not: operand dtypes and layouts, the
// epilogue's parts and the output dtypes they need, the device. Every answer is the reason a
// backend refuses (empty when it takes the GEMM), so the planner's backend choice
// (FusionBackend.cpp), the runtime's mapping of a plan's GEMM step onto the generated Hopper GEMM
// (runtime/gpu/GemmSm90Step.cpp) and the runtime's choice between the two
// (runtime/ExecutableGemmChoice.cpp) ask here instead of repeating the conditions.
#pragma once

#include "ir/DType.h"
#include "passes/FusionPlan.h"

#include <string>

namespace fp8c {

class GemmCapabilities {
public:
  // --- cuBLASLt ---

  /// Why cuBLASLt cannot run op `op` of the planned GEMM kernel `k` (its role there: the
  /// prologue, the main GEMM or an epilogue op), or "" where cuBLASLt takes it: its epilogues
  /// are bias, GELU (tanh), ReLU, AMAX_D and an FP8 D with a per-tensor scale; row and 128-block
  /// scale modes with bias only.
  static std::string cublasLtRefusal(const PlannedKernel &k, Op *op);
  /// Whether op `op` of `k` is a part that only the generated GEMM's epilogue has (no cuBLASLt
  /// form, not even with launches after it): the e4m3 copy of the pre-activation.
  static bool generatedOnly(const PlannedKernel &k, Op *op);

  // --- the generated Hopper GEMM (codegen/gemm/GemmSpec.h) ---

  /// Whether the generated GEMM runs on a device of this compute capability (sm_90 only:
  /// wgmma, TMA multicast and setmaxnreg).
  static bool generatedRunsOn(int ccMajor, int ccMinor) { return ccMajor == 9 && ccMinor == 0; }
  /// Why the generated GEMM cannot take A x B operands of these dtypes, or "".
  static std::string generatedOperands(DType a, DType b);
  /// Why it cannot take operands in these layouts (A [M, K], B [N, K] K-major), or "".
  static std::string generatedLayout(bool aKMajor, bool bKMajor);
  /// Why it cannot write the GELU input (`aux`: its dtype, or nothing) and D transposed
  /// (`transD`) beside a D of dtype `d`, or "".
  static std::string generatedExtraOutputs(DType d, std::optional<DType> aux, bool transD);
  /// Why its epilogue cannot read an input of dtype `in`: the residual (`residual`) or the
  /// GELU's saved input of gelu_grad; or "".
  static std::string generatedEpilogueInput(bool residual, DType in);
  /// Why it cannot take gelu_grad or column sums in its epilogue beside a D of dtype `d`, or "".
  static std::string generatedGeluGradOrColSums(DType d);
  /// Why its 1x128-block cast cannot write a D of dtype `d`, or "".
  static std::string generatedBlockCast(DType d);
};

} // namespace fp8c
