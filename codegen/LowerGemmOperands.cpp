// What lowering asks of a GEMM op's operands (LowerGemm.cpp): its bias and whether cuBLASLt
// takes it as it is, its scale mode, and the N cuBLASLt should run it with.
#include "codegen/LowerInternal.h"

namespace fp8c::codegen {
namespace {

int64_t roundUpTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

} // namespace

const Value *biasOf(const Op *main) {
  if (main->kind() == OpKind::ScaledMatmul && main->numOperands() > 4)
    return main->operand(4);
  if (main->kind() == OpKind::Linear && main->numOperands() > 2)
    return main->operand(2);
  return nullptr;
}

// True when cuBLASLt takes the bias of `main` as it is (its bias type follows D: bf16 for
// bf16 / f32 D of an FP8 GEMM, f16 for f16 D, bf16 or f16 for FP8 D; D's own type for a bf16
// GEMM). Otherwise the GEMM writes f32 and a launch adds the bias (one rounding, as the IR).
bool biasFusable(const Op *main) {
  const Value *bias = biasOf(main);
  if (!bias)
    return true;
  const DType d = main->result()->type().dtype(), b = bias->type().dtype();
  const bool fp8 = main->kind() == OpKind::ScaledMatmul;
  if (fp8 && isFloat8(d))
    return b == DType::BF16 || b == DType::F16;
  DType want = d == DType::F16 ? DType::F16 : DType::BF16;
  if (!fp8 && d == DType::F32)
    want = DType::F32;
  return b == want;
}

GemmScaleMode scaleModeOf(const Op *main) {
  if (main->kind() != OpKind::ScaledMatmul)
    return GemmScaleMode::Tensor;
  int64_t rank = main->operand(2)->type().rank();
  return rank == 0   ? GemmScaleMode::Tensor
         : rank == 1 ? GemmScaleMode::OuterVector
                     : GemmScaleMode::Block128;
}

/// The N cuBLASLt should run a GEMM with (GemmStep::nPadded), or 0 for N as it is. An N that
/// is not a multiple of 8 (bf16 / f16) or 16 (FP8, which cuBLASLt refuses) has no fast
/// cuBLASLt kernel; rounded up, B [N, K] and the bias are copied with zeros after and D's
/// 16-byte pitch takes the extra columns (0, plus a zero bias, through the activation: 0). FP8
/// only with a plain epilogue (bias, activation): no amax, cast, transpose, column sums or saved
/// input of D, and only where cuBLASLt may run it; any scale mode: row scales of B get zeros
/// after N (LowerGemm grows B's inverse-scale buffer), 128 x 128 block scales already cover the
/// pad rows (N rounded up to 16 stays in the last 128-row block).
int64_t roundedN(Lowerer &lw, const GemmAnalysis &a, const Op *main, bool bTransposed) {
  const Value *A = main->operand(0), *B = main->operand(1);
  const bool fp8 = main->kind() == OpKind::ScaledMatmul;
  if (a.mains.size() != 1 || bTransposed || B->type().rank() != 2 || a.aux ||
      (main->kind() != OpKind::Linear && !fp8) || (biasOf(main) && !biasFusable(main)))
    return 0;
  const int64_t n = B->type().dim(0), up = roundUpTo(n, fp8 ? 16 : 8);
  if (up == n || dtypeBytes(main->result()->type().dtype()) != 2)
    return 0;
  if (fp8) {
    if (!isFloat8(A->type().dtype()) || a.backend == GemmBackend::Generated ||
        a.amaxD || a.castD || a.transD || a.epiIn || a.colSum || a.written.size() != 1 ||
        a.needsGenerated || lw.ldOf(lw.bufferOf(a.written[0])) < up)
      return 0;
  }
  return up;
}

} // namespace fp8c::codegen
