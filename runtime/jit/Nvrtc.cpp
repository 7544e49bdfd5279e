// NVRTC wrapper (Nvrtc.h). compileWithNvrtc forks; the child runs compileHere() and writes a
// ChildResult back over a pipe; the parent turns it, or the child's death, into the result or an
// Error. Everything NVRTC is called from the child only, so a compiler crash or a stuck lock in
// NVRTC never reaches the caller's process.
#include "runtime/jit/Nvrtc.h"

#include "codegen/EmbeddedHeaders.h"

#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FP8C_CUDA_INCLUDE_DIR
#define FP8C_CUDA_INCLUDE_DIR ""
#endif

namespace fs = std::filesystem;

namespace fp8c {
namespace {

bool envIsOne(const char *name) {
  const char *v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

std::string envOr(const char *name, std::string fallback = {}) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// What the child sends back. `failedCall` is set when an NVRTC call other than the
// compilation itself failed; `compileFailed` when the source did not compile.
struct ChildResult {
  std::string failedCall;
  int nvrtcCode = NVRTC_SUCCESS;
  bool compileFailed = false;
  std::string log;
  std::string cubin;
  std::string ptx;
};

// Every NVRTC call in compileHere goes through this: on failure it records the call and its
// result code (the parent adds nvrtcGetErrorString and the log) and returns.
#define FP8C_NVRTC_TRY(out, call)                                                                  \
  do {                                                                                             \
    nvrtcResult r_ = (call);                                                                       \
    if (r_ != NVRTC_SUCCESS) {                                                                     \
      (out).failedCall = #call;                                                                    \
      (out).failedCall = (out).failedCall.substr(0, (out).failedCall.find('('));                   \
      (out).nvrtcCode = r_;                                                                        \
      return;                                                                                      \
    }                                                                                              \
  } while (0)

struct ProgramGuard {
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog)
      nvrtcDestroyProgram(&prog);
  }
};

void readLog(nvrtcProgram prog, ChildResult &out) {
  size_t size = 0;
  FP8C_NVRTC_TRY(out, nvrtcGetProgramLogSize(prog, &size));
  std::string log(size, '\0');
  FP8C_NVRTC_TRY(out, nvrtcGetProgramLog(prog, log.data()));
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  out.log = std::move(log);
}

// The compilation itself; runs in the child (or here with FP8C_NVRTC_NO_FORK=1).
void compileHere(const NvrtcRequest &req, ChildResult &out) {
  // NVRTC wants NUL-terminated strings; the embedded headers are string_views.
  std::vector<std::string> headerText, headerName;
  for (const EmbeddedHeader &h : embeddedHeaders()) {
    headerText.emplace_back(h.contents);
    headerName.emplace_back(h.name);
  }
  std::vector<const char *> texts, names;
  for (size_t i = 0; i < headerText.size(); ++i) {
    texts.push_back(headerText[i].c_str());
    names.push_back(headerName[i].c_str());
  }
  ProgramGuard guard;
  const std::string programName = req.kernelName + ".cu";
  FP8C_NVRTC_TRY(out,
                 nvrtcCreateProgram(&guard.prog, req.source.c_str(), programName.c_str(),
                                    static_cast<int>(texts.size()), texts.data(), names.data()));
  const std::vector<std::string> options = nvrtcOptions(req);
  std::vector<const char *> optionPtrs;
  for (const std::string &o : options)
    optionPtrs.push_back(o.c_str());
  nvrtcResult compiled =
      nvrtcCompileProgram(guard.prog, static_cast<int>(optionPtrs.size()), optionPtrs.data());
  readLog(guard.prog, out);
  if (!out.failedCall.empty())
    return;
  if (compiled == NVRTC_ERROR_COMPILATION) {
    out.compileFailed = true;
    out.nvrtcCode = compiled;
    return;
  }
  if (compiled != NVRTC_SUCCESS) {
    out.failedCall = "nvrtcCompileProgram";
    out.nvrtcCode = compiled;
    return;
  }
  size_t cubinSize = 0;
  FP8C_NVRTC_TRY(out, nvrtcGetCUBINSize(guard.prog, &cubinSize));
  out.cubin.resize(cubinSize);
  FP8C_NVRTC_TRY(out, nvrtcGetCUBIN(guard.prog, out.cubin.data()));
  if (req.wantPtx) {
    size_t ptxSize = 0;
    FP8C_NVRTC_TRY(out, nvrtcGetPTXSize(guard.prog, &ptxSize));
    out.ptx.resize(ptxSize);
    FP8C_NVRTC_TRY(out, nvrtcGetPTX(guard.prog, out.ptx.data()));
    while (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  }
}

// --- the child's reply on the wire ---------------------------------------------------------

constexpr uint64_t kWireBegin = 0x31454c4950433846ull; // "F8CPILE1"
constexpr uint64_t kWireEnd = 0x454e4f44454c4946ull;   // "FILEDONE"

void putU64(std::string &s, uint64_t v) { s.append(reinterpret_cast<const char *>(&v), 8); }
void putStr(std::string &s, const std::string &v) {
  putU64(s, v.size());
  s += v;
}

std::string serialize(const ChildResult &r) {
  std::string s;
  putU64(s, kWireBegin);
  putStr(s, r.failedCall);
  putU64(s, static_cast<uint64_t>(r.nvrtcCode));
  putU64(s, r.compileFailed ? 1 : 0);
  putStr(s, r.log);
  putStr(s, r.cubin);
  putStr(s, r.ptx);
  putU64(s, kWireEnd);
  return s;
}

struct WireReader {
  std::string_view in;
  bool ok = true;
  uint64_t u64() {
    if (in.size() < 8) {
      ok = false;
      return 0;
    }
    uint64_t v;
    std::memcpy(&v, in.data(), 8);
    in.remove_prefix(8);
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (!ok || n > in.size()) {
      ok = false;
      return {};
    }
    std::string v(in.substr(0, n));
    in.remove_prefix(n);
    return v;
  }
};

bool deserialize(std::string_view bytes, ChildResult &r) {
  WireReader w{bytes};
  if (w.u64() != kWireBegin)
    return false;
  r.failedCall = w.str();
  r.nvrtcCode = static_cast<int>(w.u64());
  r.compileFailed = w.u64() != 0;
  r.log = w.str();
  r.cubin = w.str();
  r.ptx = w.str();
  return w.ok && w.u64() == kWireEnd && w.ok && w.in.empty();
}

bool writeAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Closes every descriptor but 0-2 and `keep`, so that this child does not hold other
// compilations' pipes open (which would delay their EOF).
void closeOtherFds(int keep) {
  long maxFd = ::sysconf(_SC_OPEN_MAX);
  if (maxFd < 0 || maxFd > 65536)
    maxFd = 65536;
  for (int fd = 3; fd < maxFd; ++fd)
    if (fd != keep)
      ::close(fd);
}

[[noreturn]] void childMain(const NvrtcRequest &req, int writeFd) {
  closeOtherFds(writeFd);
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore); // a crashing compiler leaves no core file behind
  // NVRTC 13 keeps its own compilation cache in the driver's compute cache when a driver is
  // present; a hit there skips ptxas, and with it the ptxas report we parse (registers,
  // spills). fp8c has its own cache, and this child must not initialize CUDA after a fork
  // anyway: turn NVRTC's off. (Only here: the child is single-threaded and the setting dies
  // with it.)
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  if (envIsOne("FP8C_TEST_NVRTC_CRASH")) {
    // Test only: die the way NVRTC 13.0 did, whatever handler the parent installed.
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
  }
  ChildResult r;
  compileHere(req, r);
  _exit(writeAll(writeFd, serialize(r)) ? 0 : 3);
}

// Runs compileHere in a child. Returns "" and fills `out`, or the reason the child failed
// ("crashed (signal 11)", ...).
std::string runInChild(const NvrtcRequest &req, ChildResult &out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return std::string("could not create a pipe: ") + std::strerror(errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return std::string("could not fork: ") + std::strerror(e);
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(req, fds[1]);
  }
  ::close(fds[1]);
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  const bool complete = deserialize(bytes, out);
  if (waited == pid) {
    if (WIFSIGNALED(status))
      return "crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !complete)
      return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  // waitpid can fail with ECHILD when the application ignores SIGCHLD; then the reply's end
  // marker tells whether the child finished.
  if (!complete)
    return "died without a complete reply";
  return "";
}

std::string sanitizeName(const std::string &name) {
  std::string s = name.empty() ? std::string("kernel") : name;
  for (char &c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      c = '_';
  return s;
}

bool writeFile(const fs::path &path, std::string_view data) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(f);
}

// A fresh directory under the temp dir, mode 0700 with a unique name (mkdtemp), named
// <temp>/fp8c-<what>-XXXXXX; "" when none can be made.
std::string freshPrivateTempDir(const std::string &what) {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  std::string tmpl = ((ec ? fs::path("/tmp") : tmp) / ("fp8c-" + what + "-XXXXXX")).string();
  return ::mkdtemp(tmpl.data()) ? tmpl : std::string();
}

// <temp>/fp8c-<uid>, a directory only this user may use: created mode 0700 when absent, and
// used only when it is a real directory (not a link) owned by this user that no one else may
// enter, since anyone may have created that name first. Else a fresh private directory (no
// reuse across processes, but nothing another user planted). "" when none can be made.
std::string privateTempDir() {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  const uid_t uid = ::geteuid();
  const std::string dir =
      ((ec ? fs::path("/tmp") : tmp) / ("fp8c-" + std::to_string(uid))).string();
  ::mkdir(dir.c_str(), 0700);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
      (st.st_mode & 077) == 0)
    return dir;
  return freshPrivateTempDir(std::to_string(uid));
}

// Writes a failing source where the request says (the kernel cache's failed/, created mode
// 0700 where it is new), else into a fresh private directory under the temp dir: never a
// fixed path there, which another user could have made first.
std::string dumpFailedSource(const NvrtcRequest &req) {
  std::string dir = req.failedSourceDir;
  if (dir.empty())
    if (std::string cache = defaultKernelCacheDir(); !cache.empty())
      dir = cache + "/failed";
  std::string path;
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(fs::path(dir).parent_path(), ec);
    ::mkdir(dir.c_str(), 0700);
    path = dumpKernelSource(req, dir);
  }
  if (path.empty())
    if (std::string fresh = freshPrivateTempDir("failed"); !fresh.empty())
      path = dumpKernelSource(req, fresh);
  return path.empty() ? std::string("<could not be written>") : path;
}

