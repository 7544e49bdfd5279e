// Lowering of a gemm kernel (an FP8 GEMM step runs on cuBLASLt or the generated Hopper GEMM,
// GemmStep::backend):
//   1. a generated prologue launch for the ops before the GEMM: the FP8 cast of A with its
//      scale (written with a padded pitch when K % 16 != 0), the amax of A taken while it is
//      read, scales of the epilogue's cast, and the inverse scales cuBLASLt multiplies by;
//   2. one GemmStep per GEMM, taking what cuBLASLt's epilogue can: bias, GELU (tanh) or
//      RELU on the GEMM result, and, with per-tensor scales, the tensor amax of the result
//      (AMAX_D) and its FP8 cast when the cast's scale is known before the GEMM (scaleD);
//   3. a generated epilogue launch for the rest (GELU erf, SiLU, the swiglu of a dual GEMM
//      the generated GEMM cannot take, residual adds, row and 1x128 amaxes, 1x128 casts, ...).
// A dual GEMM (gate and up sharing A, meeting in one swiglu) that the generated GEMM can take is
// one step with both weights: LowerDualGemm.cpp.
// cuBLASLt's outer-vector (rowwise) and 128-block scale modes take no epilogue but a bias and
// no FP8 output, so with those scales everything after the bias is the epilogue launch's, unless
// the generated GEMM may run the step (backend auto or generated on sm_90a): then with row
// scales the activation and the amax of D (per row or tensor) join its epilogue, and the step
// runs on it. The generated GEMM also writes, beside an FP8 D, the GELU's saved input (aux) and
// D transposed (transD; a transpose launch after cuBLASLt); and, for the backward, the FP8
// gelu_grad of its result with the GELU's saved input read in the epilogue, its amax, column
// sums and transpose (epiIn; after cuBLASLt, one cast-transpose launch from the bf16 result);
// and a residual add of a bf16 input with its amax and FP8 cast (epiIn; after cuBLASLt, a
// launch from the bf16 result); with 128-block scales, the activation and 1x128-block FP8 cast
// of the result with its scales (LowerGemmBlockCast.cpp; after cuBLASLt, launches from the
// bf16 result).
#include "codegen/LowerInternal.h"

#include <algorithm>
#include <set>

