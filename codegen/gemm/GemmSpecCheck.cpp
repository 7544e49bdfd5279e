// checkGemmSm90Spec (GemmSpec.h): the errors of a generated GEMM spec alone.
#include "codegen/gemm/GemmSpec.h"

namespace fp8c {
namespace {

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

} // namespace

Status checkGemmSm90Spec(const GemmSm90Spec &k) {
  const std::string what = "generated sm90 GEMM " + k.name() + ": ";
  auto fail = [&](const std::string &m) { return Error(what + m); };
  if (!isFp8(k.aType) || !isFp8(k.bType))
    return fail("A and B must be FP8 (e4m3 or e5m2); use cuBLASLt for bf16/f16 operands");
  if (k.aType == DType::F8E5M2 && k.bType == DType::F8E5M2)
    return fail("e5m2 x e5m2 is not supported (cuBLASLt rejects it too); quantize one side "
                "to e4m3");
  if (k.dType != DType::BF16 && k.dType != DType::F16 && k.dType != DType::F32 && !isFp8(k.dType))
    return fail("D must be bf16, f16, f32, e4m3 or e5m2");
  if (k.biasType && *k.biasType != DType::BF16 && *k.biasType != DType::F16 &&
      *k.biasType != DType::F32)
    return fail("bias must be bf16, f16 or f32");
  if (k.bn != 64 && k.bn != 128 && k.bn != 192 && k.bn != 256)
    return fail("tile width bn must be 64, 128, 192 or 256");
  if (k.bm != 128 && k.bm != 64)
    return fail("tile rows bm must be 128 or 64");
  if (!k.sideSpec.empty()) {
    if (k.castA || k.castAhead || k.epilogueWarps)
      return fail("a side launch runs on the producer warpgroup's warps 1-3, which the bf16-A "
                  "prologue, cast-ahead A and the offloaded epilogue use");
    if (k.sideBuffers < 1 || k.sideBuffers > kGemmSm90MaxSideBuffers)
      return fail("a side launch takes 1 to " + std::to_string(kGemmSm90MaxSideBuffers) +
                  " buffers, not " + std::to_string(k.sideBuffers));
  }
  const bool pingPong = k.schedule == GemmSchedule::PingPong;
  if (pingPong) {
    if (k.promotes())
      return fail("the ping-pong schedule does not promote per K block (Block128 scales, "
                  "fastAccum off): use the cooperative schedule");
    if (k.bm * k.bn > 128 * 128)
      return fail("a ping-pong warpgroup holds its whole bm x bn tile in registers: bm * bn "
                  "must be at most 128 * 128 (128 x 128, 128 x 64, 64 x up to 256)");
  } else if (k.bm == 64 && k.bn != 128 && k.bn != 256) {
    return fail("bm = 64 splits the columns between two warpgroups: bn must be 128 or 256");
  }
  // Columns of one consumer warpgroup's wgmma.
  const int wn = pingPong || k.bm == 128 ? k.bn : k.bn / 2;
  if (k.clusterM != 1 && k.clusterM != 2)
    return fail("clusterM must be 1 or 2 (blocks per cluster along M sharing the B tile)");
  if (k.stages < 2 || k.stages > 8)
    return fail("stages must be between 2 and 8");
  if (k.epilogueWarps) {
    if (!k.extraOutputs())
      return fail("the offloaded epilogue (epilogueWarps) runs the extra-output epilogue: set "
                  "auxOut, transD, geluGradIn or colSumType, or clear epilogueWarps");
    if (pingPong || k.bm != 128 || k.bn != 128 || k.clusterM != 1 || k.castA || k.castAhead)
      return fail("the offloaded epilogue (epilogueWarps) needs cooperative 128 x 128 tiles in "
                  "single blocks (clusterM = 1) loading FP8 A");
    if (k.amaxRows)
      return fail("the offloaded epilogue (epilogueWarps) takes a tensor amax, not per-row "
                  "amaxes: clear amaxRows or epilogueWarps");
    if (k.auxFp8)
      return fail("the offloaded epilogue (epilogueWarps) writes the pre-activation in bf16: "
                  "clear auxFp8 or epilogueWarps");
    if (!isFp8(k.dType))
      return fail("the offloaded epilogue (epilogueWarps) writes an FP8 D: clear epilogueWarps");
  }
  if (k.geluGradInFp8 && !k.geluGradIn)
    return fail("geluGradInFp8 is the e4m3 form of the gelu_grad epilogue's saved input: set "
                "geluGradIn");
  if (k.geluGradInFp8 && !k.epilogueWarps)
    return fail("the gelu_grad epilogue reads an e4m3 saved input (geluGradInFp8) on the "
                "offloaded epilogue's warps only, whose derivative tables it uses: set "
                "epilogueWarps (cooperative 128 x 128 tiles)");
  if (k.auxFp8 && !k.auxOut)
    return fail("auxFp8 is the e4m3 form of the pre-activation output: set auxOut");
  if (k.sharedBytes() > kGemmSm90MaxSharedBytes)
    return fail("needs " + std::to_string(k.sharedBytes()) + " bytes of shared memory (at most " +
                std::to_string(kGemmSm90MaxSharedBytes) + "): fewer stages or a narrower tile");
  if (k.amaxRows && !k.amaxD)
    return fail("amaxRows is the per-row form of amaxD: set amaxD");
  if (k.castA || k.castAhead) {
    // Both ways of casting a bf16 A in the GEMM: the prologue (castA), cast-ahead A.
    const std::string how = k.castA ? "the bf16-A prologue" : "cast-ahead A";
    if (k.castA && k.castAhead)
      return fail("castA and castAhead are two ways of casting A in the GEMM: set one");
    if (k.scaleMode == GemmScaleMode::Block128)
      return fail(how + " casts with a tensor or row scale, not 1x128 blocks: cast A with its "
                        "own kernel");
    if (k.clusterM != 1)
      return fail(how + " runs in single blocks (clusterM = 1)");
    if (k.castA && (k.castSlots < 2 || k.castSlots > 4))
      return fail("castSlots must be between 2 and 4");
  }
  if (k.amaxA && !k.castA && !k.castAhead)
    return fail("amaxA is taken by the bf16-A prologue or cast-ahead A: set castA or castAhead");
  if (k.aTransposed) {
    if (pingPong || k.bm != 128 || k.clusterM != 1)
      return fail("A MN-major (aTransposed) runs in cooperative 128-row tiles of single blocks "
                  "(bm = 128, clusterM = 1)");
    if (k.castA || k.castAhead || k.epilogueWarps || k.swiglu || !k.sideSpec.empty())
      return fail("A MN-major (aTransposed) loads FP8 A as it is: no bf16-A prologue, cast-ahead "
                  "A, offloaded epilogue, dual GEMM or side launch");
    if (k.scaleMode != GemmScaleMode::Tensor)
      return fail("A MN-major (aTransposed) takes tensor scales (per-row and blockwise scales "
                  "index A's rows, which its epilogue holds in another order)");
    if (k.extraOutputs() || k.residualIn || k.blockCast || k.amaxRows)
      return fail("A MN-major (aTransposed) has the plain TMA-store epilogue: no extra outputs, "
                  "residual, block cast or per-row amax");
    if (k.epilogueBuffers() == 0)
      return fail("A MN-major (aTransposed) stores D through the TMA-store epilogue: a 16-bit or "
                  "FP8 D, tmaStore, and room for its chunk buffers (fewer stages)");
  }
  if (k.extraOutputs() && k.epilogueBuffers() == 0)
    return fail(!k.extraOutputsTyped()
                    ? "the transposed, gelu_grad and column-sum outputs and the e4m3 "
                      "pre-activation need an FP8 D (a bf16 D takes the bf16 pre-activation "
                      "alone)"
                : !k.tmaStore ? "the pre-activation, transposed, gelu_grad and column-sum "
                                "outputs are written by the TMA-store epilogue only: set "
                                "tmaStore"
                              : "the pre-activation, transposed, gelu_grad and column-sum "
                                "outputs need whole 64-column units per warpgroup and " +
                                    std::to_string(16 * k.extraUnitChunks()) +
                                    " KB of shared memory beside the ring: fewer stages");
  if (k.geluGradIn && (k.activation != Activation::None || k.auxOut))
    return fail("the gelu_grad epilogue (geluGradIn) replaces the activation and writes no "
                "pre-activation: activation None, auxOut off");
  if (k.residualIn && (k.extraOutputs() || k.swiglu))
    return fail("the residual add (residualIn) combines with no extra outputs (aux, D^T, "
                "gelu_grad, column sums) and not with the dual GEMM");
  if (k.colSumType && *k.colSumType != DType::BF16 && *k.colSumType != DType::F16 &&
      *k.colSumType != DType::F32)
    return fail("column sums are written in bf16, f16 or f32");
  if (k.swiglu) {
    if (k.biasType || k.activation != Activation::None)
      return fail("the dual GEMM (swiglu) takes no bias and no other activation");
    if (k.extraOutputs() || k.castA || k.clusterM != 1)
      return fail("the dual GEMM (swiglu) writes D alone, from FP8 A, in single blocks (no "
                  "extra outputs, bf16-A prologue or cluster)");
    if (!pingPong && k.bm != 128)
      return fail("the dual GEMM (swiglu) needs whole tiles per consumer warpgroup: the "
                  "cooperative schedule with bm = 128, or ping-pong");
  }
  if (k.blockCast) {
    if (!isFp8(k.dType))
      return fail("the 1x128-block cast (blockCast) writes an FP8 D");
    if (k.amaxD || k.extraOutputs() || k.residualIn || k.swiglu || k.castA)
      return fail("the 1x128-block cast (blockCast) takes no amaxD, extra outputs, residual, "
                  "dual GEMM or bf16-A prologue");
    if (wn % 128 != 0)
      return fail("the 1x128-block cast (blockCast) needs whole 128-column blocks per consumer "
                  "warpgroup: 128 x 128 or 64 x 256 cooperative, or 128-wide ping-pong tiles");
  }
  // Promotion holds the result and one K block's accumulators (of a 256-wide slice: one
  // half's, tensor scales only).
  if (k.promotes() && wn > 192 && (wn != 256 || k.scaleMode != GemmScaleMode::Tensor || k.swiglu))
    return fail("promotion per K block (Block128 scales, fastAccum off) holds two accumulator "
                "sets: bn must be at most 192 (bm = 64: 128 or 256), or 256 in halves with "
                "tensor scales and no dual GEMM");
  return Status::ok();
}

} // namespace fp8c
