// NVRTC compiles every generated launch (in CI too, which has no GPU): for every
// example x recipe x {weights=dynamic, weights=static}, plus graphs that exercise the other
// kernel templates (transpose, cast-transpose, pointwise chains, column amax, unaligned K),
// each launch of the lowered plan is compiled to CUBIN for sm_90a and sm_89 with the options it
// asks for. Fails on a compile error, a local-memory spill or a stack frame in ptxas's report;
// prints how many launches compiled per arch.
//
// Launches whose source differs only in its entry name and comments are compiled once per arch
// (the examples share most of them); FP8C_COMPILE_ALL=1 compiles every one.
#include "codegen/Lowering.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "passes/TrainingPipeline.h"
#include "runtime/jit/Nvrtc.h"
#include "unit/codegen/NvrtcTestSupport.h"
#include "unit/support/RecipeTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fp8c {
namespace {

std::string readFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Case {
  std::string name, text, pipeline;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::string ex : {"linear", "mlp", "swiglu_mlp", "linear_residual"}) {
    std::string text = readFile(std::string(FP8C_SOURCE_DIR) + "/examples/" + ex + ".mlir");
    for (std::string r : {"tensorwise", "delayed", "rowwise", "blockwise"})
      for (std::string w : {"dynamic", "static"})
        out.push_back({ex + " " + r + " weights=" + w, text,
                       "shape-infer,canonicalize,quantize{recipe=" + r + " weights=" + w +
                           "},canonicalize,cse,fuse,dce"});
    out.push_back({ex + " unquantized", text, "shape-infer,canonicalize,fuse,dce"});
  }
  const std::string fuse = "shape-infer,canonicalize,fuse,dce";
  out.push_back({"odd shapes", R"(
func.func @odd(%x: tensor<?x100xbf16>, %w: tensor<100x100xbf16>, %b: tensor<100xbf16>) -> tensor<?x100xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x100xbf16>, tensor<100x100xbf16>, tensor<100xbf16>) -> tensor<?x100xbf16>
  return %y : tensor<?x100xbf16>
})",
                 "shape-infer,canonicalize,quantize{recipe=blockwise},canonicalize,cse,fuse,dce"});
  out.push_back({"odd shapes unquantized", R"(
func.func @odd(%x: tensor<?x100xbf16>, %w: tensor<100x100xbf16>) -> tensor<?x100xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x100xbf16>, tensor<100x100xbf16>) -> tensor<?x100xbf16>
  return %y : tensor<?x100xbf16>
})",
                 fuse});
  out.push_back({"prequantized operands", R"(
func.func @preq(%a: tensor<?x100xf8E4M3FN>, %b: tensor<64x100xf8E4M3FN>, %sa: tensor<?xf32>, %sb: tensor<64xf32>) -> tensor<?x64xbf16> {
  %y = fp8.scaled_matmul %a, %b, %sa, %sb {out = bf16} : (tensor<?x100xf8E4M3FN>, tensor<64x100xf8E4M3FN>, tensor<?xf32>, tensor<64xf32>) -> tensor<?x64xbf16>
  %r = fp8.relu %y : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %r : tensor<?x64xbf16>
})",
                 fuse});
  out.push_back({"pointwise chain", R"(
func.func @c(%a: tensor<?x1000xbf16>, %b: tensor<?x1000xbf16>, %s: tensor<bf16>, %q: tensor<?x1000xf8E4M3FN>, %qs: tensor<?xf32>) -> (tensor<?x1000xf16>, tensor<?x1000xf8E5M2>, tensor<?x1000xbf16>) {
  %g = fp8.gelu %a {approximate = "none"} : (tensor<?x1000xbf16>) -> tensor<?x1000xbf16>
  %w = fp8.swiglu %g, %b : (tensor<?x1000xbf16>, tensor<?x1000xbf16>) -> tensor<?x1000xbf16>
  %r = fp8.relu %w : (tensor<?x1000xbf16>) -> tensor<?x1000xbf16>
  %m = fp8.mul %r, %s : (tensor<?x1000xbf16>, tensor<bf16>) -> tensor<?x1000xbf16>
  %c = fp8.convert %m : (tensor<?x1000xbf16>) -> tensor<?x1000xf16>
  %e = fp8.convert %a : (tensor<?x1000xbf16>) -> tensor<?x1000xf8E5M2>
  %d = fp8.dequant %q, %qs {granularity = "row"} : (tensor<?x1000xf8E4M3FN>, tensor<?xf32>) -> tensor<?x1000xbf16>
  %t = fp8.silu %d : (tensor<?x1000xbf16>) -> tensor<?x1000xbf16>
  return %c, %e, %t : tensor<?x1000xf16>, tensor<?x1000xf8E5M2>, tensor<?x1000xbf16>
})",
                 fuse});
  out.push_back({"transposes", R"(
func.func @t(%a: tensor<?x1000xbf16>, %b: tensor<?x1000xbf16>) -> (tensor<1000x?xbf16>, tensor<1000x?xf8E4M3FN>, tensor<f32>, tensor<1000xf32>) {
  %t = fp8.transpose %a : (tensor<?x1000xbf16>) -> tensor<1000x?xbf16>
  %u = fp8.transpose %b : (tensor<?x1000xbf16>) -> tensor<1000x?xbf16>
  %m = fp8.amax %u {granularity = "tensor"} : (tensor<1000x?xbf16>) -> tensor<f32>
  %s = fp8.scale %m {dtype = f8E4M3FN} : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %u, %s {granularity = "tensor"} : (tensor<1000x?xbf16>, tensor<f32>) -> tensor<1000x?xf8E4M3FN>
  %c = fp8.amax %a {granularity = "col"} : (tensor<?x1000xbf16>) -> tensor<1000xf32>
  return %t, %q, %s, %c : tensor<1000x?xbf16>, tensor<1000x?xf8E4M3FN>, tensor<f32>, tensor<1000xf32>
})",
                 fuse});
  return out;
}

