// The kernel cache (DESIGN.md section 7): CUBINs in memory and on disk under $FP8C_CACHE_DIR
// (default ~/.cache/fp8c), keyed by a hash of (source, embedded-header hash, NVRTC version,
// options, arch, fp8c version). Entries are written to a temp file and renamed; a corrupt or
// truncated entry (checked by a header with magic, length and a checksum) is recompiled,
// never trusted. Thread-safe; several processes may write one key at once.
#pragma once

#include "runtime/jit/Nvrtc.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fp8c {

struct CachedKernel {
  std::vector<char> cubin;
  std::vector<PtxasEntryInfo> entries;
  bool fromDisk = false;     ///< found on disk (not compiled in this call)
  bool fromMemory = false;   ///< found in the in-memory cache
  double seconds = 0;        ///< time this lookup took (compile or read)
};

class KernelCache {
public:
  /// The process-wide cache rooted at $FP8C_CACHE_DIR or ~/.cache/fp8c.
  static KernelCache &global();
  explicit KernelCache(std::string dir);

  /// The CUBIN for `req`: from memory, else disk, else NVRTC (then stored on disk).
  Expected<std::shared_ptr<const CachedKernel>> get(const NvrtcRequest &req);
  /// The hex key `req` is stored under.
  static std::string keyOf(const NvrtcRequest &req);
  const std::string &dir() const { return dir_; }
  void clearMemory();

private:
  std::string dir_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const CachedKernel>> memory_;
};

} // namespace fp8c
