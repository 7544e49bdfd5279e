// NVRTC (no GPU needed) compiles to CUBIN for sm_90a every generated sm90 GEMM kernel that
// compile() prepares for the examples' GEMM steps with backend=generated, as the GPU tests
// (GpuGemmBackendTest.cpp) build them, through the kernel cache. FP8C_GEMM_PRECOMPILE=all widens
// it to every example x recipe at M = 1, 37 and 8192 and the odd shape of the auto test: with
// FP8C_CACHE_DIR pointing at a directory carried to the GPU, that warms its kernel cache.
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "driver/Compile.h"
#include "runtime/gpu/GemmSm90Step.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace fp8c {
namespace {

std::string readExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string oddLinear() {
  return R"(
func.func @odd(%x: tensor<?x4101xbf16>, %w: tensor<3001x4101xbf16>, %b: tensor<3001xbf16>) -> tensor<?x3001xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x4101xbf16>, tensor<3001x4101xbf16>, tensor<3001xbf16>) -> tensor<?x3001xbf16>
  return %y : tensor<?x3001xbf16>
}
)";
}

struct Case {
  std::string text, recipe;
  bool staticWeights;
  int64_t maxM;
};

TEST(GemmBackendCompile, GeneratedGemmKernelsOfTheExamplesCompileForSm90a) {
  const char *env = std::getenv("FP8C_GEMM_PRECOMPILE");
  const bool all = env && std::string(env) == "all";
  std::vector<Case> cases;
  for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"})
    cases.push_back({readExample("mlp.mlir"), recipe, false, 8192});
  if (all) {
    for (const char *file : {"linear.mlir", "mlp.mlir", "swiglu_mlp.mlir", "linear_residual.mlir"})
      for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"})
        cases.push_back({readExample(file), recipe, false, 37});
    cases.push_back({readExample("mlp.mlir"), "tensorwise", true, 37});
    for (const char *recipe : {"rowwise", "tensorwise"})
      cases.push_back({oddLinear(), recipe, false, 4097});
  }
  Device h200;
  h200.ccMajor = 9;
  h200.arch = "sm_90a";
  h200.smCount = 132; // H200 SXM: the tile choice depends on it
  std::set<std::string> done;
  const auto t0 = std::chrono::steady_clock::now();
  for (const Case &c : cases) {
    DiagnosticEngine diag;
    std::unique_ptr<Module> m = parseModule(c.text, "<test>", diag);
    ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
    CompileOptions o;
    o.passes = "shape-infer,canonicalize,quantize{recipe=" + c.recipe +
               (c.staticWeights ? " weights=static" : "") + "},canonicalize,cse,fuse,dce";
    o.backend = GemmBackend::Generated;
    o.arch = "sm_90a";
    Expected<CompiledGraph> cg = compileToPlan(*m->graphs()[0], o);
    ASSERT_TRUE(cg.hasValue()) << cg.error();
    for (const auto *steps : {&cg->plan.loadSteps, &cg->plan.steps}) {
      if (all) // the elementwise launches too, as Executable compiles them
        for (const GeneratedLaunch *g : launchesOf(*steps)) {
          NvrtcRequest req;
          req.kernelName = g->kernelName;
          req.source = g->source;
          req.extraOptions = g->nvrtcOptions;
          req.arch = "sm_90a";
          Expected<std::shared_ptr<const CachedKernel>> k = KernelCache::global().get(req);
          ASSERT_TRUE(k.hasValue()) << g->kernelName << ": " << k.error();
        }
      for (const Step &s : *steps) {
        const auto *g = std::get_if<GemmStep>(&s);
        if (!g)
          continue;
        Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(*g, cg->plan, c.maxM, h200);
        ASSERT_TRUE(ks.hasValue()) << ks.error();
        for (const GemmSm90Spec &k : *ks) {
          if (!done.insert(k.name()).second)
            continue;
          Expected<std::shared_ptr<const CachedKernel>> ck =
              KernelCache::global().get(gemmSm90Request(k, "sm_90a"));
          ASSERT_TRUE(ck.hasValue()) << k.name() << ": " << ck.error();
          EXPECT_FALSE((*ck)->cubin.empty()) << k.name();
        }
      }
    }
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ gemm backend ] " << done.size() << " generated GEMM kernels ready in " << s
            << " s (" << (all ? "all cases" : "mlp x recipes at M <= 8192") << ")\n";
}

} // namespace
} // namespace fp8c
