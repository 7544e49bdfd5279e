// GemmSm90Step (GemmSm90Step.h): mapping a plan's GEMM step onto the generated Hopper GEMM;
// what the generated GEMM can take is GemmCapabilities' (passes/GemmCapabilities.h).
#include "runtime/gpu/GemmSm90Step.h"

#include "passes/GemmCapabilities.h"

#include <algorithm>

namespace fp8c {

Expected<GemmSm90Spec> gemmSm90KernelOf(const GemmStep &g, const LaunchPlan &plan) {
  auto fail = [&](const std::string &why) {
    return Error("GEMM '" + g.name + "' (" + g.description +
                 ") cannot run on the generated sm90 GEMM: " + why);
  };
  auto valid = [&](int i) { return i >= 0 && static_cast<size_t>(i) < plan.buffers.size(); };
  if (!valid(g.a) || !valid(g.b) || !valid(g.d))
    return fail("internal error: an operand buffer index is out of range");
  GemmSm90Spec k;
  k.aType = plan.buffers[g.a].type.dtype();
  k.bType = plan.buffers[g.b].type.dtype();
  k.dType = plan.buffers[g.d].type.dtype();
  if (std::string why = GemmCapabilities::generatedOperands(k.aType, k.bType); !why.empty())
    return fail(why);
  if (g.aux >= 0 || g.transD >= 0) {
    if ((g.aux >= 0 && !valid(g.aux)) || (g.transD >= 0 && !valid(g.transD)))
      return fail("internal error: the aux or D^T buffer index is out of range");
    const DType auxType = g.aux >= 0 ? plan.buffers[g.aux].type.dtype() : DType::BF16;
    if (std::string why = GemmCapabilities::generatedExtraOutputs(
            k.dType, g.aux >= 0 ? std::optional<DType>(auxType) : std::nullopt, g.transD >= 0);
        !why.empty())
      return fail(why);
    k.auxOut = g.aux >= 0;
    k.auxFp8 = k.auxOut && auxType == DType::F8E4M3FN;
    k.transD = g.transD >= 0;
  }
  const bool residual = g.epiIn >= 0 && g.epiInOp == EpiInOp::Residual;
  if (g.epiIn >= 0) {
    if (!valid(g.epiIn))
      return fail("internal error: the epilogue input's buffer index is out of range");
    const DType in = plan.buffers[g.epiIn].type.dtype();
    if (std::string why = GemmCapabilities::generatedEpilogueInput(residual, in); !why.empty())
      return fail(why);
    // gelu_grad over the GELU input's e4m3 copy (gelu_saved=e4m3) runs on the offloaded
    // epilogue's warps.
    const bool fp8Saved = !residual && in == DType::F8E4M3FN;
    k.residualIn = residual;
    k.geluGradIn = !residual;
    k.geluGradInFp8 = fp8Saved;
    k.epilogueWarps = fp8Saved;
  }
  if (k.geluGradIn || g.colSum >= 0) {
    if (std::string why = GemmCapabilities::generatedGeluGradOrColSums(k.dType); !why.empty())
      return fail(why);
    if ((g.colSum >= 0 && !valid(g.colSum)) || (g.colSum >= 0 && !valid(g.colPartials)))
      return fail("internal error: the column-sum buffer index is out of range");
    if (g.colSum >= 0)
      k.colSumType = plan.buffers[g.colSum].type.dtype();
  }
  if (g.b2 >= 0) {
    if (!valid(g.b2) || !valid(g.invScaleB2))
      return fail("internal error: the dual GEMM's up weight or scale buffer index is out of range");
    const BufferDesc &b = plan.buffers[g.b], &b2 = plan.buffers[g.b2];
    if (b2.type != b.type || b2.ld != b.ld)
      return fail("its gate and up weights differ in type or pitch");
    k.swiglu = true;
  }
  if (std::string why = GemmCapabilities::generatedLayout(g.aKMajor, g.bKMajor); !why.empty())
    return fail(why);
  if (!valid(g.invScaleA) || !valid(g.invScaleB))
    return fail("an FP8 GEMM needs both inverse-scale buffers");
  k.scaleMode = g.scaleMode;
  k.fastAccum = g.fastAccum;
  if (g.bias >= 0) {
    if (!valid(g.bias))
      return fail("internal error: the bias buffer index is out of range");
    k.biasType = plan.buffers[g.bias].type.dtype();
  }
  switch (g.epilogue) {
  case GemmEpilogue::Gelu:
  case GemmEpilogue::GeluBias:
    k.activation = Activation::GeluTanh; // cuBLASLt's GELU epilogue is the tanh form
    break;
  case GemmEpilogue::Relu:
  case GemmEpilogue::ReluBias:
    k.activation = Activation::Relu;
    break;
  default:
    break;
  }
  const bool epilogueBias = g.epilogue == GemmEpilogue::Bias ||
                            g.epilogue == GemmEpilogue::GeluBias ||
                            g.epilogue == GemmEpilogue::ReluBias;
  if (epilogueBias != (g.bias >= 0))
    return fail("internal error: the epilogue and the bias buffer disagree");
  k.amaxD = g.amaxD >= 0;
  k.amaxRows = k.amaxD && g.amaxRows;
  if (g.blockCast) {
    if (std::string why = GemmCapabilities::generatedBlockCast(k.dType); !why.empty())
      return fail(why);
    if ((g.blockScaleOut >= 0 && !valid(g.blockScaleOut)) ||
        (g.blockInvOut >= 0 && !valid(g.blockInvOut)))
      return fail("internal error: a block-scale buffer index is out of range");
    if (k.activation != Activation::None)
      return fail("internal error: the block cast's activation is blockAct, not the epilogue's");
    k.blockCast = true;
    k.activation = g.blockAct;
  } else if (isFloat8(k.dType) && g.scaleD < 0) {
    return fail("an FP8 D needs a scaleD buffer");
  }
  if (!g.side.empty()) {
    const GeneratedLaunch &l = g.side.front();
    if (g.side.size() != 1 || l.sideSpec.empty())
      return fail("internal error: a GEMM step's side launch is one launch with a side Spec");
    k.sideSpec = l.sideSpec;
    k.sideBuffers = static_cast<int>(l.buffers.size());
  }
  // The kernel's own dtype checks (the tile shape is chosen per M later; 128 x 128 without
  // overlap is one that every scale mode and accumulation takes).
  GemmSm90Spec probe = k;
  probe.bm = 128;
  probe.bn = 128;
  probe.stages = k.extraOutputs() || !k.sideSpec.empty() ? 4 : 6;
  probe.overlap = false;
  probe.epilogueWarps = k.geluGradInFp8; // (every config of it has the offloaded epilogue)
  if (Status st = checkGemmSm90Spec(probe); !st)
    return fail(st.message());
  return k;
}

std::optional<GemmStep> unfusedGemmOf(const GemmStep &g) {
  if (g.epiD < 0 || g.b2 >= 0 || g.epiFallback.empty())
    return std::nullopt;
  GemmStep u = g;
  u.name = g.name + "_unfused";
  u.description = g.description + " (the GEMM into its bf16 result; launches after it)";
  u.d = g.epiD;
  u.epiD = -1;
  u.amaxD = u.scaleD = u.aux = u.transD = u.epiIn = u.colSum = u.colPartials = -1;
  u.amaxRows = false;
  u.blockCast = false;
  u.blockAct = Activation::None;
  u.blockScaleOut = u.blockInvOut = -1;
  u.pushHistory = u.pushCounter = -1; // (a GEMM with a push has no unfused form)
  u.pushFallback.clear();
  u.backend = GemmBackend::Generated;
  u.biasFallback.clear();
  u.auxFallback.clear();
  u.transFallback.clear();
  u.epiFallback.clear();
  return u;
}

GemmSm90Problem gemmSm90ProblemOf(const GemmStep &g, const LaunchPlan &plan, int64_t m) {
  GemmSm90Problem p;
  p.m = g.m.eval(m);
  p.n = g.n;
  p.k = g.k;
  p.lda = plan.buffers[g.a].pitch(m);
  p.ldb = plan.buffers[g.b].pitch(m);
  p.ldd = plan.buffers[g.d].pitch(m);
  if (g.aux >= 0)
    p.ldAux = plan.buffers[g.aux].pitch(m);
  if (g.transD >= 0)
    p.ldDT = plan.buffers[g.transD].pitch(m);
  if (g.epiIn >= 0)
    p.ldIn = plan.buffers[g.epiIn].pitch(m);
  if (g.scaleMode == GemmScaleMode::Block128) {
    p.ldsa = plan.buffers[g.invScaleA].pitch(m); // roundup(M, 4): BufferDesc::ldAlignM
    p.ldsb = plan.buffers[g.invScaleB].pitch(m); // roundup(ceil(K/128), 4)
  }
  if (g.blockCast) {
    // Unwritten grids keep the smallest valid pitches (the kernel skips null pointers).
    p.ldBlockScale = g.blockScaleOut >= 0 ? plan.buffers[g.blockScaleOut].pitch(m)
                                          : (p.n + 127) / 128;
    p.ldBlockInv = g.blockInvOut >= 0 ? plan.buffers[g.blockInvOut].pitch(m) : p.m;
    p.castMargin = static_cast<int>(g.blockMargin);
    p.castPow2 = g.blockPow2;
  }
  return p;
}

GemmSm90Pointers gemmSm90PointersOf(const GemmStep &g, std::span<const CUdeviceptr> buffers,
                                    int64_t m) {
  auto addr = [&](int i) -> void * {
    return i < 0 ? nullptr : reinterpret_cast<void *>(buffers[static_cast<size_t>(i)]);
  };
  GemmSm90Pointers p;
  p.a = addr(g.a);
  p.b = addr(g.b);
  p.d = addr(g.d);
  p.invScaleA = static_cast<const float *>(addr(g.invScaleA));
  p.invScaleB = static_cast<const float *>(addr(g.invScaleB));
  p.b2 = addr(g.b2);
  p.invScaleB2 = static_cast<const float *>(addr(g.invScaleB2));
  p.bias = addr(g.bias);
  p.amaxD = static_cast<float *>(addr(g.amaxD));
  p.scaleD = static_cast<const float *>(addr(g.scaleD));
  p.aux = addr(g.aux);
  p.dT = addr(g.transD);
  p.epiIn = addr(g.epiIn);
  p.colSums = addr(g.colSum);
  p.colPartials = static_cast<float *>(addr(g.colPartials));
  p.blockScale = static_cast<float *>(addr(g.blockScaleOut));
  p.blockInv = static_cast<float *>(addr(g.blockInvOut));
  if (g.pushHistory >= 0) {
    p.pushHistory = static_cast<float *>(addr(g.pushHistory));
    p.pushCounter = static_cast<uint32_t *>(addr(g.pushCounter));
    p.pushLen = g.pushLen;
    p.pushRound = g.pushRound;
    p.pushResetAmax = g.pushResetAmax;
  }
  if (!g.side.empty()) { // (gemmSm90KernelOf bounds its buffer count)
    const std::vector<int> &sb = g.side.front().buffers;
    for (size_t i = 0; i < sb.size() && i < p.side.size(); ++i)
      p.side[i] = addr(sb[i]);
    p.sideM = m;
  }
  return p;
}

Expected<std::vector<GemmSm90Spec>> gemmSm90KernelsFor(const GemmStep &g,
                                                         const LaunchPlan &plan, int64_t maxM,
                                                         const Device &dev) {
  Expected<GemmSm90Spec> base = gemmSm90KernelOf(g, plan);
  if (!base)
    return Error(base.error());
  // chooseGemmSm90Tiles is monotone in M: 64-row tiles up to M = 64, then 128 x 128 while the
  // wide tiles would leave SMs idle (or the kernel promotes), then 128 x 256 (or, for K <= 4096,
  // 128 x 128 ping-pong: K is fixed per step). Sampling M = 1, 65 and the largest M (of the
  // step: g.m may be a fixed size) meets every choice.
  std::vector<int64_t> ms;
  if (g.m.perM == 0) {
    ms.push_back(g.m.fixed);
  } else {
    const int64_t top = std::max<int64_t>(g.m.eval(std::max<int64_t>(maxM, 1)), 1);
    for (int64_t rows : {int64_t(1), int64_t(65), top})
      if (rows <= top)
        ms.push_back(rows);
  }
  std::vector<GemmSm90Spec> out;
  for (int64_t rows : ms) {
    if (rows < 1)
      continue;
    // Pitches at the M whose step has `rows` rows (g.m = perM * M + fixed).
    const int64_t m = g.m.perM == 0 ? std::max<int64_t>(maxM, 1) : (rows - g.m.fixed) / g.m.perM;
    GemmSm90Problem prob = gemmSm90ProblemOf(g, plan, std::max<int64_t>(m, 1));
    prob.m = rows;
    if (g.scaleMode == GemmScaleMode::Block128)
      prob.ldsa = std::max(prob.ldsa, rows);
    if (g.blockCast)
      prob.ldBlockInv = std::max(prob.ldBlockInv, rows);
    GemmSm90Spec k = chooseGemmSm90Tiles(*base, prob, dev);
    if (Status st = checkGemmSm90(k, prob); !st)
      return Error("GEMM '" + g.name + "' (" + g.description +
                   ") cannot run on the generated sm90 GEMM: " + st.message());
    if (std::none_of(out.begin(), out.end(),
                     [&](const GemmSm90Spec &o) { return o.name() == k.name(); }))
      out.push_back(k);
  }
  return out;
}

Device gemmSm90DefaultDevice() {
  Device d;
  d.name = "sm_90a (132 SMs)";
  d.ccMajor = 9;
  d.ccMinor = 0;
  d.arch = "sm_90a";
  d.smCount = 132;
  return d;
}

Expected<GemmSm90Spec> gemmSm90HeuristicSpec(const GemmStep &g, const LaunchPlan &plan,
                                             int64_t m, const Device &dev) {
  Expected<GemmSm90Spec> base = gemmSm90KernelOf(g, plan);
  if (!base)
    return Error(base.error());
  const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan, m);
  GemmSm90Spec k = launchedGemmSm90Kernel(chooseGemmSm90Tiles(*base, prob, dev), prob);
  if (Status st = checkGemmSm90(k, prob); !st)
    return Error("GEMM '" + g.name + "' (" + g.description +
                 ") cannot run on the generated sm90 GEMM: " + st.message());
  return k;
}

} // namespace fp8c