std::string includeHint(const std::string &log) {
  if (log.find("open source file \"cuda_") == std::string::npos)
    return "";
  return "\nhint: NVRTC " + nvrtcVersionString() +
         " has no built-in cuda_fp8.h / cuda_bf16.h; set $CUDA_HOME to a CUDA toolkit whose "
         "include/ holds them" +
         (cudaIncludeDir().empty() ? std::string(" (none found)") : std::string());
}

int64_t numberBefore(std::string_view line, std::string_view suffix) {
  size_t at = line.find(suffix);
  if (at == std::string_view::npos)
    return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ')
    --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1])))
    --begin;
  if (begin == end)
    return -1;
  return std::stoll(std::string(line.substr(begin, end - begin)));
}

} // namespace

bool NvrtcResult::hasSpills() const {
  for (const PtxasEntryInfo &e : entries)
    if (e.spillStoreBytes > 0 || e.spillLoadBytes > 0)
      return true;
  return false;
}

std::string nvrtcVersionString() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
      return std::string("unknown");
    return std::to_string(major) + "." + std::to_string(minor);
  }();
  return version;
}

std::string cudaIncludeDir() {
  std::vector<std::string> candidates;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = envOr(var);
    if (!root.empty())
      candidates.push_back(root + "/include");
  }
  candidates.push_back(FP8C_CUDA_INCLUDE_DIR);
  candidates.push_back("/usr/local/cuda/include");
  for (const std::string &dir : candidates) {
    std::error_code ec;
    if (!dir.empty() && fs::exists(fs::path(dir) / "cuda_fp8.h", ec))
      return dir;
  }
  return "";
}

