// How an Executable runs a GEMM step (Executable::Impl): cuBLASLt's call at this M with the
// plan's fallbacks where cuBLASLt refuses it, or the generated Hopper GEMM (the autotuned config
// of its M bucket, else the heuristic's), and the launches that finish the epilogue after it.
// Split from Executable.cpp; the choice between the two is made at compile time
// (ExecutableGemmChoice.cpp).
#include "runtime/ExecutableImpl.h"

#include "passes/GemmCapabilities.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/gpu/GemmSm90Step.h"

#include <algorithm>

namespace fp8c {

// Step `g` as cuBLASLt would run it at M, with the plan's fallbacks where cuBLASLt refuses it
// (GemmStep's comment in codegen/LaunchPlan.h): M rounded up to 4 for 128-block scales,
// and the bias added by a generated launch where no outer-vector algorithm takes it. With
// `checkSupport`, `refused` says why cuBLASLt cannot take what is left.
Expected<CublasCall> Executable::Impl::cublasCall(const GemmStep &g,
                                                  const std::vector<CUdeviceptr> &ptrs, int64_t m,
                                                  bool checkSupport) {
  auto call = cublasLtCall(g, plan(), m, ptrs);
  if (!call)
    return Error(call.error());
  CublasCall out;
  out.config = call->first;
  out.pointers = call->second;
  CublasLtGemmConfig &config = out.config;
  const int64_t rows = config.m;
  out.padRows = g.scaleMode == GemmScaleMode::Block128 && rows % 4 != 0;
  if (out.padRows) {
    config.m = (rows + 3) / 4 * 4;
    if (g.aPadded >= 0) { // the caller's A has no pad rows: a copy that has (runGemm)
      out.pointers.a = reinterpret_cast<const void *>(ptrs[g.aPadded]);
      config.alignA = std::min(config.alignA, alignmentOf(ptrs[g.aPadded]));
    } else if (plan().buffers[g.a].rowsAlignM % 4 != 0) {
      return Error("internal error: the A operand %" + plan().buffers[g.a].name +
                   " of a 128-block-scaled GEMM has no pad rows (M = " + std::to_string(rows) +
                   ")");
    }
    if (g.dPadded >= 0) {
      out.pointers.d = reinterpret_cast<void *>(ptrs[g.dPadded]);
      config.alignD = std::min(config.alignD, alignmentOf(ptrs[g.dPadded]));
    }
  }
  if (!g.biasFallback.empty()) {
    Expected<bool> ok = cublas->supports(config, out.pointers);
    if (!ok && !checkSupport)
      return Error(ok.error());
    if (ok && !*ok) { // no outer-vector algorithm with a bias at this shape: add it afterwards
      config.epilogue = GemmEpilogue::Default;
      config.biasType.reset();
      out.pointers.bias = nullptr;
      out.addBiasAfter = true;
    }
  }
  if (!g.auxFallback.empty()) {
    Expected<bool> ok = cublas->supports(config, out.pointers);
    if (!ok && !checkSupport)
      return Error(ok.error());
    if (ok && !*ok) { // no GELU_AUX algorithm: write the GELU input as D, then the launches
      config.epilogue = config.biasType ? GemmEpilogue::Bias : GemmEpilogue::Default;
      config.dType = *config.auxType;
      config.ldd = config.ldAux;
      config.alignD = config.alignAux;
      config.auxType.reset();
      config.hasScaleD = config.hasAmaxD = false;
      out.pointers.d = out.pointers.aux;
      out.pointers.aux = nullptr;
      out.pointers.scaleD = nullptr;
      out.pointers.amaxD = nullptr;
      out.epilogueAfter = true;
    }
  }
  if (checkSupport) {
    if (Status st = checkCublasLtConfig(config, device.ccMajor, device.ccMinor); !st) {
      out.refused = st.message();
      return out;
    }
    Expected<bool> ok = cublas->supports(config, out.pointers);
    if (!ok)
      return Error(ok.error());
    if (!*ok)
      out.refused = "cuBLASLt has no algorithm for " + config.str();
  }
  return out;
}

// One GEMM step: on the generated GEMM (backend generated, auto where compile() measured it
// faster at this M's bucket, or auto where cuBLASLt refuses the configuration), else on
// cuBLASLt with the plan's fallbacks.
Status Executable::Impl::runGemm(const GemmStep &g, const std::vector<CUdeviceptr> &ptrs,
                                 int64_t m, CUstream stream) {
  if (g.backend == GemmBackend::Generated)
    return runSm90(g, ptrs, m, stream, "");
  const AutoChoice *choice = nullptr;
  if (g.backend == GemmBackend::Auto)
    if (auto it = autoChoice.find(g.name);
        it != autoChoice.end() && gemmSm90TuneBucket(g.m.eval(m)) == it->second.bucket)
      choice = &it->second;
  if (choice && choice->generated && choice->unfused) {
    // The plain GEMM on the generated kernel into epiD, then the epilogue's launches.
    const GemmStep &u = unfusedSteps.at(g.name);
    if (Status st = runSm90(u, ptrs, m, stream, choice->why); !st)
      return st;
    for (const GeneratedLaunch &l : g.epiFallback)
      if (Status st = launch(l, ptrs, m, stream); !st)
        return st;
    if (!g.pushInFallback) // the history push, which the fused GEMM would have made
      for (const GeneratedLaunch &l : g.pushFallback)
        if (Status st = launch(l, ptrs, m, stream); !st)
          return st;
    gemmLog[g.name] = gemmLog[u.name] + "; the epilogue by launches from its bf16 result";
    gemmLog.erase(u.name);
    return Status::ok();
  }
  if (choice && choice->generated)
    return runSm90(g, ptrs, m, stream, choice->why);
  // auto asks cuBLASLt first (its answers are cached per configuration); on a Hopper GPU a
  // refusal goes to the generated GEMM.
  const bool autoFallback =
      g.backend == GemmBackend::Auto &&
      GemmCapabilities::generatedRunsOn(device.ccMajor, device.ccMinor);
  Expected<CublasCall> callOr = cublasCall(g, ptrs, m, autoFallback);
  if (!callOr)
    return Error(callOr.error());
  CublasCall &call = *callOr;
  if (!call.refused.empty())
    return runSm90(g, ptrs, m, stream, "auto: " + call.refused);
  if (Status st = runCublas(g, call, ptrs, m, stream); !st)
    return st;
  std::vector<std::string> notes;
  if (call.padRows)
    notes.push_back("M rounded up to 4");
  if (call.addBiasAfter)
    notes.push_back("bias added by a launch");
  if (call.epilogueAfter)
    notes.push_back("no GELU_AUX algorithm: the GELU input written as D, the epilogue by launches");
  if (g.epiD >= 0)
    notes.push_back(g.blockCast ? "the 1x128-block cast by a launch from the bf16 result"
                    : g.epiInOp == EpiInOp::Residual
                        ? "the residual add by a launch from the bf16 result"
                        : "the gelu_grad epilogue by a launch from its bf16 result");
  if (g.b2 >= 0)
    notes.push_back("gate and up as two GEMMs, the swiglu epilogue by a launch");
  if (choice)
    notes.push_back(choice->why);
  std::string log = gemmBackendName(GemmBackend::CublasLt);
  for (size_t i = 0; i < notes.size(); ++i)
    log += (i ? "; " : " (") + notes[i] + (i + 1 == notes.size() ? ")" : "");
  gemmLog[g.name] = log;
  return Status::ok();
}

// cuBLASLt's part of runGemm for a call cublasCall() prepared: A copied to its padded buffer
// and D out of its padded one where M was rounded up, the bias added after where the
// epilogue could not.
Status Executable::Impl::runCublas(const GemmStep &g, const CublasCall &call,
                                   const std::vector<CUdeviceptr> &ptrs, int64_t m,
                                   CUstream stream) {
  if (call.padRows && g.aPadded >= 0)
    FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, ptrs[g.aPadded], ptrs[g.a],
                static_cast<size_t>(plan().buffers[g.a].bytes(m)), stream);
  if (Status st = cublas->run(call.config, call.pointers, stream); !st)
    return st;
  if (g.b2 >= 0) {
    // The dual GEMM's second call: the up weight into upD (cublasLtCall set up the gate's).
    CublasLtGemmPointers up = call.pointers;
    up.b = reinterpret_cast<const void *>(ptrs[g.b2]);
    up.invScaleB = reinterpret_cast<const float *>(ptrs[g.invScaleB2]);
    up.d = reinterpret_cast<void *>(ptrs[g.upD]);
    if (alignmentOf(ptrs[g.b2]) < call.config.alignB ||
        alignmentOf(ptrs[g.upD]) < call.config.alignD)
      return Error("cuBLASLt GEMM '" + g.name +
                   "': the up weight or its result buffer is less "
                   "aligned than the gate's, for which the algorithm was chosen");
    if (Status st = cublas->run(call.config, up, stream); !st)
      return st;
  }
  if (call.padRows && g.dPadded >= 0) {
    const BufferDesc &d = plan().buffers[g.d];
    FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, ptrs[g.d], ptrs[g.dPadded], static_cast<size_t>(d.bytes(m)),
                stream);
  }
  if (call.addBiasAfter) // (before the epilogue launches that read the result)
    if (Status st = launch(g.biasFallback.front(), ptrs, m, stream); !st)
      return st;
  if (call.epilogueAfter) // the launches from aux (D^T included)
    for (const GeneratedLaunch &l : g.auxFallback)
      if (Status st = launch(l, ptrs, m, stream); !st)
        return st;
  for (const GeneratedLaunch &l : g.dualFallback) // the swiglu epilogue from gateD and upD
    if (Status st = launch(l, ptrs, m, stream); !st)
      return st;
  for (const GeneratedLaunch &l : g.epiFallback) // gelu_grad or the residual add, from epiD
    if (Status st = launch(l, ptrs, m, stream); !st)
      return st;
  if (!call.epilogueAfter) // D^T of the D cuBLASLt wrote
    for (const GeneratedLaunch &l : g.transFallback)
      if (Status st = launch(l, ptrs, m, stream); !st)
        return st;
  for (const GeneratedLaunch &l : g.side) // the side launch, which the generated GEMM runs inside
    if (Status st = launch(l, ptrs, m, stream); !st)
      return st;
  if (!g.pushInFallback) // the history push, which the generated GEMM makes itself
    for (const GeneratedLaunch &l : g.pushFallback)
      if (Status st = launch(l, ptrs, m, stream); !st)
        return st;
  return Status::ok();
}

