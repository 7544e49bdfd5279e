// Kernel cache (KernelCache.h): memory map, then disk, then NVRTC. A lookup that misses in
// memory registers an in-flight future, so concurrent callers of one key wait for a single
// compilation; the disk read and the compilation run outside the lock.
#include "runtime/jit/KernelCache.h"

#include "codegen/EmbeddedHeaders.h"
#include "runtime/jit/Sha256.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FP8C_VERSION_STRING
#define FP8C_VERSION_STRING "unknown"
#endif

namespace fs = std::filesystem;

namespace fp8c {
namespace {

constexpr char kMagic[8] = {'F', '8', 'C', 'K', 'R', 'N', 'L', '\0'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kHeaderBytes = 8 + 4 + 4 + 8 + 32;

void putU32(std::string &s, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void putU64(std::string &s, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void putStr(std::string &s, std::string_view v) {
  putU64(s, v.size());
  s.append(v);
}

struct Reader {
  std::string_view in;
  bool ok = true;
  uint64_t u(int bytes) {
    if (in.size() < static_cast<size_t>(bytes)) {
      ok = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= uint64_t(static_cast<uint8_t>(in[i])) << (8 * i);
    in.remove_prefix(bytes);
    return v;
  }
  std::string_view str() {
    uint64_t n = u(8);
    if (!ok || n > in.size()) {
      ok = false;
      return {};
    }
    std::string_view v = in.substr(0, n);
    in.remove_prefix(n);
    return v;
  }
};

std::string serializePayload(const CachedKernel &k) {
  std::string p;
  putStr(p, k.key);
  putStr(p, k.kernelName);
  putStr(p, k.arch);
  putStr(p, std::string_view(k.cubin.data(), k.cubin.size()));
  putStr(p, k.ptx);
  putStr(p, k.log);
  putU64(p, k.entries.size());
  for (const PtxasEntryInfo &e : k.entries) {
    putStr(p, e.entry);
    putU64(p, static_cast<uint64_t>(e.registers));
    putU64(p, static_cast<uint64_t>(e.stackFrameBytes));
    putU64(p, static_cast<uint64_t>(e.spillStoreBytes));
    putU64(p, static_cast<uint64_t>(e.spillLoadBytes));
    putU64(p, static_cast<uint64_t>(e.sharedBytes));
  }
  return p;
}

bool parsePayload(std::string_view payload, CachedKernel &k) {
  Reader r{payload};
  k.key = r.str();
  k.kernelName = r.str();
  k.arch = r.str();
  std::string_view cubin = r.str();
  k.cubin.assign(cubin.begin(), cubin.end());
  k.ptx = r.str();
  k.log = r.str();
  uint64_t n = r.u(8);
  if (!r.ok || n > payload.size())
    return false;
  k.entries.resize(n);
  for (PtxasEntryInfo &e : k.entries) {
    e.entry = r.str();
    e.registers = static_cast<int>(r.u(8));
    e.stackFrameBytes = static_cast<int64_t>(r.u(8));
    e.spillStoreBytes = static_cast<int64_t>(r.u(8));
    e.spillLoadBytes = static_cast<int64_t>(r.u(8));
    e.sharedBytes = static_cast<int64_t>(r.u(8));
  }
  return r.ok && r.in.empty();
}

bool readWholeFile(const std::string &path, std::string &out, bool &exists) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  exists = fd >= 0 || errno != ENOENT;
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
    ok = done == out.size();
  }
  ::close(fd);
  return ok;
}

// FP8C_DUMP_CUDA=DIR: every kernel looked up is written out, cache hits included.
void dumpIfRequested(const NvrtcRequest &req) {
  const char *dir = std::getenv("FP8C_DUMP_CUDA");
  if (dir && *dir)
    dumpKernelSource(req, dir);
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

KernelCache &KernelCache::global() {
  // Never destroyed: kernels may be looked up from other static destructors.
  static KernelCache *cache = new KernelCache(defaultKernelCacheDir());
  return *cache;
}

KernelCache::KernelCache(std::string dir) : dir_(std::move(dir)) {}

std::string KernelCache::fp8cVersion() { return FP8C_VERSION_STRING; }

std::string KernelCache::keyOf(const NvrtcRequest &req) {
  Sha256 h;
  h.updateField("fp8c kernel cache key v1");
  h.updateField(req.kernelName);
  h.updateField(req.source);
  h.updateField(embeddedHeadersHash());
  h.updateField(nvrtcVersionString());
  for (const std::string &o : nvrtcKeyOptions(req))
    h.updateField(o);
  h.updateField(req.arch);
  h.updateField(req.wantPtx ? "ptx" : "no-ptx");
  h.updateField(fp8cVersion());
  return Sha256::hex(h.digest());
}

std::string KernelCache::pathOf(const std::string &key) const {
  return dir_ + "/" + key + ".cubin";
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  memory_.clear();
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

bool KernelCache::readEntry(const std::string &key, CachedKernel &out) {
  if (dir_.empty()) // no directory: nothing on disk
    return false;
  std::string bytes;
  bool exists = false;
  bool read = readWholeFile(pathOf(key), bytes, exists);
  if (!exists)
    return false;
  bool valid = false;
  if (read && bytes.size() >= kHeaderBytes && std::memcmp(bytes.data(), kMagic, 8) == 0) {
    Reader r{std::string_view(bytes).substr(8)};
    uint32_t version = static_cast<uint32_t>(r.u(4));
    uint32_t headerBytes = static_cast<uint32_t>(r.u(4));
    uint64_t payloadBytes = r.u(8);
    if (version == kFormatVersion && headerBytes == kHeaderBytes &&
        payloadBytes == bytes.size() - kHeaderBytes) {
      std::string_view payload = std::string_view(bytes).substr(kHeaderBytes);
      Sha256 h;
      h.update(payload);
      Sha256::Digest d = h.digest();
      valid = std::memcmp(d.data(), bytes.data() + kHeaderBytes - 32, 32) == 0 &&
              parsePayload(payload, out) && out.key == key;
    }
  }
  if (!valid) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.corruptEntries;
  }
  return valid;
}

bool KernelCache::writeEntry(const CachedKernel &k) {
  static std::atomic<uint64_t> counter{0};
  if (dir_.empty())
    return false;
  std::string payload = serializePayload(k);
  Sha256 h;
  h.update(payload);
  Sha256::Digest d = h.digest();
  std::string file(kMagic, 8);
  putU32(file, kFormatVersion);
  putU32(file, kHeaderBytes);
  putU64(file, payload.size());
  file.append(reinterpret_cast<const char *>(d.data()), d.size());
  file += payload;

  std::error_code ec;
  fs::create_directories(dir_, ec);
  // A temp name unique across processes and threads, in the same directory, so that the
  // rename is atomic: a reader sees the old file, or the new one whole, never a torn one.
  std::string tmp = pathOf(k.key) + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(counter.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  size_t done = 0;
  while (done < file.size()) {
    ssize_t n = ::write(fd, file.data() + done, file.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += static_cast<size_t>(n);
  }
  bool ok = ::close(fd) == 0 && done == file.size();
  if (ok)
    ok = ::rename(tmp.c_str(), pathOf(k.key).c_str()) == 0;
  if (!ok)
    ::unlink(tmp.c_str());
  return ok;
}

KernelCache::Result KernelCache::lookUp(const NvrtcRequest &req, const std::string &key) {
  auto start = std::chrono::steady_clock::now();
  auto entry = std::make_shared<CachedKernel>();
  if (readEntry(key, *entry)) {
    entry->fromDisk = true;
    entry->seconds = secondsSince(start);
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.diskHits;
    return std::shared_ptr<const CachedKernel>(entry);
  }
  Expected<NvrtcResult> compiled = compileWithNvrtc(req);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiles;
  }
  if (!compiled)
    return Error(compiled.error());
  entry = std::make_shared<CachedKernel>();
  entry->key = key;
  entry->kernelName = req.kernelName;
  entry->arch = req.arch;
  entry->cubin = std::move(compiled->cubin);
  entry->ptx = std::move(compiled->ptx);
  entry->log = std::move(compiled->log);
  entry->entries = std::move(compiled->entries);
  if (!writeEntry(*entry)) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.writeFailures;
  }
  entry->seconds = secondsSince(start);
  return std::shared_ptr<const CachedKernel>(entry);
}

Expected<std::shared_ptr<const CachedKernel>> KernelCache::get(const NvrtcRequest &request) {
  auto start = std::chrono::steady_clock::now();
  NvrtcRequest req = request;
  if (req.failedSourceDir.empty() && !dir_.empty())
    req.failedSourceDir = dir_ + "/failed";
  const std::string key = keyOf(req);

  // A copy flagged as a memory hit, so that flags and time describe this lookup.
  auto memoryHit = [&](const std::shared_ptr<const CachedKernel> &k) {
    auto copy = std::make_shared<CachedKernel>(*k);
    copy->fromDisk = false;
    copy->fromMemory = true;
    copy->seconds = secondsSince(start);
    return std::shared_ptr<const CachedKernel>(copy);
  };

  std::promise<Result> promise;
  std::shared_future<Result> pending;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (auto it = memory_.find(key); it != memory_.end()) {
      ++stats_.memoryHits;
      auto k = it->second;
      lock.unlock();
      dumpIfRequested(req);
      return memoryHit(k);
    }
    if (auto it = inFlight_.find(key); it != inFlight_.end()) {
      pending = it->second;
    } else {
      inFlight_.emplace(key, promise.get_future().share());
    }
  }
  if (pending.valid()) {
    Result r = pending.get();
    if (!r)
      return Error(r.error());
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.memoryHits;
    }
    return memoryHit(*r);
  }

  Result r = lookUp(req, key);
  if (r && (*r)->fromDisk)
    dumpIfRequested(req); // compileWithNvrtc dumps what it compiles
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (r)
      memory_[key] = *r;
    inFlight_.erase(key);
  }
  promise.set_value(r);
  return r;
}

} // namespace fp8c
