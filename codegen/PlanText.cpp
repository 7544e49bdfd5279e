// planToCudaText: the whole LaunchPlan as one CUDA text for `fp8c --emit=cuda`: a header
// listing the buffers, then every step in order (load-time steps first), each generated launch
// with its grid rule and complete source, each cuBLASLt GEMM as a comment describing the call.
#include "codegen/Lowering.h"

#include <sstream>

namespace fp8c {
namespace {

std::string affineStr(const AffineM &a) {
  if (a.perM == 0)
    return std::to_string(a.fixed);
  std::string s = (a.perM == 1 ? "" : std::to_string(a.perM) + "*") + "M";
  if (a.fixed)
    s += " + " + std::to_string(a.fixed);
  return s;
}


const char *epilogueStr(GemmEpilogue e) {
  switch (e) {
  case GemmEpilogue::Default:
    return "DEFAULT";
  case GemmEpilogue::Bias:
    return "BIAS";
  case GemmEpilogue::Gelu:
    return "GELU";
  case GemmEpilogue::GeluBias:
    return "GELU_BIAS";
  case GemmEpilogue::Relu:
    return "RELU";
  case GemmEpilogue::ReluBias:
    return "RELU_BIAS";
  case GemmEpilogue::DGelu:
    return "DGELU";
  case GemmEpilogue::DGeluBgrad:
    return "DGELU_BGRAD";
  case GemmEpilogue::BGradA:
    return "BGRAD_A";
  case GemmEpilogue::BGradB:
    return "BGRAD_B";
  }
  return "?";
}

const char *scaleModeStr(GemmScaleMode m) {
  switch (m) {
  case GemmScaleMode::Tensor:
    return "SCALAR_32F";
  case GemmScaleMode::OuterVector:
    return "OUTER_VEC_32F";
  case GemmScaleMode::Block128:
    return "VEC128_32F (A) x BLK128x128_32F (B)";
  }
  return "?";
}

std::string bufStr(const LaunchPlan &p, int b) {
  if (b < 0)
    return "-";
  const BufferDesc &d = p.buffers[static_cast<size_t>(b)];
  return "#" + std::to_string(b) + " %" + d.name;
}

void printStep(std::ostringstream &os, const LaunchPlan &p, const Step &s,
               const std::string &label) {
  if (const auto *g = std::get_if<GeneratedLaunch>(&s)) {
    os << "// ===== " << label << ": launch " << g->entry << " =====\n";
    os << "// grid: ceil((" << affineStr(g->grid.work) << ") / " << g->grid.perBlock
       << ") blocks of " << g->blockThreads << (g->grid.persistent ? ", persistent" : "")
       << (g->grid.cooperative ? ", cooperative" : "");
    if (g->sharedBytes > 0)
      os << ", " << g->sharedBytes << " B of dynamic shared memory";
    os << "; buffers:";
    for (int b : g->buffers)
      os << " " << bufStr(p, b);
    os << "\n" << g->source << "\n";
    return;
  }
  const auto &c = std::get<GemmStep>(s);
  os << "// ===== " << label << ": "
     << (c.backend == GemmBackend::Generated ? "generated sm90 GEMM " : "cuBLASLt GEMM ") << c.name
     << " =====\n";
  os << "//   ops: " << c.description << "\n";
  os << "//   D[" << affineStr(c.m) << ", " << c.n << "] = A"
     << (c.aKMajor ? "[" + affineStr(c.m) + ", " + std::to_string(c.k) + "]"
                   : "[" + std::to_string(c.k) + ", " + affineStr(c.m) + "]^T")
     << " * B"
     << (c.bKMajor ? "[" + std::to_string(c.n) + ", " + std::to_string(c.k) + "]^T"
                   : "[" + std::to_string(c.k) + ", " + std::to_string(c.n) + "]")
     << (c.aKMajor && c.bKMajor ? " (TN)" : "")
     << (c.kPadsZero ? ", run with K " + std::to_string((c.k + 7) / 8 * 8) + " (zero pad columns)"
                     : std::string())
     << (c.nPadded ? ", run with N " + std::to_string(c.nPadded) + " (zero pad rows of B)"
                   : std::string())
     << "\n";
  os << "//   A " << bufStr(p, c.a) << ", B " << bufStr(p, c.b)
     << (c.b2 >= 0 ? " (gate), B2 " + bufStr(p, c.b2) + " (up)" : std::string()) << ", D "
     << bufStr(p, c.d) << "\n";
  if (c.invScaleA >= 0 || c.invScaleB >= 0)
    os << "//   scales " << scaleModeStr(c.scaleMode) << ": 1/sA " << bufStr(p, c.invScaleA)
       << ", 1/sB " << bufStr(p, c.invScaleB)
       << (c.invScaleB2 >= 0 ? ", 1/sB2 " + bufStr(p, c.invScaleB2) : std::string())
       << (c.fastAccum ? ", fast accumulation" : "") << "\n";
  os << "//   epilogue " << epilogueStr(c.epilogue);
  if (c.bias >= 0)
    os << ", bias " << bufStr(p, c.bias);
  if (c.amaxD >= 0)
    os << (c.amaxRows ? ", AMAX_D per row " : ", AMAX_D ") << bufStr(p, c.amaxD);
  if (c.scaleD >= 0)
    os << ", FP8 D scale " << bufStr(p, c.scaleD);
  if (c.aux >= 0)
    os << ", GELU input to aux " << bufStr(p, c.aux);
  if (c.transD >= 0)
    os << ", D transposed to " << bufStr(p, c.transD);
  if (c.epiIn >= 0 && c.epiInOp == EpiInOp::GeluGrad)
    os << ", D from gelu_grad(result, " << bufStr(p, c.epiIn) << ")";
  if (c.epiIn >= 0 && c.epiInOp == EpiInOp::Residual)
    os << ", D from result + residual " << bufStr(p, c.epiIn);
  if (c.b2 >= 0)
    os << ", D from swiglu(A B^T, A B2^T)";
  if (c.b2 >= 0 && c.gateD >= 0)
    os << " (cuBLASLt: the results to " << bufStr(p, c.gateD) << " and " << bufStr(p, c.upD)
       << ")";
  if (c.blockCast) {
    os << ", D cast per 1x128 block";
    if (c.blockAct != Activation::None)
      os << " after " << activationName(c.blockAct);
    os << " (margin " << c.blockMargin << (c.blockPow2 ? ", pow2" : "") << ")";
    if (c.blockScaleOut >= 0)
      os << ", scales to " << bufStr(p, c.blockScaleOut);
    if (c.blockInvOut >= 0)
      os << ", 1/scales to " << bufStr(p, c.blockInvOut);
  }
  if (c.epiD >= 0)
    os << " (cuBLASLt: the result to " << bufStr(p, c.epiD) << ")";
  if (c.colSum >= 0)
    os << ", column sums to " << bufStr(p, c.colSum) << " (partials per 64 rows in "
       << bufStr(p, c.colPartials) << ")";
  if (c.pushHistory >= 0)
    os << ", the amax"
       << (c.pushRound != DType::F32 ? " (rounded to " + std::string(dtypeName(c.pushRound)) + ")"
                                     : std::string())
       << " pushed into " << bufStr(p, c.pushHistory) << " in place"
       << (c.pushResetAmax ? ", then zeroed" : "") << " (by the generated GEMM's last block"
       << (c.backend == GemmBackend::Generated ? ""
           : c.pushInFallback                  ? "; after cuBLASLt, by its epilogue launch"
                                               : "; after cuBLASLt, by a launch")
       << ")";
  os << "\n";
  // Auto (the default) prints nothing here: cuBLASLt, and at run time the generated sm90 GEMM
  // where cuBLASLt refuses the configuration.
  if (c.backend == GemmBackend::CublasLt && (c.invScaleA >= 0 || c.invScaleB >= 0))
    os << "//   backend cublaslt: no generated fallback where cuBLASLt refuses\n";
  else if (c.backend == GemmBackend::Generated)
    os << "//   backend generated: runtime/gpu/GemmSm90 (gemm_sm90.cuh), any M, no fallbacks\n";
  if (c.backend != GemmBackend::Generated && (c.aPadded >= 0 || c.dPadded >= 0))
    os << "//   at M % 4 != 0 (M rounded up to 4):" << (c.aPadded >= 0 ? " A copied to " + bufStr(p, c.aPadded) : "")
       << (c.dPadded >= 0 ? " D written to " + bufStr(p, c.dPadded) + " and copied out" : "") << "\n";
  os << "\n";
  // The launches that complete a cuBLASLt step, in the order the runtime runs them
  // (Executable's runCublas); none of them runs on a step forced onto the generated GEMM, which
  // computes all of that itself.
  auto after = [&](const std::vector<GeneratedLaunch> &ls, const std::string &what) {
    if (c.backend == GemmBackend::Generated)
      return;
    for (const GeneratedLaunch &f : ls) {
      GeneratedLaunch copy = f;
      printStep(os, p, Step(std::move(copy)), label + what);
    }
  };
  after(c.biasFallback, " fallback (where cuBLASLt takes no bias)");
  after(c.auxFallback, " fallback (where cuBLASLt has no GELU_AUX algorithm)");
  after(c.dualFallback, " after cuBLASLt (the swiglu epilogue from " + bufStr(p, c.gateD) +
                            " and " + bufStr(p, c.upD) + ")");
  after(c.epiFallback,
        " after cuBLASLt (the epilogue from its bf16 result " + bufStr(p, c.epiD) + ")");
  after(c.transFallback, " after cuBLASLt (D transposed)");
  for (const GeneratedLaunch &f : c.pushFallback) {
    GeneratedLaunch copy = f;
    printStep(os, p, Step(std::move(copy)),
              label + (c.backend == GemmBackend::Generated || c.pushInFallback
                           ? " instead, at an M where it has no rows (the history push)"
                           : " after cuBLASLt (the history push), or instead at an M where it "
                             "has no rows"));
  }
  // The side launch: on the generated GEMM inside it, on cuBLASLt after it.
  for (const GeneratedLaunch &f : c.side) {
    GeneratedLaunch copy = f;
    printStep(os, p, Step(std::move(copy)),
              label + " beside it (the generated GEMM's idle warps run it during its main "
                      "loops; after cuBLASLt, a launch)");
  }
}

} // namespace

std::string planToCudaText(const LaunchPlan &plan) {
  std::ostringstream os;
  size_t launches = 0, gemms = 0, generatedGemms = 0;
  for (const auto *list : {&plan.loadSteps, &plan.steps})
    for (const Step &s : *list) {
      const auto *g = std::get_if<GemmStep>(&s);
      (!g ? launches : g->backend == GemmBackend::Generated ? generatedGemms : gemms)++;
    }
  os << "// fp8c CUDA for @" << plan.graphName << ": " << launches << " generated launches, "
     << gemms << " cuBLASLt GEMMs, ";
  if (generatedGemms)
    os << generatedGemms << " generated sm90 GEMMs, ";
  os << plan.loadSteps.size() << " of the steps at load\n";
  os << "// buffers:\n";
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferDesc &b = plan.buffers[i];
    os << "//   #" << i << " %" << b.name << " " << b.type.str() << " " << bufferRoleName(b.role);
    if (b.graphIndex >= 0)
      os << " " << b.graphIndex;
    if (b.role == BufferRole::State && b.outputIndex >= 0)
      os << " (returned as output " << b.outputIndex << ")";
    if (b.mDivisor > 1)
      os << ", ? = ceil(M/" << b.mDivisor << ")";
    if (b.ld > 0)
      os << ", pitch " << b.ld;
    if (b.ldAlignM > 0)
      os << ", pitch roundup(M, " << b.ldAlignM << ")";
    if (b.rowsAlignM > 1)
      os << ", rows roundup(M, " << b.rowsAlignM << ")";
    if (b.zeroInit)
      os << ", zeroed before use";
    os << "\n";
  }
  os << "\n";
  for (size_t i = 0; i < plan.loadSteps.size(); ++i)
    printStep(os, plan, plan.loadSteps[i], "load step " + std::to_string(i));
  for (size_t i = 0; i < plan.steps.size(); ++i)
    printStep(os, plan, plan.steps[i], "step " + std::to_string(i));
  return os.str();
}

} // namespace fp8c
