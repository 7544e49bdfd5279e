// Helpers of the lowering tests (CodegenLoweringTest.cpp, CodegenStateTest.cpp): an example's
// text, a quantize-and-fuse pipeline, a graph lowered to its LaunchPlan, and lookups in it.
#pragma once

#include "codegen/Lowering.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fp8c {
namespace loweringtest {

inline std::string readExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name + ".mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string pipeline(const std::string &recipe, const std::string &weights = "dynamic") {
  if (recipe.empty())
    return "shape-infer,canonicalize,fuse,dce";
  return "shape-infer,canonicalize,quantize{recipe=" + recipe + " weights=" + weights +
         "},canonicalize,cse,fuse,dce";
}

// Parses `text`, runs `pipe` and keeps the module alive for the plan's lifetime.
struct Lowered {
  std::unique_ptr<Module> module;
  LaunchPlan plan;
};

inline Lowered lower(const std::string &text, const std::string &pipe,
                     const std::string &arch = "sm_90a", GemmBackend backend = GemmBackend::Auto) {
  Lowered l;
  DiagnosticEngine diag;
  l.module = parseModule(text, "test.mlir", diag);
  EXPECT_TRUE(l.module && verifyModule(*l.module, diag)) << diag.str();
  if (!l.module)
    return l;
  PassManager pm;
  EXPECT_TRUE(pm.parsePipeline(pipe, PipelineDefaults{backend}).isOk()); // fuse plans for it
  EXPECT_TRUE(pm.run(*l.module, diag)) << diag.str();
  CodegenOptions o;
  o.arch = arch;
  Expected<LaunchPlan> p = lowerGraph(*l.module->graphs()[0], o);
  EXPECT_TRUE(p.hasValue()) << (p ? "" : p.error());
  if (p)
    l.plan = p.take();
  return l;
}

inline int find(const LaunchPlan &p, const std::string &name) {
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].name == name)
      return static_cast<int>(i);
  ADD_FAILURE() << "no buffer %" << name;
  return -1;
}

/// The steps of kind T (GeneratedLaunch or GemmStep), in order.
template <class T> std::vector<const T *> stepsOf(const std::vector<Step> &steps) {
  std::vector<const T *> out;
  for (const Step &s : steps)
    if (const auto *x = std::get_if<T>(&s))
      out.push_back(x);
  return out;
}

inline std::vector<const GeneratedLaunch *> launches(const std::vector<Step> &steps) {
  return stepsOf<GeneratedLaunch>(steps);
}

inline std::vector<const GemmStep *> gemms(const std::vector<Step> &steps) {
  return stepsOf<GemmStep>(steps);
}

} // namespace loweringtest
} // namespace fp8c
