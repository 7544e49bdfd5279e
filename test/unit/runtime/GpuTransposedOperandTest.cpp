// On a GPU: GEMMs on transposed operands against the interpreter. Unquantized, cuBLASLt reads
// each transposed bf16 operand in place (TRANSA / TRANSB, no transpose launch); with a
// tensorwise recipe the same graph casts and transposes the FP8 copies instead (the
// cast-of-a-transposed-activation case, whose scale is computed in the kernel that casts).
#include "unit/runtime/GpuTestSupport.h"
#include "unit/runtime/TransposedOperands.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <iostream>

namespace fp8c {
namespace {

using namespace gputest;

class GpuTransposedOperandTest : public ::testing::TestWithParam<const char *> {};

TEST_P(GpuTransposedOperandTest, MatchesInterpreter) {
  FP8C_REQUIRE_GPU();
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(testgraphs::kTransposedOperands, "<test>", diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  const std::string recipe = GetParam();
  CompileOptions o;
  // No CSE: %z and %v (the same product) stay two outputs of their own names.
  o.passes = recipe == "none" ? "shape-infer,fuse,dce"
                              : "shape-infer,canonicalize,quantize{recipe=" + recipe +
                                    "},canonicalize,fuse,dce";
  Expected<std::unique_ptr<Executable>> exe = compile(*mod->graphs()[0], o);
  ASSERT_TRUE(exe.hasValue()) << exe.error();
  std::map<std::string, HostTensor> in = inputsFor(**exe, 5, 0);
  std::map<std::string, HostTensor> gpu = runOnDevice(**exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu((*exe)->graph(), in);
  for (const std::string &name : (*exe)->outputNames()) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    // Unquantized: f32 sums in another order, one bf16 rounding (~4e-3 relative at most);
    // tensorwise: an FP8 rounding can flip too (the examples' 2e-2). A transposed operand read
    // in the wrong layout gives O(1). (Compare.h's bounds, the largest element's included.)
    const testcmp::Comparison cmp = testcmp::compare(gpu[name], cpu[name]);
    const double rel = cmp.relFrobenius();
    EXPECT_TRUE(
        cmp.within(recipe == "none" ? testcmp::kBf16VsInterpreter : testcmp::kFp8VsInterpreter))
        << recipe << " output " << name;
    std::cout << "[ transposed ] " << recipe << " '" << name << "': relative error " << rel
              << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Recipes, GpuTransposedOperandTest,
                         ::testing::Values("none", "tensorwise", "delayed"));

} // namespace
} // namespace fp8c