// The source without its entry name and comments: launches equal under this compile alike.
std::string normalized(const GeneratedLaunch &l) {
  std::string s = std::regex_replace(l.source, std::regex("//[^\n]*"), "");
  return std::regex_replace(s, std::regex(l.entry), "ENTRY");
}

TEST(CodegenCompile, EveryLaunchOfEveryExampleAndRecipe) {
  const bool all = std::getenv("FP8C_COMPILE_ALL") != nullptr;
  for (std::string arch : {"sm_90a", "sm_89"}) {
    int launches = 0, compiled = 0, maxRegs = 0;
    double seconds = 0;
    std::set<std::string> seen;
    for (const Case &c : cases()) {
      SCOPED_TRACE(c.name + " " + arch);
      DiagnosticEngine diag;
      std::unique_ptr<Module> m = parseModule(c.text, c.name, diag);
      ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
      PassManager pm;
      ASSERT_TRUE(pm.parsePipeline(c.pipeline).isOk());
      ASSERT_TRUE(pm.run(*m, diag)) << diag.str();
      CodegenOptions opts;
      opts.arch = arch;
      Expected<LaunchPlan> plan = lowerGraph(*m->graphs()[0], opts);
      ASSERT_TRUE(plan.hasValue()) << plan.error();
      for (const auto *steps : {&plan->loadSteps, &plan->steps})
        for (const GeneratedLaunch *l : launchesOf(*steps)) {
          ++launches;
          if (!all && !seen.insert(normalized(*l)).second)
            continue;
          NvrtcRequest req;
          req.kernelName = l->kernelName;
          req.source = l->source;
          req.arch = arch;
          req.extraOptions = l->nvrtcOptions;
          req.wantPtx = true;
          Expected<NvrtcResult> r = compileWithNvrtc(req);
          ASSERT_TRUE(r.hasValue()) << l->kernelName << ": " << r.error();
          ++compiled;
          seconds += r->seconds;
          EXPECT_FALSE(r->hasSpills()) << l->kernelName << " spills:\n" << r->log;
          // Every launch may run as the programmatic dependent of the one before it (and lets
          // the next start): on sm_90 its entry waits for that grid before touching memory.
          const bool pdl = arch == "sm_90a";
          EXPECT_EQ(r->ptx.find("griddepcontrol.wait") != std::string::npos, pdl) << l->kernelName;
          EXPECT_EQ(r->ptx.find("griddepcontrol.launch_dependents") != std::string::npos, pdl)
              << l->kernelName;
          bool entryFound = false;
          for (const PtxasEntryInfo &e : r->entries) {
            EXPECT_EQ(e.stackFrameBytes, 0) << l->kernelName << ":\n" << r->log;
            entryFound |= e.entry == l->entry;
            maxRegs = std::max(maxRegs, e.registers);
          }
          EXPECT_TRUE(entryFound) << l->kernelName << ": no ptxas report for " << l->entry << "\n"
                                  << r->log;
        }
    }
    std::cout << "[ codegen  ] " << arch << ": " << launches << " launches, " << compiled
              << (all ? " compiled" : " distinct sources compiled") << " in " << seconds
              << " s, 0 spills, 0-byte stack frames, at most " << maxRegs << " registers\n";
  }
}

