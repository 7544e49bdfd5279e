// NVRTC: CUDA C++ source -> CUBIN (and PTX) for one architecture. NVRTC needs no GPU, so this
// runs in CI. A compiler crash (NVRTC 13.0 was seen to SIGSEGV on some wgmma code) must not
// kill the caller: compilation runs in a forked child process, and a child that dies becomes
// an Error naming the kernel. Every NVRTC call is checked with nvrtcGetErrorString, and errors
// carry the NVRTC log and the path where the failing source was written. The child also turns
// off NVRTC 13's own cache (CUDA_CACHE_DISABLE=1): on a machine with a driver it would skip
// ptxas on a hit, and the ptxas report (registers, spills) would be missing.
//
// Includes: the embedded headers (codegen/EmbeddedHeaders.h) are handed to NVRTC from memory.
// NVRTC 13 has no built-in cuda_fp8.h / cuda_bf16.h / cuda_fp16.h, so the toolkit's include
// directory is added with -I when it exists (cudaIncludeDir()); it is not part of the cache key,
// so moving the toolkit does not invalidate the cache.
//
// Environment (documented in the README):
//   CUDA_HOME, CUDA_PATH   toolkit root whose include/ provides cuda_fp8.h (else the build's
//                          toolkit, else /usr/local/cuda)
//   FP8C_DUMP_CUDA=DIR     write every compiled source to DIR/<kernel>.cu
//   FP8C_NVRTC_NO_FORK=1   compile in this process (debugging; a compiler crash then kills it;
//                          on a machine with a driver, also set CUDA_CACHE_DISABLE=1, or NVRTC's
//                          own cache may skip ptxas and leave the ptxas report empty)
//   FP8C_TEST_NVRTC_CRASH=1  test only: the compiling child raises SIGSEGV before compiling,
//                          to exercise the crash path
#pragma once

#include "ir/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

struct NvrtcRequest {
  std::string kernelName; ///< for messages and the dumped source's file name
  std::string source;
  std::string arch = "sm_90a"; ///< "sm_90a", "sm_89", ...
  std::vector<std::string> extraOptions;
  bool wantPtx = false;
  /// Where a failing source is written ("" = defaultKernelCacheDir()'s failed/); when that
  /// cannot be written, a fresh private directory under the temp dir (mkdtemp, mode 0700),
  /// never a fixed path there. KernelCache sets it to <its dir>/failed.
  std::string failedSourceDir;
};

/// What ptxas reported for one entry point (`--ptxas-options=-v`).
struct PtxasEntryInfo {
  std::string entry;
  int registers = 0;
  int64_t stackFrameBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t sharedBytes = 0; ///< static shared memory ("N bytes smem")
};

struct NvrtcResult {
  std::vector<char> cubin;
  std::string ptx; ///< when wantPtx
  std::string log; ///< the whole NVRTC/ptxas log
  std::vector<PtxasEntryInfo> entries;
  double seconds = 0; ///< wall time of the compilation, fork and transfer included
  bool hasSpills() const;
};

/// Compiles `req` with the embedded headers available to #include, in a forked child. Options:
/// nvrtcOptions(req). Errors name the kernel and carry the NVRTC log and the dumped source path.
Expected<NvrtcResult> compileWithNvrtc(const NvrtcRequest &req);

/// The options compileWithNvrtc passes: --std=c++17, --gpu-architecture=<arch>, -lineinfo,
/// --ptxas-options=-v, then -I<cudaIncludeDir()> when there is one, then req.extraOptions.
std::vector<std::string> nvrtcOptions(const NvrtcRequest &req);

/// The options that determine the CUBIN (nvrtcOptions without the -I path): part of the key.
std::vector<std::string> nvrtcKeyOptions(const NvrtcRequest &req);

/// The CUDA toolkit include dir for cuda_fp8.h and friends: $CUDA_HOME/include,
/// $CUDA_PATH/include, the build's toolkit, /usr/local/cuda/include; the first that holds
/// cuda_fp8.h. Empty when none does (then kernels that include cuda_fp8.h fail to compile,
/// with a hint in the error).
std::string cudaIncludeDir();

/// "13.0" (nvrtcVersion), part of the cache key.
std::string nvrtcVersionString();

/// Parses the ptxas lines of an NVRTC log ("Compiling entry function", "Used N registers",
/// "N bytes stack frame, N bytes spill stores, N bytes spill loads", "N bytes smem").
std::vector<PtxasEntryInfo> parsePtxasLog(std::string_view log);

/// The default cache dir: $FP8C_CACHE_DIR, else $HOME/.cache/fp8c, else the account's home
/// directory's .cache/fp8c, else <temp>/fp8c-<uid>/cache in a directory of this user's own
/// (mode 0700, checked to be theirs; else a fresh one). "" when none can be made (then
/// nothing is cached on disk).
std::string defaultKernelCacheDir();

/// Writes `req.source` to DIR/<sanitized kernelName>.cu and the embedded headers under
/// DIR/include/, so that `nvcc -IDIR/include` reproduces a failure. Returns the source's path
/// ("" if nothing could be written).
std::string dumpKernelSource(const NvrtcRequest &req, const std::string &dir);

} // namespace fp8c
