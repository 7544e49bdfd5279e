// Loaded CUBINs: each kernel-cache entry is loaded (cuModuleLoadData) once per CUDA context
// and its entry points looked up once; later lookups are a map probe. Thread-safe. Modules
// stay loaded for the life of the process, or until unloadAll().
#pragma once

#include "runtime/cuda/CudaDriver.h"
#include "runtime/jit/KernelCache.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace fp8c {

class LoadedModules {
public:
  static LoadedModules &global();

  /// The function `entry` of `kernel` in the current context. Errors name the kernel, its
  /// arch and the driver's reason (e.g. a CUBIN built for another arch).
  Expected<CUfunction> function(const CachedKernel &kernel, const std::string &entry);
  /// Unloads every module this cache loaded (their contexts must still exist).
  Status unloadAll();
  size_t moduleCount() const;

private:
  mutable std::mutex mu_;
  std::map<std::pair<CUcontext, std::string>, CUmodule> modules_; ///< (context, cache key)
  std::map<std::pair<CUmodule, std::string>, CUfunction> functions_;
};

/// Lets `f` use `bytes` of dynamic shared memory (needed above 48 KiB), checked.
Status setMaxDynamicSharedBytes(CUfunction f, int64_t bytes, std::string_view kernelName = {});

/// How many blocks of `f` fit on one SM at once (for persistent grids), checked.
Expected<int> maxActiveBlocksPerSM(CUfunction f, int blockThreads, int64_t dynamicSharedBytes);

} // namespace fp8c
