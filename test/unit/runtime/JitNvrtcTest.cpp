// NVRTC wrapper (runtime/jit/Nvrtc.h), on the CPU: CUBINs for sm_90a and sm_89 with the ptxas
// report parsed, the embedded headers and the toolkit's cuda_fp8.h reachable, compile errors
// carrying the log and the dumped source, and a compiler crash (simulated with the test-only
// FP8C_TEST_NVRTC_CRASH) turned into an error while this process lives on.
#include "runtime/jit/Nvrtc.h"

#include "codegen/EmbeddedHeaders.h"

#include "unit/support/TempFiles.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fp8c {
namespace {

namespace fs = std::filesystem;

/// Sets an environment variable for one scope, restoring the old value after.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

// Registers the root's removal before the tests start.
const std::filesystem::path kTempRoot = testfiles::tempRoot("fp8c-jit");
std::string tempDir(const std::string &name) { return testfiles::tempDir("fp8c-jit", name); }
using testfiles::readFile;

// A bf16 -> e4m3 scaling kernel through the toolkit's cuda_fp8.h / cuda_bf16.h, with a static
// shared-memory array so that the smem figure is non-zero.
const char *kScaleKernel = R"(
#include <cuda_bf16.h>
#include <cuda_fp8.h>
extern "C" __global__ void fp8c_test_scale(const __nv_bfloat16 *x, __nv_fp8_e4m3 *y, float s,
                                           long long n) {
  __shared__ float tile[256];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? __bfloat162float(x[i]) * s : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = __nv_fp8_e4m3(tile[(threadIdx.x + 1) % blockDim.x]);
}
)";

NvrtcRequest scaleRequest(const std::string &arch) {
  NvrtcRequest req;
  req.kernelName = "fp8c_test_scale_" + arch;
  req.source = kScaleKernel;
  req.arch = arch;
  req.failedSourceDir = tempDir("failed-" + arch);
  return req;
}

class JitNvrtcArch : public testing::TestWithParam<const char *> {};

TEST_P(JitNvrtcArch, CompilesToCubinWithPtxasReport) {
  Expected<NvrtcResult> r = compileWithNvrtc(scaleRequest(GetParam()));
  ASSERT_TRUE(r) << r.error();
  EXPECT_GT(r->cubin.size(), 256u);
  // An ELF image.
  EXPECT_EQ(std::string(r->cubin.data(), 4), "\x7f"
                                             "ELF");
  ASSERT_EQ(r->entries.size(), 1u) << r->log;
  const PtxasEntryInfo &e = r->entries[0];
  EXPECT_EQ(e.entry, "fp8c_test_scale");
  EXPECT_GT(e.registers, 0) << r->log;
  EXPECT_EQ(e.sharedBytes, 1024) << r->log;
  EXPECT_EQ(e.spillStoreBytes, 0);
  EXPECT_EQ(e.spillLoadBytes, 0);
  EXPECT_FALSE(r->hasSpills());
  EXPECT_NE(r->log.find(std::string("for '") + GetParam() + "'"), std::string::npos) << r->log;
  EXPECT_TRUE(r->ptx.empty()) << "PTX only when asked for";
  std::printf("[ NVRTC    ] %s: %zu-byte CUBIN, %d registers, %.3f s (fork included)\n", GetParam(),
              r->cubin.size(), e.registers, r->seconds);
}

INSTANTIATE_TEST_SUITE_P(Archs, JitNvrtcArch, testing::Values("sm_90a", "sm_89"));

TEST(JitNvrtc, PtxWhenAsked) {
  NvrtcRequest req = scaleRequest("sm_90a");
  req.wantPtx = true;
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_TRUE(r) << r.error();
  EXPECT_NE(r->ptx.find(".entry fp8c_test_scale"), std::string::npos);
  EXPECT_NE(r->ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_FALSE(r->cubin.empty());
}

TEST(JitNvrtc, EmbeddedHeadersComeFromMemory) {
  ASSERT_FALSE(embeddedHeaders().empty());
  NvrtcRequest req;
  req.kernelName = "fp8c_test_embedded";
  req.arch = "sm_90a";
  req.failedSourceDir = tempDir("failed-embedded");
  req.source = "#include \"" + std::string(embeddedHeaders()[0].name) + "\"\n" +
               "extern \"C\" __global__ void fp8c_test_embedded(float *p) { p[threadIdx.x] = "
               "1.0f; }\n";
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->entries[0].entry, "fp8c_test_embedded");
}

