// NVRTC: CUDA C++ source -> CUBIN (and PTX) for one architecture. NVRTC needs no GPU, so this
// runs in CI. A compiler crash (NVRTC 13.0 was seen to SIGSEGV on some wgmma code) must not
// kill the caller: compilation runs in a forked child process, and a child that dies becomes
// an Error naming the kernel. Every NVRTC call is checked with nvrtcGetErrorString, and errors
// carry the NVRTC log and the path where the failing source was written.
#pragma once

#include "ir/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c {

struct NvrtcRequest {
  std::string kernelName; ///< for messages and the dumped source's file name
  std::string source;
  std::string arch = "sm_90a"; ///< "sm_90a", "sm_89", ...
  std::vector<std::string> extraOptions;
  bool wantPtx = false;
};

/// What ptxas reported for one entry point (`--ptxas-options=-v`).
struct PtxasEntryInfo {
  std::string entry;
  int registers = 0;
  int64_t stackFrameBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t sharedBytes = 0;
};

struct NvrtcResult {
  std::vector<char> cubin;
  std::string ptx; ///< when wantPtx
  std::string log; ///< the whole NVRTC/ptxas log
  std::vector<PtxasEntryInfo> entries;
  double seconds = 0;
  bool hasSpills() const;
};

/// Compiles with the embedded headers (EmbeddedHeaders.h) available to #include. Options
/// always include -default-device-free flags fp8c relies on: --std=c++17,
/// --gpu-architecture=<arch>, -lineinfo, --ptxas-options=-v.
Expected<NvrtcResult> compileWithNvrtc(const NvrtcRequest &req);

/// "13.0" (nvrtcVersion), part of the cache key.
std::string nvrtcVersionString();

} // namespace fp8c
