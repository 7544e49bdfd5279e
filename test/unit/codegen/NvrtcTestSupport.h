// Compiling one generated launch with NVRTC for sm_90a, as the codegen tests do without a GPU.
#pragma once

#include "codegen/LaunchPlan.h"
#include "runtime/jit/Nvrtc.h"

namespace fp8c {

inline Expected<NvrtcResult> compileLaunchForSm90a(const GeneratedLaunch &l) {
  NvrtcRequest req;
  req.kernelName = l.kernelName;
  req.source = l.source;
  req.arch = "sm_90a";
  req.extraOptions = l.nvrtcOptions;
  return compileWithNvrtc(req);
}

} // namespace fp8c