TEST(JitNvrtc, OptionsAndIncludeDir) {
  NvrtcRequest req = scaleRequest("sm_89");
  req.extraOptions = {"--fmad=false"};
  std::vector<std::string> opts = nvrtcOptions(req);
  ASSERT_GE(opts.size(), 5u);
  EXPECT_EQ(opts[0], "--std=c++17");
  EXPECT_EQ(opts[1], "--gpu-architecture=sm_89");
  EXPECT_EQ(opts[2], "-lineinfo");
  EXPECT_EQ(opts[3], "--ptxas-options=-v");
  EXPECT_EQ(opts.back(), "--fmad=false");
  std::string include = cudaIncludeDir();
  ASSERT_FALSE(include.empty()) << "this machine has the toolkit";
  EXPECT_TRUE(fs::exists(fs::path(include) / "cuda_fp8.h"));
  EXPECT_EQ(opts[4], "-I" + include);
  // The key's options leave the include path out: moving the toolkit keeps the cache.
  std::vector<std::string> key = nvrtcKeyOptions(req);
  EXPECT_EQ(key.size() + 1, opts.size());
  for (const std::string &o : key)
    EXPECT_NE(o.rfind("-I", 0), 0u) << o;
  EXPECT_EQ(nvrtcVersionString().find('.') != std::string::npos, true) << nvrtcVersionString();
}

TEST(JitNvrtc, CudaHomeIsHonoured) {
  std::string root = tempDir("cuda-home");
  fs::create_directories(fs::path(root) / "include");
  std::ofstream(fs::path(root) / "include" / "cuda_fp8.h") << "// stand-in\n";
  {
    ScopedEnv home("CUDA_HOME", root.c_str());
    EXPECT_EQ(cudaIncludeDir(), root + "/include");
  }
  {
    // A CUDA_HOME without cuda_fp8.h is passed over.
    ScopedEnv home("CUDA_HOME", "/nonexistent-fp8c-cuda-home");
    EXPECT_NE(cudaIncludeDir(), "/nonexistent-fp8c-cuda-home/include");
  }
}