// One GEMM step on the generated Hopper GEMM; `why` says why it is not cuBLASLt's (auto).
Status Executable::Impl::runSm90(const GemmStep &g, const std::vector<CUdeviceptr> &ptrs,
                                 int64_t m, CUstream stream, const std::string &why) {
  auto it = sm90Kernels.find(g.name);
  std::string note;
  if (it == sm90Kernels.end()) {
    if (g.backend == GemmBackend::Generated)
      return Error("internal error: GEMM '" + g.name + "' was not prepared for the generated " +
                   "sm90 GEMM at compile()");
    // auto, refused by cuBLASLt at an M that compile()'s probes did not meet: the kernel is
    // compiled and loaded here, once (this run is then not capturable in a CUDA graph).
    if (!sm90) {
      Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
      if (!r)
        return Error(why + "; the generated GEMM: " + r.error());
      sm90 = r.take();
    }
    Expected<GemmSm90Spec> base = gemmSm90KernelOf(g, plan());
    if (!base)
      return Error(why + "; " + base.error());
    it = sm90Kernels.emplace(g.name, *base).first;
    note = ", compiled in run()";
  }
  const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan(), m);
  // The autotuned winner in its bucket of M, the heuristic elsewhere (both prepared).
  GemmSm90Spec k;
  std::string tuned;
  if (auto t = sm90Tuned.find(g.name);
      t != sm90Tuned.end() && gemmSm90TuneBucket(prob.m) == t->second.bucket) {
    k = t->second.kernel;
    tuned = t->second.note;
  } else {
    k = chooseGemmSm90Tiles(it->second, prob, sm90->device());
  }
  // Right after a generated launch (decode's activation cast), the GEMM's blocks set up while it
  // finishes (programmatic dependent launch).
  const bool dependent = afterLaunch;
  afterLaunch = false;
  if (Status st = sm90->run(k, prob, gemmSm90PointersOf(g, ptrs, m), stream, 0, 0, dependent); !st)
    return st;
  std::string &log = gemmLog[g.name];
  log = "generated sm90 " + k.name();
  std::string notes = why + note;
  if (!tuned.empty())
    notes += (notes.empty() ? "" : "; ") + tuned;
  if (!notes.empty())
    log += " (" + notes + ")";
  return Status::ok();
}

} // namespace fp8c
