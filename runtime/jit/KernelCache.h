// The kernel cache (docs/architecture.md): CUBINs in memory and on disk under $FP8C_CACHE_DIR
// (default ~/.cache/fp8c), keyed by a hash of (source, embedded-header hash, NVRTC version,
// options, arch, fp8c version). Entries are written to a temp file and renamed; a corrupt or
// truncated entry (checked by a header with magic, length and a checksum) is recompiled,
// never trusted. Thread-safe; several processes may write one key at once.
//
// On disk: one file per key, <dir>/<key>.cubin, holding
//   "FP8CKRNL" | u32 format version | u32 header bytes (56) | u64 payload bytes |
//   SHA-256 of the payload (32 bytes) | payload
// where the payload is the key, kernel name, arch, CUBIN, PTX, log and the ptxas entries,
// each length-prefixed (little-endian). An entry whose stored key differs from its name is
// corrupt too.
#pragma once

#include "runtime/jit/Nvrtc.h"

#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fp8c {

struct CachedKernel {
  std::string key;        ///< the cache key (64 hex digits); loaded modules are keyed by it
  std::string kernelName; ///< the request's kernel name
  std::string arch;       ///< the request's arch
  std::vector<char> cubin;
  std::string ptx; ///< when the request asked for it (wantPtx is part of the key)
  std::string log; ///< NVRTC/ptxas log of the compilation that produced the CUBIN
  std::vector<PtxasEntryInfo> entries;
  bool fromDisk = false;   ///< found on disk (not compiled in this call)
  bool fromMemory = false; ///< found in the in-memory cache (or compiled by a concurrent call)
  double seconds = 0;      ///< time this lookup took (compile or read)
};

/// What a cache did since it was made. Corrupt entries are counted, never logged.
struct KernelCacheStats {
  uint64_t memoryHits = 0;
  uint64_t diskHits = 0;
  uint64_t compiles = 0;       ///< NVRTC runs (successful or not)
  uint64_t corruptEntries = 0; ///< files found unreadable, truncated or failing their checksum
  uint64_t writeFailures = 0;  ///< entries that could not be written (the kernel is still used)
};

class KernelCache {
public:
  /// The process-wide cache rooted at defaultKernelCacheDir() ($FP8C_CACHE_DIR or
  /// ~/.cache/fp8c), read when first called.
  static KernelCache &global();
  explicit KernelCache(std::string dir);

  /// The CUBIN for `req`: from memory, else disk, else NVRTC (then stored on disk). A request
  /// with an empty failedSourceDir gets <dir>/failed. Concurrent calls for one key compile once.
  Expected<std::shared_ptr<const CachedKernel>> get(const NvrtcRequest &req);
  /// The hex key `req` is stored under.
  static std::string keyOf(const NvrtcRequest &req);
  /// The file an entry lives in.
  std::string pathOf(const std::string &key) const;
  const std::string &dir() const { return dir_; }
  void clearMemory();
  KernelCacheStats stats() const;

  /// fp8c's version as it enters the key.
  static std::string fp8cVersion();

private:
  using Result = Expected<std::shared_ptr<const CachedKernel>>;
  Result lookUp(const NvrtcRequest &req, const std::string &key);
  bool readEntry(const std::string &key, CachedKernel &out);
  bool writeEntry(const CachedKernel &k);

  std::string dir_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const CachedKernel>> memory_;
  std::unordered_map<std::string, std::shared_future<Result>> inFlight_;
  KernelCacheStats stats_;
};

} // namespace fp8c