std::vector<std::string> nvrtcKeyOptions(const NvrtcRequest &req) {
  std::vector<std::string> opts = {"--std=c++17", "--gpu-architecture=" + req.arch, "-lineinfo",
                                   "--ptxas-options=-v"};
  opts.insert(opts.end(), req.extraOptions.begin(), req.extraOptions.end());
  return opts;
}

std::vector<std::string> nvrtcOptions(const NvrtcRequest &req) {
  std::vector<std::string> opts = nvrtcKeyOptions(req);
  std::string include = cudaIncludeDir();
  if (!include.empty())
    opts.insert(opts.begin() + 4, "-I" + include);
  return opts;
}

std::vector<PtxasEntryInfo> parsePtxasLog(std::string_view log) {
  std::vector<PtxasEntryInfo> entries;
  bool inEntryProperties = false;
  while (!log.empty()) {
    size_t eol = log.find('\n');
    std::string_view line = log.substr(0, eol);
    log.remove_prefix(eol == std::string_view::npos ? log.size() : eol + 1);
    if (size_t at = line.find("Compiling entry function '"); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + 26);
      entries.push_back({});
      entries.back().entry = std::string(rest.substr(0, rest.find('\'')));
      inEntryProperties = false;
      continue;
    }
    if (entries.empty())
      continue;
    PtxasEntryInfo &e = entries.back();
    if (size_t at = line.find("Function properties for "); at != std::string_view::npos) {
      std::string_view fn = line.substr(at + 24);
      while (!fn.empty() && (fn.back() == ' ' || fn.back() == '\r'))
        fn.remove_suffix(1);
      inEntryProperties = fn == e.entry;
      continue;
    }
    if (line.find("bytes stack frame") != std::string_view::npos) {
      // Spills of a non-inlined callee count against the entry being compiled.
      if (inEntryProperties)
        e.stackFrameBytes = std::max<int64_t>(0, numberBefore(line, "bytes stack frame"));
      e.spillStoreBytes += std::max<int64_t>(0, numberBefore(line, "bytes spill stores"));
      e.spillLoadBytes += std::max<int64_t>(0, numberBefore(line, "bytes spill loads"));
      continue;
    }
    if (line.find("Used ") != std::string_view::npos &&
        line.find(" registers") != std::string_view::npos) {
      e.registers = static_cast<int>(std::max<int64_t>(0, numberBefore(line, "registers")));
      e.sharedBytes = std::max<int64_t>(0, numberBefore(line, "bytes smem"));
    }
  }
  return entries;
}

