// The 1x128-block FP8 cast of a GEMM's result in the generated GEMM's epilogue (a blockwise
// recipe's activation, quantized for the next GEMM): analysis of the chain
//   y = GEMM result (+ bias), a = act(y) (optional), m = amax(a, block_1x128),
//   s = scale(m), q = cast(a, s, block_1x128)
// and its lowering onto GemmStep::blockCast. The generated GEMM writes q, s (where the graph
// uses it beyond the cast) and 1 / s (the inverse the next GEMM reads) from registers
// (gemm_sm90_block_cast.cuh), so neither y nor a is written in bf16 and no launch reads them
// back. cuBLASLt, auto's other choice (its 128-block mode takes no activation and writes no
// FP8 output), writes y to epiD and the epilogue launches compute the rest from it; the runtime
// measures the two.
#include "codegen/LowerInternal.h"

namespace fp8c::codegen {
namespace {

std::optional<Activation> activationOf(const Op *op) {
  switch (op->kind()) {
  case OpKind::Relu:
    return Activation::Relu;
  case OpKind::Silu:
    return Activation::Silu;
  case OpKind::Gelu:
    return op->strAttr("approximate") == "tanh" ? Activation::GeluTanh : Activation::GeluErf;
  default:
    return std::nullopt;
  }
}

// The one user of `v` inside `kernel`, if v has exactly one user and is not yielded.
Op *soleUser(const Value *v, const Op &kernel) {
  if (v->numUses() != 1 || isYielded(v))
    return nullptr;
  Op *u = v->users().front();
  return u->parentOp() == &kernel ? u : nullptr;
}

} // namespace

void analyzeBlockCast(const Op &kernel, GemmAnalysis &a) {
  Op *main = a.mains[0];
  const Value *y = main->result();
  if (main->kind() != OpKind::ScaledMatmul || scaleModeOf(main) != GemmScaleMode::Block128 ||
      y->type().rank() != 2 || y->type().dtype() != DType::BF16)
    return;
  Op *act = nullptr;
  const Value *v = y;
  if (Op *u = soleUser(y, kernel); u && activationOf(u) && u->result()->type() == y->type()) {
    act = u;
    v = u->result();
  }
  // v's users: exactly its 1x128 amax and the cast by the scale computed from it.
  Op *amax = nullptr, *cast = nullptr;
  if (isYielded(v) || v->numUses() != 2)
    return;
  for (Op *u : v->users()) {
    if (u->parentOp() != &kernel)
      return;
    if (u->kind() == OpKind::Amax && u->strAttr("granularity") == "block_1x128")
      amax = u;
    else if (u->kind() == OpKind::Cast && u->operand(0) == v &&
             u->strAttr("granularity") == "block_1x128")
      cast = u;
  }
  if (!amax || !cast)
    return;
  Op *scale = soleUser(amax->result(), kernel);
  if (!scale || scale->kind() != OpKind::Scale || cast->operand(1) != scale->result() ||
      scale->dtypeAttr("dtype") != cast->result()->type().dtype() ||
      !isFloat8(cast->result()->type().dtype()))
    return;
  a.blockAct = act;
  a.blockAmax = amax;
  a.blockScale = scale;
  a.blockCast = cast;
  a.epiResult = y;
  a.epiFirst = act ? act : amax;
  for (Op *f : {act, amax, scale, cast})
    if (f)
      a.fused.push_back(f);
  a.written[0] = cast->result();
}

Status lowerBlockCast(Lowerer &lw, const Op &kernel, int kernelIndex, const GemmAnalysis &a,
                      GemmStep &g) {
  g.blockCast = true;
  g.blockAct = a.blockAct ? *activationOf(a.blockAct) : Activation::None;
  g.blockMargin = a.blockScale->intAttr("margin");
  g.blockPow2 = a.blockScale->boolAttr("pow2");
  const Value *s = a.blockScale->result();
  if (g.backend != GemmBackend::Generated) {
    // Auto's other choice: cuBLASLt writes y (with its bias) to epiD, and the launches of the
    // unfused plan (activation, amaxes, scales, cast, and the inverse the next GEMM reads)
    // compute the rest from it.
    g.epiD = lw.bufferOf(a.epiResult);
    const size_t mark = lw.stepCount();
    if (Status st = buildLaunches(lw, kernel, kernelIndex, a.fused, "block_cast_fallback"); !st)
      return st;
    g.epiFallback = lw.takeLaunchesSince(mark);
  }
  // The scale itself where anything but the cast (and the GEMMs reading its inverse) uses it.
  bool scaleUsed = false;
  for (const Op *u : s->users()) {
    if (u == a.blockCast)
      continue;
    const bool readsInverse = u->kind() == OpKind::ScaledMatmul &&
                              (u->operand(2) == s || u->operand(3) == s) &&
                              u->operand(0) != s && u->operand(1) != s;
    scaleUsed |= !readsInverse;
  }
  if (scaleUsed)
    g.blockScaleOut = lw.bufferOf(s);
  // The inverse in the layout an A operand's 1x128 scales take (the fallback launches wrote it
  // too, into the same buffer, where they were built).
  if (std::optional<int> inv = lw.inverseBuffer(s, InvLayout::KBlockMajor)) {
    g.blockInvOut = *inv;
    lw.markInverseWritten(s, InvLayout::KBlockMajor);
  }
  return Status::ok();
}

} // namespace fp8c::codegen