// The training pipeline's forward and backward graphs (passes/TrainingPipeline.h) of every
// example x recipe (none included: the bf16 step) at 256 tokens, and the gelu_saved variants
// (the e4m3 copy written by the GELU cast-transpose on cuBLASLt and with current scaling, the
// bf16 input with delayed): every generated launch (derivative ops, col_sum, FP8 transposes in
// reduce kernels) compiles for sm_90a.
TEST(CodegenCompile, EveryLaunchOfEveryTrainingPipeline) {
  int launches = 0, compiled = 0, byteStaged = 0;
  double seconds = 0;
  std::set<std::string> seen;
  struct Variant {
    std::string recipe, options;
    GemmBackend backend = GemmBackend::Auto;
  };
  std::vector<Variant> variants;
  for (std::string r : {"tensorwise", "delayed", "rowwise", "blockwise", "none"})
    variants.push_back({r, ""});
  variants.push_back({"delayed", "", GemmBackend::CublasLt});
  variants.push_back({"delayed", "gelu_saved=input"});
  variants.push_back({"tensorwise", "gelu_saved=e4m3"});
  for (std::string ex : {"linear", "mlp", "swiglu_mlp", "linear_residual"}) {
    std::string text = readFile(std::string(FP8C_SOURCE_DIR) + "/examples/" + ex + ".mlir");
    for (const Variant &v : variants) {
      const bool lt = v.backend == GemmBackend::CublasLt;
      SCOPED_TRACE(ex + " --train --recipe=" + v.recipe + " --recipe-options='" + v.options +
                   "'" + (lt ? " --backend=cublaslt" : ""));
      DiagnosticEngine diag;
      std::unique_ptr<Module> m = parseModule(text, ex, diag);
      ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
      TrainingPipelineOptions o;
      o.recipe = testRecipe(v.recipe, v.options);
      o.fuseOptions.gemmBackend = v.backend;
      o.tokens = 256;
      Expected<TrainingGraphs> t = buildTrainingGraphs(*m->graphs()[0], o, diag);
      ASSERT_TRUE(t.hasValue()) << (t ? "" : t.error()) << diag.str();
      CodegenOptions co;
      for (const Graph *g : {t->forward.get(), t->backward.get()}) {
        Expected<LaunchPlan> plan = lowerGraph(*g, co);
        ASSERT_TRUE(plan.hasValue()) << g->name() << ": " << plan.error();
        for (const auto *steps : {&plan->loadSteps, &plan->steps})
          for (const GeneratedLaunch *l : launchesOf(*steps)) {
            ++launches;
            if (!seen.insert(normalized(*l)).second)
              continue;
            Expected<NvrtcResult> res = compileLaunchForSm90a(*l);
            ASSERT_TRUE(res.hasValue()) << l->kernelName << ": " << res.error();
            ++compiled;
            byteStaged += l->source.find("kByteStaged = true") != std::string::npos;
            seconds += res->seconds;
            EXPECT_FALSE(res->hasSpills()) << l->kernelName << " spills:\n" << res->log;
            for (const PtxasEntryInfo &e : res->entries)
              EXPECT_EQ(e.stackFrameBytes, 0) << l->kernelName << ":\n" << res->log;
          }
      }
    }
  }
  EXPECT_GT(compiled, 0);
  // The delayed steps' x, weight, dY and gelu_grad cast-transposes take the byte-staged form.
  EXPECT_GT(byteStaged, 0) << "no byte-staged cast-transpose (transpose_bytes.cuh) compiled";
  std::cout << "[ codegen  ] training sm_90a: " << launches << " launches, " << compiled
            << " distinct sources compiled in " << seconds << " s (" << byteStaged
            << " byte-staged cast-transposes)\n";
}

} // namespace
} // namespace fp8c