std::string defaultKernelCacheDir() {
  std::string dir = envOr("FP8C_CACHE_DIR");
  if (!dir.empty())
    return dir;
  std::string home = envOr("HOME");
  if (!home.empty())
    return home + "/.cache/fp8c";
  // No $HOME: the account's home directory, else a directory of this user's own under the
  // temp dir (a shared name there could hold another user's CUBINs).
  std::vector<char> buf(16384);
  struct passwd pw {};
  struct passwd *found = nullptr;
  if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found &&
      found->pw_dir && found->pw_dir[0] == '/')
    return std::string(found->pw_dir) + "/.cache/fp8c";
  std::string tmp = privateTempDir();
  return tmp.empty() ? std::string() : tmp + "/cache";
}

std::string dumpKernelSource(const NvrtcRequest &req, const std::string &dir) {
  fs::path root(dir);
  for (const EmbeddedHeader &h : embeddedHeaders())
    writeFile(root / "include" / std::string(h.name), h.contents);
  fs::path path = root / (sanitizeName(req.kernelName) + ".cu");
  return writeFile(path, req.source) ? path.string() : std::string();
}

Expected<NvrtcResult> compileWithNvrtc(const NvrtcRequest &req) {
  auto start = std::chrono::steady_clock::now();
  if (std::string dumpDir = envOr("FP8C_DUMP_CUDA"); !dumpDir.empty())
    dumpKernelSource(req, dumpDir);

  ChildResult child;
  if (envIsOne("FP8C_NVRTC_NO_FORK")) {
    compileHere(req, child);
  } else if (std::string failure = runInChild(req, child); !failure.empty()) {
    std::string path = dumpFailedSource(req);
    if (failure.rfind("crashed", 0) == 0)
      return Error("NVRTC " + failure + " compiling kernel '" + req.kernelName +
                   "'; source written to " + path + " (NVRTC " + nvrtcVersionString() + ", " +
                   req.arch + ")");
    return Error("NVRTC child process " + failure + " compiling kernel '" + req.kernelName +
                 "'; source written to " + path);
  }

  if (child.compileFailed || !child.failedCall.empty()) {
    std::string path = dumpFailedSource(req);
    std::string what =
        child.compileFailed
            ? "NVRTC failed to compile kernel '" + req.kernelName + "' for " + req.arch
            : child.failedCall + " failed for kernel '" + req.kernelName + "'";
    return Error(what + ": " + nvrtcGetErrorString(static_cast<nvrtcResult>(child.nvrtcCode)) +
                 "; source written to " + path + "\nNVRTC log:\n" + child.log +
                 includeHint(child.log));
  }

  NvrtcResult result;
  result.cubin.assign(child.cubin.begin(), child.cubin.end());
  result.ptx = std::move(child.ptx);
  result.log = std::move(child.log);
  result.entries = parsePtxasLog(result.log);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace fp8c
