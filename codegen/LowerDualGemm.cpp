// Lowering of a dual GEMM (the gate and up projections of a SwiGLU MLP, two FP8 GEMMs sharing
// A, whose results meet only in one fp8.swiglu): one GemmStep with the up weight as
// its second B (GemmStep::b2). The generated Hopper GEMM runs both in one kernel and
// writes the swiglu (with its amax, and the FP8 cast when its scale is known) from registers,
// so neither bf16 result is written; on cuBLASLt (backend auto measures the two) the step runs
// two GEMMs into the results' buffers and a launch computes the epilogue from them
// (dualFallback). Tensor scales and row scales (the rowwise recipe: the swiglu's per-row amax
// in the epilogue, its row cast a launch of its own, since a row spans every tile of N) form
// it. Where the generated GEMM cannot take it (a bias, results not bf16 or used elsewhere,
// --backend=cublaslt, another arch), the kernel lowers as two GEMM steps and an epilogue launch
// (LowerGemm.cpp). So do block scales: the generated kernel takes them (GemmSm90Spec) but
// measured slower than cuBLASLt's two GEMMs on an H200 (1881 us against 870 + 869 us at M 8192,
// D 4096, H 14336), and its cuBLASLt form would add a pass over the swiglu that the two-GEMM
// plan's one launch (swiglu, 1x128 amax and cast) does not need.
#include "codegen/LowerInternal.h"

#include <algorithm>

namespace fp8c::codegen {
namespace {

/// The scale rank of an FP8 GEMM with tensor (0) or row (1) scales on both operands; -1 for
/// anything else (block scales, an unscaled GEMM).
int scaleRank(const Op *m) {
  if (m->kind() != OpKind::ScaledMatmul || m->numOperands() != 4)
    return -1;
  const int ra = m->operand(2)->type().rank(), rb = m->operand(3)->type().rank();
  return ra == rb && ra <= 1 ? ra : -1;
}

} // namespace

void analyzeDualGemm(const Op &kernel, bool generatedCapable, std::vector<Op *> epi,
                     GemmAnalysis &a) {
  a.post = epi;
  Op *m0 = a.mains[0], *m1 = a.mains[1];
  const int rank = scaleRank(m0);
  if (!generatedCapable || rank < 0 || scaleRank(m1) != rank ||
      m0->operand(0) != m1->operand(0) || m0->operand(2) != m1->operand(2) ||
      m0->operand(1)->type() != m1->operand(1)->type() ||
      m0->result()->type() != m1->result()->type() ||
      m0->result()->type().dtype() != DType::BF16 ||
      m0->boolAttr("fast_accum") != m1->boolAttr("fast_accum"))
    return;
  const Value *r0 = m0->result(), *r1 = m1->result();
  if (r0->numUses() != 1 || r1->numUses() != 1 || isYielded(r0) || isYielded(r1))
    return;
  Op *s = r0->users().front();
  if (s->kind() != OpKind::Swiglu || s != r1->users().front() || s->parentOp() != &kernel ||
      s->result()->type().dtype() != DType::BF16)
    return;
  if (s->operand(0) == r1)
    std::swap(a.mains[0], a.mains[1]); // mains: (gate, up)
  const std::set<const Op *> mains(a.mains.begin(), a.mains.end());
  std::vector<Op *> fused{s};
  const Value *tail = s->result();
  auto [castD, amaxD] = knownScaleCastOf(tail, mains);
  // D is the bf16 swiglu (used after the kernel): its tensor amax still fuses, or with row
  // scales its per-row amax (the rowwise cast that follows takes its scale from it).
  const char *gran = rank == 0 ? "tensor" : "row";
  if (!castD)
    for (Op *u : tail->users())
      if (u->kind() == OpKind::Amax && u->strAttr("granularity") == gran && !amaxD &&
          u->operand(0) == tail && u->parentOp() == &kernel)
        amaxD = u;
  for (Op *f : {amaxD, castD})
    if (f)
      fused.push_back(f);
  a.swiglu = s;
  a.amaxD = amaxD;
  a.amaxRows = amaxD && amaxD->strAttr("granularity") == "row";
  a.castD = castD;
  a.fused = fused;
  a.written = {castD ? castD->result() : tail};
  a.post.clear();
  for (Op *op : epi)
    if (std::find(fused.begin(), fused.end(), op) == fused.end())
      a.post.push_back(op);
}

Status lowerDualGemm(Lowerer &lw, const Op &kernel, int kernelIndex, const GemmAnalysis &a) {
  const Op *gate = a.mains[0], *up = a.mains[1];
  const Value *A = gate->operand(0);
  GemmStep g;
  g.name = "k" + std::to_string(kernelIndex) + "_gemm";
  g.a = lw.gemmOperandBuffer(A);
  g.b = lw.gemmOperandBuffer(gate->operand(1));
  g.b2 = lw.gemmOperandBuffer(up->operand(1));
  g.m = Lowerer::rowsOf(A->type());
  g.k = Lowerer::colsOf(A->type());
  if (g.k == kDynamic)
    return Error("a GEMM whose K is the dynamic dim (M) is not supported by codegen yet");
  g.n = gate->operand(1)->type().dim(0);
  g.backend = a.backend;
  g.scaleMode = gate->operand(2)->type().rank() == 0 ? GemmScaleMode::Tensor
                                                     : GemmScaleMode::OuterVector;
  g.fastAccum = gate->boolAttr("fast_accum");
  for (auto [v, slot] : {std::pair{gate->operand(2), &g.invScaleA},
                         std::pair{gate->operand(3), &g.invScaleB},
                         std::pair{up->operand(3), &g.invScaleB2}})
    if (Status st = inverseScaleInto(lw, v, InvLayout::RowMajor, kernelIndex, slot); !st)
      return st;
  std::string ops;
  for (const Op *op : {gate, up})
    ops += std::string(op->name()) + " %" + op->result()->name() + ", ";
  for (const Op *f : a.fused)
    ops += std::string(f->name()) + " %" + f->result()->name() + (f == a.fused.back() ? "" : ", ");
  g.description = ops + " (one GEMM for both weights)";
  if (a.amaxD) {
    g.amaxRows = a.amaxRows;
    g.amaxD = lw.bufferOf(a.amaxD->result());
    lw.desc(g.amaxD).zeroInit = true;
    lw.setAmaxRound(g.amaxD, a.amaxD->operand(0)->type().dtype());
  }
  if (a.castD)
    g.scaleD = lw.bufferOf(a.castD->operand(1));
  // Auto's other choice: cuBLASLt writes the two results and one launch computes the epilogue.
  // (--backend=generated has no such choice: the bf16 results then get no buffers at all.)
  if (g.backend != GemmBackend::Generated) {
    g.gateD = lw.bufferOf(gate->result());
    g.upD = lw.bufferOf(up->result());
    const size_t mark = lw.stepCount();
    if (Status s = buildLaunches(lw, kernel, kernelIndex, a.fused, "dual_fallback"); !s)
      return s;
    g.dualFallback = lw.takeLaunchesSince(mark);
  }
  g.d = lw.bufferOf(a.written[0]);
  const BufferDesc &dd = lw.desc(g.d);
  if (dd.ld > Lowerer::colsOf(dd.type) && isFloat8(dd.type.dtype()))
    lw.desc(g.d).zeroInit = true; // the pad columns of an FP8 operand-to-be must be zero
  lw.addGemm(std::move(g));
  if (!a.post.empty())
    return buildLaunches(lw, kernel, kernelIndex, a.post, "epilogue");
  return Status::ok();
}

} // namespace fp8c::codegen
