// On a GPU: unquantized (bf16) Linears whose K or N is not a multiple of 8 against the
// interpreter. Their operands are copied into padded temporaries with zero pad columns, and
// cuBLASLt runs with K rounded up to 8 over them (GemmStep::kPadsZero); the weight and the
// bias are copied with N rounded up to 8 and zeros after, and cuBLASLt runs that N
// (GemmStep::nPadded), its extra D columns landing in D's pitch. Without them cuBLASLt has
// only kernels without tensor cores for such K or N (3012.7 us at M 8192 K 4101 N 4096, 988 us
// at M 4097 K 4104 N 3001 on an H200). The extra products are 0 * 0, so the result is the
// K-term GEMM's; a pad that was not zero would show as an O(1) error. Outputs are poisoned (NaN);
// the comparisons bound the largest element error too (Compare.h), so that one wrong column of
// N (the padded one) cannot hide under the Frobenius norm.
#include "unit/runtime/GpuTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <fmt/format.h>

#include <iostream>

namespace fp8c {
namespace {

using namespace gputest;

struct OddK {
  int64_t m, k, n;
};

class GpuOddKGemmTest : public ::testing::TestWithParam<OddK> {};

TEST_P(GpuOddKGemmTest, MatchesInterpreter) {
  FP8C_REQUIRE_GPU();
  const OddK c = GetParam();
  const std::string text = fmt::format(R"(
func.func @odd(%x: tensor<?x{k}xbf16>, %w: tensor<{n}x{k}xbf16>, %b: tensor<{n}xbf16>) -> tensor<?x{n}xbf16> {{
  %y = fp8.linear %x, %w, %b : (tensor<?x{k}xbf16>, tensor<{n}x{k}xbf16>, tensor<{n}xbf16>) -> tensor<?x{n}xbf16>
  return %y : tensor<?x{n}xbf16>
}}
)",
                                       fmt::arg("k", c.k), fmt::arg("n", c.n));
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(text, "<test>", diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  CompileOptions o;
  o.passes = "shape-infer,canonicalize,fuse,dce";
  o.load.maxTokens = c.m;
  Expected<std::unique_ptr<Executable>> exe = compile(*mod->graphs()[0], o);
  ASSERT_TRUE(exe.hasValue()) << exe.error();
  bool kRounded = false, nRounded = false;
  for (const Step &st : (*exe)->plan().steps)
    if (const auto *g = std::get_if<GemmStep>(&st)) {
      kRounded |= g->kPadsZero;
      nRounded |= g->nPadded == (c.n + 7) / 8 * 8;
    }
  EXPECT_EQ(kRounded, c.k % 8 != 0) << "K " << c.k;
  EXPECT_EQ(nRounded, c.n % 8 != 0) << "N " << c.n;
  std::map<std::string, HostTensor> in = inputsFor(**exe, 23, c.m);
  std::map<std::string, HostTensor> gpu = runOnDevice(**exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu((*exe)->graph(), in);
  ASSERT_TRUE(gpu.count("y") && cpu.count("y"));
  // f32 sums in another order and one bf16 rounding: ~4e-3 relative at most.
  const testcmp::Comparison cmp = testcmp::compare(gpu["y"], cpu["y"]);
  const double rel = cmp.relFrobenius();
  EXPECT_TRUE(cmp.within(testcmp::kBf16VsInterpreter)) << c.m << " x " << c.k << " x " << c.n;
  std::cout << "[ odd K ] M " << c.m << " K " << c.k << " N " << c.n << ": relative error " << rel
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuOddKGemmTest,
                         ::testing::Values(OddK{1, 7, 64}, OddK{37, 100, 100}, OddK{1000, 4101, 256},
                                           OddK{256, 3, 40}, OddK{300, 104, 72},
                                           OddK{64, 4101, 3001}, OddK{256, 64, 13},
                                           OddK{5, 64, 1}),
                         [](const auto &info) {
                           return fmt::format("m{}_k{}_n{}", info.param.m, info.param.k,
                                              info.param.n);
                         });

// FP8 (tensor, row and 128-block scales) with an N cuBLASLt refuses: the FP8 weight and the
// bias are copied with N rounded up to 16 where D's pitch holds it (N 3001: D pitch 3008), row
// scales of the weight get zeros after N, and cuBLASLt runs it; N 100
// (D pitch 104 < 112) keeps the generated GEMM. With weights=static the weight's padded copy is
// made at load and must survive the runs (zeroed once, at load; before the fix the per-run
// zeroing wiped it and D was the bias alone). Against the interpreter within the examples' FP8
// tolerance.
class GpuOddNFp8Test
    : public ::testing::TestWithParam<std::tuple<const char *, int64_t, const char *>> {};

TEST_P(GpuOddNFp8Test, MatchesInterpreter) {
  FP8C_REQUIRE_GPU();
  const auto [recipe, n, weights] = GetParam();
  const int64_t m = 64, k = 4101;
  const std::string text = fmt::format(R"(
func.func @odd(%x: tensor<?x{k}xbf16>, %w: tensor<{n}x{k}xbf16>, %b: tensor<{n}xbf16>) -> tensor<?x{n}xbf16> {{
  %y = fp8.linear %x, %w, %b : (tensor<?x{k}xbf16>, tensor<{n}x{k}xbf16>, tensor<{n}xbf16>) -> tensor<?x{n}xbf16>
  return %y : tensor<?x{n}xbf16>
}}
)",
                                       fmt::arg("k", k), fmt::arg("n", n));
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(text, "<test>", diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  CompileOptions o;
  o.passes = std::string("shape-infer,canonicalize,quantize{recipe=") + recipe +
             " weights=" + weights + "},canonicalize,cse,fuse,dce";
  o.load.maxTokens = m;
  Expected<std::unique_ptr<Executable>> exe = compile(*mod->graphs()[0], o);
  ASSERT_TRUE(exe.hasValue()) << exe.error();
  int64_t padded = -1;
  for (const Step &st : (*exe)->plan().steps)
    if (const auto *g = std::get_if<GemmStep>(&st))
      padded = g->nPadded;
  EXPECT_EQ(padded, n == 3001 ? 3008 : 0);
  std::map<std::string, HostTensor> in = inputsFor(**exe, 29, m);
  std::map<std::string, HostTensor> cpu = runOnCpu((*exe)->graph(), in);
  ASSERT_TRUE(cpu.count("y"));
  // Static weights: a second run after the load reads the same padded copy. (Delayed scaling
  // runs once: its amax history, and with it the scales, move on after each run, while the
  // interpreter starts from a fresh state.)
  const int runs = std::string(recipe) == "delayed" ? 1 : 2;
  for (int run = 0; run < runs; ++run) {
    std::map<std::string, HostTensor> gpu = runOnDevice(**exe, in, nullptr);
    ASSERT_TRUE(gpu.count("y"));
    const testcmp::Comparison cmp = testcmp::compare(gpu["y"], cpu["y"]);
    const double rel = cmp.relFrobenius();
    EXPECT_TRUE(cmp.within(testcmp::kFp8VsInterpreter))
        << recipe << " N " << n << " weights=" << weights << " run " << run;
    std::cout << "[ odd N FP8 ] " << recipe << " N " << n << " weights=" << weights << " run "
              << run << ": relative error " << rel << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Recipes, GpuOddNFp8Test,
                         ::testing::Combine(::testing::Values("tensorwise", "delayed", "rowwise",
                                                              "blockwise"),
                                            ::testing::Values(int64_t(3001), int64_t(100)),
                                            ::testing::Values("dynamic", "static")),
                         [](const auto &info) {
                           return fmt::format("{}_n{}_{}", std::get<0>(info.param),
                                              std::get<1>(info.param), std::get<2>(info.param));
                         });

} // namespace
} // namespace fp8c