namespace fp8c::codegen {
bool dependsOnAny(const Value *v, const std::set<const Op *> &roots) {
  std::set<const Op *> seen;
  std::vector<const Value *> work{v};
  while (!work.empty()) {
    const Op *def = work.back()->definingOp();
    work.pop_back();
    if (!def || !seen.insert(def).second)
      continue;
    if (roots.count(def))
      return true;
    for (const Value *o : def->operands())
      work.push_back(o);
  }
  return false;
}

bool isYielded(const Value *v) {
  for (const Op *u : v->users())
    if (u->kind() == OpKind::Yield)
      return true;
  return false;
}

// Whether a tensor amax of `v` is among the kernel's ops.
bool tensorAmaxIn(const Value *v, const Op &kernel) {
  for (const Op *u : v->users())
    if (u->kind() == OpKind::Amax && u->operand(0) == v && u->strAttr("granularity") == "tensor" &&
        u->parentOp() == &kernel)
      return true;
  return false;
}

std::pair<Op *, Op *> knownScaleCastOf(const Value *v, const std::set<const Op *> &mains) {
  Op *castD = nullptr, *amaxD = nullptr;
  int others = 0;
  for (Op *u : v->users()) {
    if (u->kind() == OpKind::Amax && u->strAttr("granularity") == "tensor" && !amaxD) {
      amaxD = u;
    } else if (u->kind() == OpKind::Cast && u->operand(0) == v && !castD &&
               u->strAttr("granularity") == "tensor" && !dependsOnAny(u->operand(1), mains)) {
      castD = u;
    } else {
      ++others;
    }
  }
  if (!castD || others != 0 || isYielded(v))
    return {nullptr, nullptr};
  return {castD, amaxD};
}

Status inverseScaleInto(Lowerer &lw, const Value *v, InvLayout layout, int kernelIndex,
                        int *slot) {
  std::optional<int> inv = lw.inverseBuffer(v, layout);
  if (!inv)
    return Error("internal error: no inverse-scale buffer for %" + v->name());
  const auto pending = lw.pendingInverses(v);
  if (std::find(pending.begin(), pending.end(), layout) != pending.end()) {
    // Nothing computed it yet (e.g. the scale is a graph input): a launch inverts it.
    const TensorType &t = v->type();
    if (lw.mDivisor(v) != 1)
      return Error("%" + v->name() +
                   " (ceil(M/128) rows) cannot be inverted for cuBLASLt "
                   "by codegen yet");
    LaunchDesc d;
    d.kind = LaunchKind::Inverse;
    d.suffix = "inverse";
    d.description = "1 / %" + v->name() + " for cuBLASLt";
    // The scale as a [rows, groups] grid: [] -> 1x1, [R] -> Rx1, [R, G] -> RxG.
    d.rows = t.rank() == 2   ? Lowerer::rowsOf(t)
             : t.rank() == 1 ? Lowerer::rowsOf(TensorType({t.dim(0), 1}, t.dtype()))
                             : AffineM{0, 1};
    d.cols = t.rank() == 2 ? Lowerer::colsOf(t) : 1;
    d.invIn = lw.bufferOf(v);
    d.invOutBuf = *inv;
    d.invLayout = layout;
    lw.addLaunch(d, kernelIndex);
    lw.markInverseWritten(v, layout);
  }
  *slot = *inv;
  return Status::ok();
}

namespace {

// The plan's answers to the GEMMs cuBLASLt refuses at some M (GemmStep's comment).
Status addCublasLtFallbacks(Lowerer &lw, GemmStep &g, const Op *main, int kernelIndex) {
  if (g.scaleMode == GemmScaleMode::Block128 && g.m.perM != 0) {
    // Run with M rounded up to 4: A's pad rows are read, D's pad rows written.
    if (lw.desc(g.a).role == BufferRole::Temp) {
      lw.desc(g.a).rowsAlignM = 4;
    } else {
      const BufferDesc &a = lw.desc(g.a);
      g.aPadded = lw.newTemp(a.name + ".rows4", a.type, a.ld);
      lw.desc(g.aPadded).rowsAlignM = 4;
    }
    if (lw.desc(g.d).role == BufferRole::Temp) {
      lw.desc(g.d).rowsAlignM = 4;
    } else {
      const BufferDesc &d = lw.desc(g.d);
      g.dPadded = lw.newTemp(d.name + ".rows4", d.type, d.ld);
      lw.desc(g.dPadded).rowsAlignM = 4;
    }
  }
  if (g.scaleMode == GemmScaleMode::OuterVector && g.bias >= 0) {
    // Into the result cuBLASLt writes: D, or epiD where launches compute the epilogue from it.
    const int dst = g.epiD >= 0 ? g.epiD : g.d;
    const BufferDesc &d = lw.desc(dst);
    const Value *bias = biasOf(main);
    LaunchDesc l;
    l.suffix = "bias_fallback";
    l.description = "the bias of " + std::string(main->name()) + " %" + main->result()->name() +
                    ", added in place where cuBLASLt has no outer-vector algorithm with a bias";
    l.rows = Lowerer::rowsOf(d.type);
    l.cols = Lowerer::colsOf(d.type);
    l.inputs.push_back({dst, d.type.dtype(), lw.ldOf(dst), Bcast::Full});
    l.inputs.push_back({g.bias, bias->type().dtype(), 0, Bcast::Col});
    l.result = "fp8c::roundTo<" + dtName(d.type.dtype()) + ">(fp8c::op::add(x[0], x[1]))";
    l.valueDt = d.type.dtype();
    l.storeBuf = dst;
    l.storeDt = d.type.dtype();
    l.storeLd = lw.ldOf(dst);
    g.biasFallback.push_back(lw.renderNamed(l, kernelIndex));
  }
  return Status::ok();
}

} // namespace

GemmAnalysis analyzeGemm(const Op &kernel, std::string_view arch) {
  GemmAnalysis a;
  a.backend = kernelGemmBackendOf(kernel);
  // Forced onto the generated GEMM; allowed to run on it (the fusion plan's gemm_backend, and a
  // target that has it).
  const bool generatedOnly = a.backend == GemmBackend::Generated;
  const bool generatedCapable = a.backend != GemmBackend::CublasLt && arch == "sm_90a";
  // The fusion plan's roles (verified: the GEMMs are main, prologue ops are not computed from
  // them, epilogue ops are).
  std::vector<Op *> epi;
  for (const auto &op : kernel.body()->ops()) {
    if (op->info().has(kTerminator))
      continue;
    switch (opRoleOf(*op)) {
    case OpRole::Main:
      a.mains.push_back(op.get());
      break;
    case OpRole::Prologue:
      a.pre.push_back(op.get());
      break;
    case OpRole::Epilogue:
      epi.push_back(op.get());
      break;
    case OpRole::Body:
      break;
    }
  }
  std::set<const Op *> mains(a.mains.begin(), a.mains.end());
  for (Op *m : a.mains)
    a.written.push_back(m->result());
  if (a.mains.size() == 2) {
    analyzeDualGemm(kernel, generatedCapable, std::move(epi), a);
    return a;
  }
  if (a.mains.size() != 1) {
    a.post = epi;
    return a;
  }
  Op *main = a.mains[0];
  const bool fp8 = main->kind() == OpKind::ScaledMatmul;
  const bool tensorScales = scaleModeOf(main) == GemmScaleMode::Tensor;
  // Row scales (a rowwise recipe): cuBLASLt's outer-vector mode allows no epilogue but bias;
  // the generated GEMM applies the activation and takes the amax (per row or tensor) too.
  const bool rowEpilogue =
      fp8 && generatedCapable && scaleModeOf(main) == GemmScaleMode::OuterVector;
  const bool bias = biasOf(main) != nullptr;
  if (!biasFusable(main)) { // the bias is added by a launch: nothing after it is fused
    a.post = epi;
    return a;
  }
  a.epilogue = bias ? GemmEpilogue::Bias : GemmEpilogue::Default;
  // 128-block scales: the activation, 1x128 amaxes, scales and cast of the result in the
  // generated GEMM's epilogue (LowerGemmBlockCast.cpp); nothing else joins cuBLASLt's.
  if (fp8 && generatedCapable && scaleModeOf(main) == GemmScaleMode::Block128) {
    analyzeBlockCast(kernel, a);
    const std::set<const Op *> blockFused(a.fused.begin(), a.fused.end());
    for (Op *op : epi)
      if (!blockFused.count(op))
        a.post.push_back(op);
    return a;
  }
  std::set<const Op *> fused;
  const Value *tail = main->result();
  // FP8 D with a scale known before the GEMM, and with it AMAX_D (cuBLASLt computes amax(D)
  // only for FP8 outputs; otherwise the amax is the epilogue launch's): the cast and amax
  // of `v`, or nulls when its users are not exactly those.
  auto castDOf = [&](const Value *v) -> std::pair<Op *, Op *> {
    return fp8 ? knownScaleCastOf(v, mains) : std::pair<Op *, Op *>{nullptr, nullptr};
  };
  // The generated GEMM writes its extra outputs through TMA in whole 16-byte units of N.
  const bool extraOk = !generatedOnly || Lowerer::colsOf(main->result()->type()) % 16 == 0;
  // Activation on the GEMM result (not with rowwise / block scales). A tanh GELU whose input is
  // also an output (a pre-activation the training step saves) is fused with that input written
  // as an aux matrix (cuBLASLt's GELU_AUX), when that writes no more than the launch it
  // replaces would: an unquantized GEMM (the launch writes the bf16 GELU), or an FP8 GEMM whose
  // GELU is cast to FP8 in the epilogue too.
  if ((tensorScales || rowEpilogue) && !tail->users().empty()) {
    Op *u = nullptr; // the one user that is not the yield
    int nonYield = 0;
    for (Op *user : tail->users())
      if (user->kind() != OpKind::Yield && ++nonYield == 1)
        u = user;
    if (nonYield != 1)
      u = nullptr;
    bool gelu = u && u->kind() == OpKind::Gelu && u->strAttr("approximate") == "tanh";
    bool fuse = u && tail->numUses() == 1 && !isYielded(tail) && (gelu || u->kind() == OpKind::Relu);
    // FP8: the planner fuses it where the generated GEMM may run the kernel (FusionPlanner's
    // auxGelu).
    // With current scaling (no cast of the GELU in the kernel, its tensor amax is): the
    // generated GEMM writes the bf16 GELU and its amax beside the pre-activation.
    if (!fuse && gelu && extraOk && tensorScales && tail->numUses() == 2 && isYielded(tail) &&
        (!fp8 || castDOf(u->result()).first ||
         (generatedCapable && Lowerer::colsOf(tail->type()) % 16 == 0 &&
          tensorAmaxIn(u->result(), kernel)))) {
      a.aux = tail;
      fuse = true;
    }
    // gelu_saved=e4m3: the tail's users are its tanh GELU and its unscaled e4m3 copy, which
    // the training step saves (FusionPlanner's auxGelu): the generated GEMM writes the copy as
    // an FP8 aux matrix, and only it (cuBLASLt's GELU_AUX is bf16), so the step is the
    // generated GEMM's.
    if (!fuse && fp8 && generatedCapable && extraOk && tensorScales && tail->numUses() == 2 &&
        !isYielded(tail)) {
      Op *g0 = tail->users()[0], *g1 = tail->users()[1];
      Op *copy = g0->kind() == OpKind::Convert ? g0 : g1, *act = copy == g0 ? g1 : g0;
      if (act->kind() == OpKind::Gelu && act->strAttr("approximate") == "tanh" &&
          copy->kind() == OpKind::Convert && copy->parentOp() == &kernel &&
          act->parentOp() == &kernel && copy->result()->type().dtype() == DType::F8E4M3FN &&
          isYielded(copy->result()) && castDOf(act->result()).first) {
        u = act;
        gelu = true;
        a.aux = copy->result();
        a.auxCopy = copy;
        fused.insert(copy);
        fuse = true;
      }
    }
    if (fuse) {
      fused.insert(u);
      a.fused.push_back(u);
      a.epilogue = gelu ? (bias ? GemmEpilogue::GeluBias : GemmEpilogue::Gelu)
                        : (bias ? GemmEpilogue::ReluBias : GemmEpilogue::Relu);
      tail = u->result();
    }
  }
  // A residual add, z = tail + r with r a bf16 [M, N] tensor computed before the GEMM: the
  // generated GEMM reads r in its epilogue and writes z (its amax and FP8 cast follow below), so
  // no launch reads the GEMM result back (a transformer's output projection plus the residual
  // stream). r's pitch must be whole 16-byte units (N % 8 == 0); otherwise the add is the
  // epilogue launch's.
  if (fp8 && (tensorScales || rowEpilogue) && generatedCapable && !a.aux &&
      tail->numUses() == 1 && !isYielded(tail) && tail->type().dtype() == DType::BF16 &&
      tail->type().rank() == 2 && Lowerer::colsOf(tail->type()) % 8 == 0) {
    Op *add = tail->users().front();
    const Value *r = add->kind() == OpKind::Add
                         ? (add->operand(0) == tail ? add->operand(1) : add->operand(0))
                         : nullptr;
    if (r && r != tail && add->parentOp() == &kernel && r->type() == tail->type() &&
        add->result()->type() == tail->type() && !dependsOnAny(r, mains)) {
      a.residual = add;
      a.epiIn = r;
      a.epiResult = tail;
      a.epiFirst = add;
      fused.insert(add);
      a.fused.push_back(add);
      tail = add->result();
    }
  }
  // The backward's tanh gelu_grad of the result with the GELU's saved input read in the
  // generated GEMM's epilogue (LowerGemmGeluGrad.cpp).
  if (fp8 && tensorScales && generatedCapable && !a.residual && tail->numUses() == 1 &&
      !isYielded(tail) && main->result()->type().rank() == 2 &&
      Lowerer::colsOf(main->result()->type()) % 16 == 0)
    tail = analyzeGeluGradEpilogue(kernel, mains, tail, a, fused);
  if (fp8 && tensorScales && !a.geluGrad) {
    auto [castD, amaxD] = castDOf(tail);
    if (castD) {
      if (amaxD) {
        a.amaxD = amaxD;
        fused.insert(amaxD);
        a.fused.push_back(amaxD);
      }
      a.castD = castD;
      fused.insert(castD);
      a.fused.push_back(castD);
      tail = castD->result();
      // Its transpose in the kernel (the weight-gradient GEMM's operand): a third output.
      for (Op *u : tail->users())
        if (u->kind() == OpKind::Transpose && extraOk && !a.residual && !a.transD &&
            u->parentOp() == &kernel) {
          a.transD = u;
          fused.insert(u);
          a.fused.push_back(u);
        }
    }
  }
  const bool auxAmax = fp8 && a.aux && !a.castD;
  if ((rowEpilogue || a.residual || auxAmax) && !a.amaxD) {
    // The amax of D (per row, or of the tensor), D not cast: the rowwise cast that follows
    // takes its scale from it, or (a residual add, or a GELU beside its pre-activation, with
    // tensor scales) the tensorwise cast of the next GEMM's input.
    for (Op *u : tail->users()) {
      const std::string gran = u->kind() == OpKind::Amax ? u->strAttr("granularity") : "";
      if ((gran == "row" || gran == "tensor") && !a.amaxD && u->operand(0) == tail &&
          u->parentOp() == &kernel) {
        a.amaxD = u;
        a.amaxRows = gran == "row";
        fused.insert(u);
        a.fused.push_back(u);
      }
    }
  }
  // With row scales, cuBLASLt (outer-vector mode) takes no activation or amax: those make the
  // step the generated GEMM's, unless they follow a residual add, which the fallback launches
  // compute from cuBLASLt's result with everything after it.
  // A bf16 GELU beside its pre-activation with the GELU's amax: cuBLASLt takes no amax of a
  // bf16 D.
  a.needsGenerated = (rowEpilogue && !a.fused.empty() && a.fused.front() != a.epiFirst) ||
                     a.auxCopy != nullptr || (auxAmax && a.amaxD);
  a.written[0] = tail;
  for (Op *op : epi)
    if (!fused.count(op))
      a.post.push_back(op);
  return a;
}

// The transpose feeding operand `i` of an unquantized GEMM when cuBLASLt reads its input in
// place (the planner's absorbOperandTransposes): the transpose's only use is the GEMM and its
// input has a static row length. Null otherwise.
const Op *inPlaceTranspose(const Op *main, int i) {
  if (main->kind() != OpKind::Linear && main->kind() != OpKind::Matmul)
    return nullptr;
  const Value *v = main->operand(i);
  const Op *t = v->definingOp();
  if (!t || t->kind() != OpKind::Transpose || v->numUses() != 1)
    return nullptr;
  const TensorType &src = t->operand(0)->type();
  return src.rank() == 2 && !src.isDynamicDim(1) ? t : nullptr;
}

Status lowerGemmKernel(Lowerer &lw, const Op &kernel, int kernelIndex) {
  GemmAnalysis a = analyzeGemm(kernel, lw.options().arch);
  if (a.backend == GemmBackend::Generated && lw.options().arch != "sm_90a")
    return Error("the kernel's gemm_backend is generated, and the generated GEMM (wgmma) needs "
                 "sm_90a; the target is " + lw.options().arch);
  if (a.mains.empty() || a.mains.size() > 2)
    return Error("a gemm kernel must hold one GEMM, or two sharing A (dual GEMM); this one has " +
                 std::to_string(a.mains.size()));
  for (const Op *main : a.mains)
    for (int i = 0; i < 2; ++i)
      if (const Op *t = inPlaceTranspose(main, i))
        a.pre.erase(std::remove(a.pre.begin(), a.pre.end(), t), a.pre.end());
  if (!a.pre.empty())
    if (Status s = buildLaunches(lw, kernel, kernelIndex, a.pre, "prologue"); !s)
      return s;
  if (a.swiglu)
    return lowerDualGemm(lw, kernel, kernelIndex, a);
  for (size_t i = 0; i < a.mains.size(); ++i) {
    const Op *main = a.mains[i];
    GemmStep g;
    g.name =
        "k" + std::to_string(kernelIndex) + "_gemm" + (a.mains.size() > 1 ? std::to_string(i) : "");
    const Value *A = main->operand(0), *B = main->operand(1);
    const Op *tA = inPlaceTranspose(main, 0), *tB = inPlaceTranspose(main, 1);
    g.a = lw.gemmOperandBuffer(tA ? tA->operand(0) : A);
    g.nPadded = roundedN(lw, a, main, tB != nullptr);
    g.b = g.nPadded ? lw.rowPaddedCopy(B, g.nPadded)
                    : lw.gemmOperandBuffer(tB ? tB->operand(0) : B);
    g.m = Lowerer::rowsOf(A->type());
    g.k = Lowerer::colsOf(A->type());
    if (g.k == kDynamic)
      return Error("a GEMM whose K is the dynamic dim (M) is not supported by codegen yet");
    g.aKMajor = tA == nullptr;
    g.bKMajor = (main->kind() != OpKind::Matmul) != (tB != nullptr);
    g.kPadsZero = !isFloat8(A->type().dtype()) && g.k % 8 != 0 && g.aKMajor && g.bKMajor &&
                  lw.isPaddedCopy(g.a) && lw.isPaddedCopy(g.b);
    g.backend = main->kind() == OpKind::ScaledMatmul ? a.backend : GemmBackend::CublasLt;
    g.n = main->kind() != OpKind::Matmul ? B->type().dim(0) : Lowerer::colsOf(B->type());
    g.scaleMode = scaleModeOf(main);
    // cuBLASLt rejects FAST_ACCUM with the 128-block scale modes (they promote per K block).
    g.fastAccum = main->kind() == OpKind::ScaledMatmul && main->boolAttr("fast_accum") &&
                  g.scaleMode != GemmScaleMode::Block128;
    std::string ops = std::string(main->name()) + " %" + main->result()->name();
    for (const Op *t : {tA, tB})
      if (t)
        ops += ", " + std::string(t->name()) + " %" + t->result()->name() + " (read in place)";
    if (main->kind() == OpKind::ScaledMatmul) {
      const bool block = g.scaleMode == GemmScaleMode::Block128;
      InvLayout la = block ? InvLayout::KBlockMajor : InvLayout::RowMajor;
      InvLayout lb = block ? InvLayout::RowMajorPad4 : InvLayout::RowMajor;
      for (auto [v, layout, slot] : {std::tuple{main->operand(2), la, &g.invScaleA},
                                     std::tuple{main->operand(3), lb, &g.invScaleB}})
        if (Status st = inverseScaleInto(lw, v, layout, kernelIndex, slot); !st)
          return st;
      if (g.nPadded && g.scaleMode == GemmScaleMode::OuterVector) {
        // cuBLASLt reads nPadded scales of B: those of the zero pad rows are zeros (the launch
        // that inverts B's scales writes the first N).
        BufferDesc &sb = lw.desc(g.invScaleB);
        sb.type = TensorType({g.nPadded}, DType::F32);
        sb.zeroInit = true;
      }
    }
    int biasLaunchIn = -1; // the f32 GEMM result a launch adds an unfusable bias to
    if (const Value *bias = biasOf(main)) {
      if (biasFusable(main)) {
        g.bias = g.nPadded ? lw.rowPaddedCopy(bias, g.nPadded) : lw.bufferOf(bias);
      } else {
        const TensorType &t = main->result()->type();
        const int64_t n = Lowerer::colsOf(t);
        biasLaunchIn = lw.newTemp(main->result()->name() + ".acc", t.withDType(DType::F32),
                                  n % 4 ? (n + 3) / 4 * 4 : 0);
      }
    }
    g.epilogue = a.mains.size() == 1 ? a.epilogue
                                     : (g.bias >= 0 ? GemmEpilogue::Bias : GemmEpilogue::Default);
    for (const Op *f : a.fused) {
      ops += ", " + std::string(f->name()) + " %" + f->result()->name();
      if (a.aux && f->operand(0) == a.aux)
        ops += " (its input %" + a.aux->name() + " written as the aux output)";
      if (f == a.geluGrad)
        ops += " (its saved input %" + a.epiIn->name() + " read in the epilogue)";
      if (f == a.residual)
        ops += " (the residual %" + a.epiIn->name() + " read in the epilogue)";
    }
    if (a.needsGenerated) // only the generated GEMM computes this epilogue
      g.backend = GemmBackend::Generated;
    if (a.epiIn && i == 0) {
      g.epiIn = lw.bufferOf(a.epiIn);
      g.epiInOp = a.residual ? EpiInOp::Residual : EpiInOp::GeluGrad;
      if (g.backend != GemmBackend::Generated) {
        // Auto's other choice: cuBLASLt writes the result (after its bias and activation) in
        // bf16 and launches compute the rest of the epilogue from it (the unfused plan's
        // launches: for gelu_grad one cast-transpose), measured against the fused generated
        // GEMM by the runtime. Forced onto the generated GEMM, the result needs no buffer.
        g.epiD = lw.bufferOf(a.epiResult);
        const auto first = std::find(a.fused.begin(), a.fused.end(), a.epiFirst);
        const size_t mark = lw.stepCount();
        if (Status s = buildLaunches(lw, kernel, kernelIndex, {first, a.fused.end()},
                                     a.residual ? "residual_fallback" : "grad_fallback");
            !s)
          return s;
        g.epiFallback = lw.takeLaunchesSince(mark);
      }
    }
    if (a.blockCast && i == 0)
      if (Status st = lowerBlockCast(lw, kernel, kernelIndex, a, g); !st)
        return st;
    if (a.colSum && i == 0) {
      g.colSum = lw.bufferOf(a.colSum->result());
      // f32 partial sums per 64 rows: ceil(M/64) x N (BufferDesc::mDivisor).
      const TensorType &t = main->result()->type();
      const bool dynamic = t.isDynamicDim(0);
      g.colPartials = lw.newTemp(a.colSum->result()->name() + ".partials",
                                 TensorType({dynamic ? kDynamic : (t.dim(0) + 63) / 64, g.n},
                                            DType::F32));
      if (dynamic)
        lw.desc(g.colPartials).mDivisor = 64;
    }
    if (a.amaxD && i == 0) {
      g.amaxRows = a.amaxRows;
      g.amaxD = lw.bufferOf(a.amaxD->result());
      lw.desc(g.amaxD).zeroInit = true;
      lw.setAmaxRound(g.amaxD, a.amaxD->operand(0)->type().dtype());
    }
    if (a.castD && i == 0)
      g.scaleD = lw.bufferOf(a.castD->operand(1));
    if (a.auxCopy && i == 0) {
      g.aux = lw.bufferOf(a.aux); // the generated GEMM's only (needsGenerated)
      ops += ", " + std::string(a.auxCopy->name()) + " %" + a.aux->name() +
             " (the e4m3 copy of its pre-activation, written as the aux output)";
    } else if (a.aux && i == 0) {
      g.aux = lw.bufferOf(a.aux);
      // Where cuBLASLt has no GELU_AUX algorithm: the epilogue's ops as launches reading aux
      // (with the transpose: one cast-transpose).
      const size_t mark = lw.stepCount();
      if (Status s = buildLaunches(lw, kernel, kernelIndex, a.fused, "aux_fallback"); !s)
        return s;
      g.auxFallback = lw.takeLaunchesSince(mark);
    }
    if (a.transD && i == 0)
      g.transD = lw.bufferOf(a.transD->result()); // pad columns written zero by either path
    if (a.transD && i == 0 && !a.geluGrad) { // (epiFallback writes D^T itself)
      // After cuBLASLt (or a generated GEMM that cannot take it at this M): D transposed by
      // a launch.
      const size_t mark = lw.stepCount();
      if (Status s = buildLaunches(lw, kernel, kernelIndex, {a.transD}, "transpose_fallback"); !s)
        return s;
      g.transFallback = lw.takeLaunchesSince(mark);
    }
    g.d = biasLaunchIn >= 0 ? biasLaunchIn : lw.bufferOf(a.written[i]);
    const BufferDesc &dd = lw.desc(g.d);
    if (dd.ld > Lowerer::colsOf(dd.type) && isFloat8(dd.type.dtype()))
      lw.desc(g.d).zeroInit = true; // the pad columns of an FP8 operand-to-be must be zero
    g.description = ops;
    if (Status s = addCublasLtFallbacks(lw, g, main, kernelIndex); !s)
      return s;
    lw.addGemm(std::move(g));
    if (biasLaunchIn >= 0) {
      // y = round(acc + bias): the bias cuBLASLt cannot take, added with the IR's one rounding.
      const Value *y = main->result(), *bias = biasOf(main);
      LaunchDesc d;
      d.suffix = "bias";
      d.description = "the bias of " + std::string(main->name()) + " %" + y->name() + " (a " +
                      std::string(dtypeName(bias->type().dtype())) +
                      " bias cuBLASLt does not take with this output type)";
      d.rows = Lowerer::rowsOf(y->type());
      d.cols = Lowerer::colsOf(y->type());
      d.inputs.push_back({biasLaunchIn, DType::F32, lw.ldOf(biasLaunchIn), Bcast::Full});
      d.inputs.push_back({lw.bufferOf(bias), bias->type().dtype(), 0, Bcast::Col});
      d.result = "fp8c::roundTo<" + dtName(y->type().dtype()) + ">(fp8c::op::add(x[0], x[1]))";
      d.valueDt = y->type().dtype();
      d.storeBuf = lw.bufferOf(y);
      d.storeDt = y->type().dtype();
      d.storeLd = lw.ldOf(d.storeBuf);
      lw.addLaunch(d, kernelIndex);
    }
  }
  if (!a.post.empty())
    if (Status s = buildLaunches(lw, kernel, kernelIndex, a.post, "epilogue"); !s)
      return s;
  return Status::ok();
}

} // namespace fp8c::codegen