TEST(JitNvrtc, CompileErrorCarriesLogAndSourcePath) {
  NvrtcRequest req;
  req.kernelName = "fp8c_test_broken";
  req.arch = "sm_90a";
  req.failedSourceDir = tempDir("failed-broken");
  req.source = "extern \"C\" __global__ void fp8c_test_broken(float *p) {\n"
               "  p[0] = undeclared_identifier_x;\n}\n";
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_FALSE(r);
  const std::string &msg = r.error();
  EXPECT_NE(msg.find("NVRTC failed to compile kernel 'fp8c_test_broken' for sm_90a"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undeclared_identifier_x"), std::string::npos) << "the log: " << msg;
  std::string path = req.failedSourceDir + "/fp8c_test_broken.cu";
  EXPECT_NE(msg.find("source written to " + path), std::string::npos) << msg;
  EXPECT_EQ(readFile(path), req.source);
  // The embedded headers are written beside it, so the failure reproduces offline.
  if (!embeddedHeaders().empty()) {
    EXPECT_TRUE(fs::exists(fs::path(req.failedSourceDir) / "include" /
                           std::string(embeddedHeaders()[0].name)));
  }
}

// Where the failed-source directory cannot be written, the source goes to a fresh directory
// of this user's own under the temp dir (mode 0700, a unique name), never to a fixed path
// there that another user could have created first.
TEST(JitNvrtc, FailedSourceFallsBackToAFreshPrivateDir) {
  const std::string tmp = tempDir("failed-fallback-tmp");
  ScopedEnv tmpdir("TMPDIR", tmp.c_str());
  NvrtcRequest req;
  req.kernelName = "fp8c_test_fallback";
  req.arch = "sm_90a";
  req.failedSourceDir = "/dev/null/fp8c-failed"; // under a file: cannot be created
  req.source = "this is not CUDA\n";
  std::string paths[2];
  for (std::string &path : paths) {
    Expected<NvrtcResult> r = compileWithNvrtc(req);
    ASSERT_FALSE(r);
    const std::string marker = "source written to ";
    const size_t at = r.error().find(marker);
    ASSERT_NE(at, std::string::npos) << r.error();
    path = r.error().substr(at + marker.size(), r.error().find_first_of(" \n", at + marker.size()) -
                                                    (at + marker.size()));
    const fs::path dir = fs::path(path).parent_path();
    EXPECT_EQ(dir.parent_path(), fs::path(tmp)) << path;
    EXPECT_EQ(dir.filename().string().rfind("fp8c-failed-", 0), 0u) << path;
    EXPECT_NE(dir.filename().string(), "fp8c-failed") << path;
    EXPECT_EQ(fs::path(path).filename(), "fp8c_test_fallback.cu");
    struct stat st {};
    ASSERT_EQ(::lstat(dir.c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u) << std::oct << (st.st_mode & 0777);
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_EQ(readFile(path), req.source);
  }
  EXPECT_NE(paths[0], paths[1]) << "each failure gets its own directory";
}

// Without $FP8C_CACHE_DIR and $HOME the cache (and its failed/) is in the account's home
// directory, not a shared name under the temp dir.
TEST(JitNvrtc, DefaultCacheDirWithoutHomeIsTheAccountsOwn) {
  ScopedEnv cache("FP8C_CACHE_DIR", nullptr);
  ScopedEnv home("HOME", nullptr);
  const std::string dir = defaultKernelCacheDir();
  const struct passwd *pw = ::getpwuid(::geteuid());
  if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
    GTEST_SKIP() << "this account has no home directory in the password database";
  EXPECT_EQ(dir, std::string(pw->pw_dir) + "/.cache/fp8c");
}

TEST(JitNvrtc, MissingToolkitHeaderGetsAHint) {
  NvrtcRequest req;
  req.kernelName = "fp8c_test_missing_header";
  req.arch = "sm_90a";
  req.failedSourceDir = tempDir("failed-missing");
  req.source = "#include <cuda_does_not_exist.h>\n";
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("open source file \"cuda_does_not_exist.h\""), std::string::npos)
      << r.error();
  EXPECT_NE(r.error().find("hint: NVRTC"), std::string::npos) << r.error();
}

TEST(JitNvrtc, CrashBecomesAnErrorNamingTheKernel) {
  NvrtcRequest req = scaleRequest("sm_90a");
  req.kernelName = "fp8c_test_crashing";
  {
    ScopedEnv crash("FP8C_TEST_NVRTC_CRASH", "1");
    Expected<NvrtcResult> r = compileWithNvrtc(req);
    ASSERT_FALSE(r);
    std::string path = req.failedSourceDir + "/fp8c_test_crashing.cu";
    EXPECT_NE(r.error().find("NVRTC crashed (signal 11) compiling kernel 'fp8c_test_crashing'; "
                             "source written to " +
                             path),
              std::string::npos)
        << r.error();
    EXPECT_EQ(readFile(path), req.source);
  }
  // This process lived through it, and compiles again.
  Expected<NvrtcResult> again = compileWithNvrtc(req);
  ASSERT_TRUE(again) << again.error();
  EXPECT_FALSE(again->cubin.empty());
}

TEST(JitNvrtc, DumpCudaWritesEveryCompiledSource) {
  std::string dir = tempDir("dump");
  ScopedEnv dump("FP8C_DUMP_CUDA", dir.c_str());
  NvrtcRequest req = scaleRequest("sm_89");
  ASSERT_TRUE(compileWithNvrtc(req));
  EXPECT_EQ(readFile(dir + "/" + req.kernelName + ".cu"), req.source);
}

TEST(JitNvrtc, InProcessModeForDebugging) {
  ScopedEnv noFork("FP8C_NVRTC_NO_FORK", "1");
  // NVRTC's own cache (active where a driver is) would skip ptxas on a hit: keep it off, as
  // the forked child does. NVRTC reads this once per process, at its first compilation.
  ScopedEnv noNvrtcCache("CUDA_CACHE_DISABLE", "1");
  Expected<NvrtcResult> r = compileWithNvrtc(scaleRequest("sm_89"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->entries.size(), 1u) << r->log;
  EXPECT_FALSE(r->cubin.empty());
}

TEST(JitNvrtc, ParsesPtxasReport) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k_one' for 'sm_90a'\n"
      "ptxas info    : Function properties for k_one\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 49152 bytes smem, 400 bytes "
      "cmem[0]\n"
      "ptxas info    : Compiling entry function 'k_two' for 'sm_90a'\n"
      "ptxas info    : Function properties for helper\n"
      "ptxas         .     32 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Function properties for k_two\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers, 384 bytes cmem[0]\n";
  std::vector<PtxasEntryInfo> e = parsePtxasLog(log);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].entry, "k_one");
  EXPECT_EQ(e[0].registers, 168);
  EXPECT_EQ(e[0].stackFrameBytes, 16);
  EXPECT_EQ(e[0].spillStoreBytes, 8);
  EXPECT_EQ(e[0].spillLoadBytes, 12);
  EXPECT_EQ(e[0].sharedBytes, 49152);
  EXPECT_EQ(e[1].entry, "k_two");
  EXPECT_EQ(e[1].registers, 10);
  EXPECT_EQ(e[1].stackFrameBytes, 0);
  EXPECT_EQ(e[1].spillStoreBytes, 4) << "a callee's spills count against the entry";
  EXPECT_EQ(e[1].sharedBytes, 0);
  NvrtcResult r;
  r.entries = {e[1]};
  EXPECT_TRUE(r.hasSpills());
  r.entries[0].spillStoreBytes = r.entries[0].spillLoadBytes = 0;
  EXPECT_FALSE(r.hasSpills());
}

} // namespace
} // namespace fp8c
