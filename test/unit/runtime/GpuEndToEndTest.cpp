// GPU tests (skipped with a message where no CUDA device answers; scripts/gpu-test runs them
// on a GPU machine): quantize kernels bit-exact against the interpreter at every granularity,
// cuBLASLt FP8 GEMMs against an f64 reference of the dequantized operands (< 1e-3 relative
// Frobenius error), every example x recipe against the interpreter, and a captured CUDA graph
// replaying to the same outputs, and a cooperative cast's Scratch left at zero across runs.
// Inputs are random and never zero; outputs are poisoned (NaN) before every run, and every
// comparison also bounds the largest element error and requires every element finite
// (Compare.h).
#include "unit/runtime/GpuTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace fp8c;
using namespace fp8c::gputest;

namespace {

std::unique_ptr<Module> parse(const std::string &text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "<test>", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  return m;
}

std::unique_ptr<Executable> compileOrFail(const Graph &g, const std::string &passes,
                                          int64_t maxTokens, const std::string &backend = "auto") {
  CompileOptions o;
  o.passes = passes;
  o.load.maxTokens = maxTokens;
  o.backend = parseGemmBackend(backend).value(); // a test case names its backend
  Expected<std::unique_ptr<Executable>> exe = compile(g, o);
  EXPECT_TRUE(exe.hasValue()) << (exe ? "" : exe.error());
  return exe ? exe.take() : nullptr;
}

// Random values with no zeros (a zero hides unwritten outputs and bad indexing).
HostTensor nonZero(std::vector<int64_t> shape, DType t, uint64_t seed, double stddev) {
  HostTensor h = randomTensor(shape, t, seed, stddev);
  for (float &v : h.data)
    if (v == 0.0f)
      v = roundToDType(static_cast<float>(stddev), t);
  return h;
}

struct QuantCase {
  const char *granularity;
  int64_t m, k;
};

class GpuQuantTest : public ::testing::TestWithParam<QuantCase> {};

TEST_P(GpuQuantTest, AmaxScaleCastMatchInterpreterBitForBit) {
  FP8C_REQUIRE_GPU();
  QuantCase c = GetParam();
  std::string scaleType;
  int64_t m = c.m, k = c.k;
  std::string g = c.granularity;
  if (g == "tensor")
    scaleType = "tensor<f32>";
  else if (g == "row")
    scaleType = "tensor<?xf32>";
  else if (g == "block_1x128")
    scaleType = fmt::format("tensor<?x{}xf32>", (k + 127) / 128);
  else
    scaleType = fmt::format("tensor<?x{}xf32>", (k + 127) / 128);
  std::string text = fmt::format(R"(
func.func @quant(%x: tensor<?x{k}xbf16>) -> ({st}, {st}, tensor<?x{k}xf8E4M3FN>) {{
  %a = fp8.amax %x {{granularity = "{g}"}} : (tensor<?x{k}xbf16>) -> {st}
  %s = fp8.scale %a {{dtype = f8E4M3FN, margin = 1}} : ({st}) -> {st}
  %q = fp8.cast %x, %s {{granularity = "{g}"}} : (tensor<?x{k}xbf16>, {st}) -> tensor<?x{k}xf8E4M3FN>
  return %a, %s, %q : {st}, {st}, tensor<?x{k}xf8E4M3FN>
}}
)",
                                 fmt::arg("k", k), fmt::arg("g", g), fmt::arg("st", scaleType));
  std::unique_ptr<Module> mod = parse(text);
  ASSERT_TRUE(mod);
  const Graph &graph = *mod->graphs()[0];
  std::unique_ptr<Executable> exe = compileOrFail(graph, "shape-infer,fuse,dce", m);
  ASSERT_TRUE(exe);
  std::map<std::string, HostTensor> in = {{"x", nonZero({m, k}, DType::BF16, 7, 3.0)}};
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(exe->graph(), in);
  for (const char *name : {"a", "s", "q"}) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    EXPECT_EQ(countBitMismatches(gpu[name], cpu[name]), 0)
        << name << " differs from the interpreter (granularity " << g << ", " << m << "x" << k
        << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Granularities, GpuQuantTest,
    ::testing::Values(QuantCase{"tensor", 300, 200}, QuantCase{"row", 300, 200},
                      QuantCase{"block_1x128", 300, 200}, QuantCase{"block_128x128", 300, 200},
                      QuantCase{"tensor", 7, 4096}, QuantCase{"block_1x128", 129, 4096},
                      // 8192 x 6144 bf16 = 96 MiB: larger than L2, the two-launch path.
                      QuantCase{"tensor", 8192, 6144}),
    [](const auto &info) {
      return fmt::format("{}_{}x{}", info.param.granularity, info.param.m, info.param.k);
    });

// A tensorwise cast whose amax only it reads keeps that amax and its grid-barrier counters in
// Scratch buffers that no run clears: the launch's last block puts them back to zero. Runs of
// one executable at different M (so different grid sizes), each with a smaller amax than the
// one before (a leftover amax would give a wrong scale), must each match the interpreter bit
// for bit.
TEST(GpuQuantScratchTest, CooperativeCastLeavesItsScratchAtZeroAcrossRuns) {
  FP8C_REQUIRE_GPU();
  const int64_t k = 1000;
  std::unique_ptr<Module> mod = parse(fmt::format(R"(
func.func @quant(%x: tensor<?x{k}xbf16>) -> (tensor<f32>, tensor<?x{k}xf8E4M3FN>) {{
  %a = fp8.amax %x {{granularity = "tensor"}} : (tensor<?x{k}xbf16>) -> tensor<f32>
  %s = fp8.scale %a {{dtype = f8E4M3FN}} : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %x, %s {{granularity = "tensor"}} : (tensor<?x{k}xbf16>, tensor<f32>) -> tensor<?x{k}xf8E4M3FN>
  return %s, %q : tensor<f32>, tensor<?x{k}xf8E4M3FN>
}}
)",
                                                  fmt::arg("k", k)));
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(*mod->graphs()[0], "shape-infer,fuse,dce", 5000);
  ASSERT_TRUE(exe);
  int scratch = 0;
  for (const BufferDesc &d : exe->plan().buffers) {
    scratch += d.role == BufferRole::Scratch;
    EXPECT_FALSE(d.zeroInit) << "%" << d.name << " is cleared on every run";
  }
  EXPECT_EQ(scratch, 2) << "the amax and the barrier counters";
  const int64_t rows[] = {5000, 1, 300, 4097, 2};
  const double stddev[] = {64.0, 16.0, 4.0, 1.0, 0.25};
  for (int r = 0; r < 5; ++r) {
    std::map<std::string, HostTensor> in = {
        {"x", nonZero({rows[r], k}, DType::BF16, 11 + r, stddev[r])}};
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
    std::map<std::string, HostTensor> cpu = runOnCpu(exe->graph(), in);
    for (const char *name : {"s", "q"}) {
      ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
      EXPECT_EQ(countBitMismatches(gpu[name], cpu[name]), 0)
          << name << " differs from the interpreter in run " << r << " (M " << rows[r] << ")";
    }
  }
}

// The interpreter's histories of a delayed graph before its first run (zeros), by state input.
std::map<std::string, HostTensor> startingHistories(const Graph &g) {
  std::map<std::string, HostTensor> hist;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (g.inputAttrs(i).has("fp8.state"))
      hist[g.input(i)->name()] =
          HostTensor::make(g.input(i)->type().shape(), g.input(i)->type().dtype());
  return hist;
}

// One run of a delayed graph on the GPU and on the interpreter, which continues from `hist`
// (its histories after the previous run; updated to this run's): the output y within the
// GEMM's tolerance (where it has rows), every history on the device bit for bit the
// interpreter's.
void expectRunMatches(Executable &exe, const std::map<std::string, HostTensor> &in,
                      std::map<std::string, HostTensor> &hist, int run, int64_t rows) {
  std::map<std::string, HostTensor> gpu = runOnDevice(exe, in, nullptr);
  std::map<std::string, HostTensor> cpuIn = in;
  for (const auto &[key, h] : hist)
    cpuIn[key] = h;
  std::map<std::string, HostTensor> cpu = runOnCpu(exe.graph(), cpuIn);
  ASSERT_TRUE(gpu.count("y") && cpu.count("y"));
  if (rows > 0)
    EXPECT_TRUE(testcmp::compare(gpu["y"], cpu["y"]).within(testcmp::kFp8VsInterpreter))
        << "run " << run;
  for (auto &[key, h] : hist) {
    ASSERT_TRUE(cpu.count(key + "_next")) << key;
    h = cpu[key + "_next"];
    Expected<std::vector<float>> dev = exe.readState(key, nullptr);
    ASSERT_TRUE(dev.hasValue()) << (dev ? "" : dev.error());
    ASSERT_EQ(dev->size(), h.data.size()) << key;
    for (size_t i = 0; i < h.data.size(); ++i)
      EXPECT_EQ((*dev)[i], h.data[i])
          << key << "[" << i << "] after run " << run << " (M " << rows << ")";
  }
}

// Delayed Linear: each cast pushes its amax into its history in place (its last block; no
// state launch runs) and leaves its Scratch amax at zero. Five runs at different M (different
// grids) with shrinking magnitudes, so that a leftover amax or a missed push would change the
// next run's scale: the histories must equal the interpreter's bit for bit after every run
// (the interpreter continues from the histories it returned), the output within the GEMM's
// tolerance.
TEST(GpuDelayedStateTest, CastsPushTheirHistoriesAcrossRuns) {
  FP8C_REQUIRE_GPU();
  std::unique_ptr<Module> mod = parse(R"(
func.func @lin(%x: tensor<?x256xbf16>, %w: tensor<384x256xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  return %y : tensor<?x384xbf16>
}
)");
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(
      *mod->graphs()[0],
      "shape-infer,canonicalize,quantize{recipe=delayed},canonicalize,cse,fuse,dce", 5000);
  ASSERT_TRUE(exe);
  for (const Step &s : exe->plan().steps)
    if (const auto *gl = std::get_if<GeneratedLaunch>(&s))
      EXPECT_EQ(gl->entry.find("_state"), std::string::npos) << "a state launch: " << gl->entry;
  std::map<std::string, HostTensor> hist = startingHistories(exe->graph());
  ASSERT_EQ(hist.size(), 2u);
  const int64_t rows[] = {37, 1, 300, 4097, 2};
  const double stddev[] = {64.0, 16.0, 4.0, 1.0, 0.25};
  for (int r = 0; r < 5; ++r) {
    std::map<std::string, HostTensor> in = {
        {"x", nonZero({rows[r], 256}, DType::BF16, 21 + r, stddev[r])},
        {"w", nonZero({384, 256}, DType::BF16, 41 + r, stddev[r])},
        {"b", nonZero({384}, DType::BF16, 61 + r, 1.0)}};
    expectRunMatches(*exe, in, hist, r, rows[r]);
  }
}

// The delayed MLP: the hidden's amax comes from GEMM 1's epilogue and is pushed into its
// history by that step (the generated GEMM's last block, or after cuBLASLt a one-block launch),
// the other amaxes by their casts: no state launch. Each backend, runs at several M (0 among
// them: the GEMM does not run and its pushFallback pushes the zero amax), the histories bit
// for bit the interpreter's after every run. Magnitudes shrink run to run, so an amax the push
// did not put back to zero (Scratch, no memset) would show in the next run's history.
TEST(GpuDelayedStateTest, GemmEpiloguePushesItsAmaxAcrossRuns) {
  FP8C_REQUIRE_GPU();
  std::unique_ptr<Module> mod = parse(R"(
func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<384x256xbf16>, %b1: tensor<384xbf16>, %w2: tensor<256x384xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x384xbf16>) -> tensor<?x384xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x384xbf16>, tensor<256x384xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
)");
  ASSERT_TRUE(mod);
  for (const char *backend : {"auto", "generated", "cublaslt"}) {
    SCOPED_TRACE(std::string("backend ") + backend);
    std::unique_ptr<Executable> exe =
        compileOrFail(*mod->graphs()[0],
                      "shape-infer,canonicalize,quantize{recipe=delayed},canonicalize,cse,fuse,dce",
                      5000, backend);
    ASSERT_TRUE(exe);
    int pushingGemms = 0;
    for (const Step &s : exe->plan().steps) {
      if (const auto *gl = std::get_if<GeneratedLaunch>(&s))
        EXPECT_EQ(gl->entry.find("_state"), std::string::npos) << "a state launch: " << gl->entry;
      else
        pushingGemms += std::get<GemmStep>(s).pushHistory >= 0;
    }
    EXPECT_EQ(pushingGemms, 1);
    std::map<std::string, HostTensor> hist = startingHistories(exe->graph());
    ASSERT_EQ(hist.size(), 4u);
    // Both layers' operands scale with stddev, so the hidden (and its amax) shrinks 4x per run:
    // gentler than the Linear's case above, whose single cast keeps its error small at any
    // ratio, where here the hidden's FP8 cast would underflow to subnormals (both sides alike,
    // but then a one-ulp difference in the GEMM's sum is a large relative one).
    const int64_t rows[] = {37, 1, 0, 300, 2};
    const double stddev[] = {4.0, 2.0, 1.0, 0.5, 0.25};
    for (int r = 0; r < 5; ++r) {
      std::map<std::string, HostTensor> in = {
          {"x", nonZero({rows[r], 256}, DType::BF16, 21 + r, stddev[r])},
          {"w1", nonZero({384, 256}, DType::BF16, 41 + r, stddev[r])},
          {"b1", nonZero({384}, DType::BF16, 61 + r, 1.0)},
          {"w2", nonZero({256, 384}, DType::BF16, 81 + r, stddev[r])},
          {"b2", nonZero({256}, DType::BF16, 101 + r, 1.0)}};
      expectRunMatches(*exe, in, hist, r, rows[r]);
    }
  }
}

struct GemmCase {
  const char *mode;
  int64_t m, n, k;
};

class GpuGemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GpuGemmTest, CublasLtMatchesF64ReferenceOfDequantizedOperands) {
  FP8C_REQUIRE_GPU();
  GemmCase c = GetParam();
  std::string mode = c.mode;
  int64_t kb = (c.k + 127) / 128, nb = (c.n + 127) / 128;
  std::string sa = mode == "tensor" ? "tensor<f32>" : mode == "row" ? "tensor<?xf32>"
                                                                     : fmt::format("tensor<?x{}xf32>", kb);
  std::string sb = mode == "tensor" ? "tensor<f32>" : mode == "row" ? fmt::format("tensor<{}xf32>", c.n)
                                                                     : fmt::format("tensor<{}x{}xf32>", nb, kb);
  std::string text = fmt::format(R"(
func.func @gemm(%a: tensor<?x{k}xf8E4M3FN>, %b: tensor<{n}x{k}xf8E4M3FN>, %sa: {sa}, %sb: {sb}, %bias: tensor<{n}xbf16>) -> tensor<?x{n}xf32> {{
  %y = fp8.scaled_matmul %a, %b, %sa, %sb, %bias {{out = f32}} : (tensor<?x{k}xf8E4M3FN>, tensor<{n}x{k}xf8E4M3FN>, {sa}, {sb}, tensor<{n}xbf16>) -> tensor<?x{n}xf32>
  return %y : tensor<?x{n}xf32>
}}
)",
                                 fmt::arg("k", c.k), fmt::arg("n", c.n), fmt::arg("sa", sa),
                                 fmt::arg("sb", sb));
  std::unique_ptr<Module> mod = parse(text);
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(*mod->graphs()[0], "shape-infer,fuse,dce", c.m);
  ASSERT_TRUE(exe);
  auto scales = [&](std::vector<int64_t> shape, uint64_t seed) {
    HostTensor t = randomTensor(shape, DType::F32, seed, 1.0);
    for (float &v : t.data)
      v = 0.5f + std::fabs(v) * 8.0f; // positive scales, not powers of two
    return t;
  };
  std::vector<int64_t> saShape = mode == "tensor" ? std::vector<int64_t>{}
                                 : mode == "row"  ? std::vector<int64_t>{c.m}
                                                  : std::vector<int64_t>{c.m, kb};
  std::vector<int64_t> sbShape = mode == "tensor" ? std::vector<int64_t>{}
                                 : mode == "row"  ? std::vector<int64_t>{c.n}
                                                  : std::vector<int64_t>{nb, kb};
  std::map<std::string, HostTensor> in = {
      {"a", nonZero({c.m, c.k}, DType::F8E4M3FN, 1, 40.0)},
      {"b", nonZero({c.n, c.k}, DType::F8E4M3FN, 2, 40.0)},
      {"sa", scales(saShape, 3)},
      {"sb", scales(sbShape, 4)},
      // cuBLASLt takes a bf16 bias with an f32 D (its FP8 table), so the graph says bf16.
      {"bias", nonZero({c.n}, DType::BF16, 5, 1.0)}};
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  ASSERT_TRUE(gpu.count("y"));
  // f64 reference on the dequantized operands.
  const HostTensor &A = in["a"], &B = in["b"], &SA = in["sa"], &SB = in["sb"], &bias = in["bias"];
  auto sAt = [&](const HostTensor &s, int64_t r, int64_t kblk, bool isA) -> double {
    if (mode == "tensor")
      return s.data[0];
    if (mode == "row")
      return s.data[r];
    return isA ? s.data[r * kb + kblk] : s.data[(r / 128) * kb + kblk];
  };
  std::vector<double> want(size_t(c.m * c.n)), got(want.size());
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < c.k; ++p)
        acc += (A.data[i * c.k + p] / sAt(SA, i, p / 128, true)) *
               (B.data[j * c.k + p] / sAt(SB, j, p / 128, false));
      acc += bias.data[j];
      want[size_t(i * c.n + j)] = acc;
      got[size_t(i * c.n + j)] = gpu["y"].data[size_t(i * c.n + j)];
    }
  // An f32 D: the accumulation's error alone (1e-3 relative Frobenius, docs/numerics.md).
  const testcmp::Comparison cmp = testcmp::compare(got, want, {c.m, c.n});
  const double rel = cmp.relFrobenius();
  EXPECT_TRUE(cmp.within(testcmp::gemmVsExact(DType::F32, 1e-3, 1e-3)))
      << "mode " << mode << " " << c.m << "x" << c.n << "x" << c.k;
  std::cout << "[ gemm     ] " << mode << " " << c.m << "x" << c.n << "x" << c.k
            << ": relative Frobenius error vs f64 " << rel << "\n";
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuGemmTest,
                         ::testing::Values(GemmCase{"tensor", 100, 256, 512},
                                           GemmCase{"tensor", 7, 200, 100},
                                           GemmCase{"row", 100, 256, 512},
                                           GemmCase{"row", 33, 200, 320},
                                           GemmCase{"block", 128, 256, 512},
                                           GemmCase{"block", 100, 384, 384},
                                           GemmCase{"block", 37, 256, 256}),
                         [](const auto &info) {
                           return fmt::format("{}_{}x{}x{}", info.param.mode, info.param.m,
                                              info.param.n, info.param.k);
                         });

std::string readExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ExampleCase {
  const char *file;
  const char *recipe;
  bool staticWeights;
};

class GpuExampleTest : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(GpuExampleTest, MatchesInterpreterOnRandomInputs) {
  FP8C_REQUIRE_GPU();
  ExampleCase c = GetParam();
  std::unique_ptr<Module> mod = parse(readExample(c.file));
  ASSERT_TRUE(mod);
  const Graph &g = *mod->graphs()[0];
  std::string passes = "shape-infer,canonicalize,quantize{recipe=" + std::string(c.recipe) +
                       (c.staticWeights ? " weights=static" : "") + "},canonicalize,cse,fuse,dce";
  const int64_t m = 37; // not a multiple of anything the kernels tile by
  std::unique_ptr<Executable> exe = compileOrFail(g, passes, m);
  ASSERT_TRUE(exe);
  std::vector<HostTensor> rnd = randomInputs(exe->graph(), 11, m);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < exe->graph().numInputs(); ++i)
    in[exe->graph().input(i)->name()] = rnd[i];
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(exe->graph(), in);
  for (const std::string &name : exe->outputNames()) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    // The GPU sums in another order (and with fast accumulation), so a bf16 rounding or an FP8
    // rounding of the hidden activation can flip; that moves the output by ~1e-3 relative.
    // Wrong indexing or a missed scale gives O(1) (Compare.h's kFp8VsInterpreter).
    const testcmp::Comparison cmp = testcmp::compare(gpu[name], cpu[name]);
    const double rel = cmp.relFrobenius();
    EXPECT_TRUE(cmp.within(testcmp::kFp8VsInterpreter))
        << c.file << " " << c.recipe << " output " << name;
    std::cout << "[ example  ] " << c.file << " " << c.recipe
              << (c.staticWeights ? " weights=static" : "") << " '" << name
              << "': relative error vs interpreter " << rel << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(
    ExamplesRecipes, GpuExampleTest,
    ::testing::Values(ExampleCase{"linear.mlir", "tensorwise", false},
                      ExampleCase{"linear.mlir", "delayed", false},
                      ExampleCase{"linear.mlir", "rowwise", false},
                      ExampleCase{"linear.mlir", "blockwise", false},
                      ExampleCase{"mlp.mlir", "tensorwise", false},
                      ExampleCase{"mlp.mlir", "delayed", false},
                      ExampleCase{"mlp.mlir", "rowwise", false},
                      ExampleCase{"mlp.mlir", "blockwise", false},
                      ExampleCase{"mlp.mlir", "tensorwise", true},
                      ExampleCase{"swiglu_mlp.mlir", "tensorwise", false},
                      ExampleCase{"swiglu_mlp.mlir", "delayed", false},
                      ExampleCase{"swiglu_mlp.mlir", "rowwise", false},
                      ExampleCase{"swiglu_mlp.mlir", "blockwise", false},
                      ExampleCase{"linear_residual.mlir", "tensorwise", false},
                      ExampleCase{"linear_residual.mlir", "delayed", false},
                      ExampleCase{"linear_residual.mlir", "rowwise", false},
                      ExampleCase{"vit_mlp.mlir", "tensorwise", false},
                      ExampleCase{"vit_mlp.mlir", "delayed", false},
                      ExampleCase{"vit_mlp.mlir", "rowwise", false},
                      ExampleCase{"vit_mlp.mlir", "blockwise", false}),
    [](const auto &info) {
      std::string f = info.param.file;
      f = f.substr(0, f.find('.'));
      return f + "_" + info.param.recipe + (info.param.staticWeights ? "_static" : "");
    });

TEST(GpuCudaGraphTest, CapturedRunReplaysToTheSameOutputs) {
  FP8C_REQUIRE_GPU();
  std::unique_ptr<Module> mod = parse(readExample("linear.mlir"));
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(
      *mod->graphs()[0], "shape-infer,canonicalize,quantize{recipe=tensorwise},cse,fuse,dce", 16);
  ASSERT_TRUE(exe);
  CudaDriver *drv = *CudaDriver::get();
  CUstream stream = nullptr;
  ASSERT_EQ(drv->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  std::vector<HostTensor> rnd = randomInputs(exe->graph(), 5, 16);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < exe->graph().numInputs(); ++i)
    in[exe->graph().input(i)->name()] = rnd[i];
  std::map<std::string, DeviceBuffer> buffers;
  Bindings b;
  std::map<std::string, HostTensor> eager = runOnDevice(*exe, in, stream, &buffers, &b);
  ASSERT_FALSE(eager.empty());
  // Poison the output again, then capture one run and replay it. Both runs must write every
  // element (bit for bit takes NaN as equal to NaN).
  for (const std::string &name : exe->outputNames()) {
    EXPECT_TRUE(testcmp::allFinite(eager[name])) << "eager run, " << name;
    ASSERT_TRUE(buffers.at(name).fill(0xFF, stream).isOk());
  }
  Status st = replayInCudaGraph(stream, [&] { return exe->run(b, stream); });
  ASSERT_TRUE(st.isOk()) << st.message();
  for (const std::string &name : exe->outputNames()) {
    const DeviceTensor &t = b.at(name);
    Expected<HostTensor> replayed = downloadTensor(buffers.at(name), t.shape, t.dtype);
    ASSERT_TRUE(replayed.hasValue());
    EXPECT_EQ(countBitMismatches(*replayed, eager[name]), 0) << "graph replay differs in " << name;
    EXPECT_TRUE(testcmp::allFinite(*replayed)) << "graph replay, " << name;
  }
  drv->cuStreamDestroy(stream);
}

TEST(GpuProfileTest, ProfiledRunTimesEveryStepAndKeepsOutputs) {
  FP8C_REQUIRE_GPU();
  std::unique_ptr<Module> mod = parse(readExample("mlp.mlir"));
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(
      *mod->graphs()[0], "shape-infer,canonicalize,quantize{recipe=delayed},cse,fuse,dce", 64);
  ASSERT_TRUE(exe);
  std::vector<HostTensor> rnd = randomInputs(exe->graph(), 3, 64);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < exe->graph().numInputs(); ++i)
    in[exe->graph().input(i)->name()] = rnd[i];
  std::map<std::string, DeviceBuffer> buffers;
  Bindings b;
  std::map<std::string, HostTensor> plain = runOnDevice(*exe, in, nullptr, &buffers, &b);
  ASSERT_FALSE(plain.empty());
  EXPECT_FALSE(exe->lastProfile().hasValue()) << "profiling is off by default";
  exe->setProfiling(true);
  ASSERT_TRUE(exe->run(b, nullptr).isOk());
  Expected<std::vector<StepTime>> prof = exe->lastProfile();
  ASSERT_TRUE(prof.hasValue()) << prof.error();
  ASSERT_EQ(prof->size(), exe->plan().steps.size()) << "one time per step of the plan";
  int gemms = 0;
  for (const StepTime &t : *prof) {
    EXPECT_GT(t.us, 0.0) << t.name;
    EXPECT_FALSE(t.name.empty());
    gemms += t.what.rfind("gemm: ", 0) == 0;
  }
  EXPECT_EQ(gemms, 2) << "the MLP's two GEMMs";
  // Delayed scaling advances its histories every run, so the outputs are compared after a
  // reset on both sides: the profiled run must compute what the plain run does.
  ASSERT_TRUE(exe->resetState(nullptr).isOk());
  exe->setProfiling(false);
  std::map<std::string, HostTensor> again = runOnDevice(*exe, in, nullptr, &buffers, &b);
  ASSERT_TRUE(exe->resetState(nullptr).isOk());
  exe->setProfiling(true);
  std::map<std::string, HostTensor> profiled = runOnDevice(*exe, in, nullptr, &buffers, &b);
  // runOnDevice poisons the outputs before each run: both must write every element.
  for (const std::string &name : exe->outputNames()) {
    EXPECT_EQ(countBitMismatches(again[name], profiled[name]), 0) << name;
    EXPECT_TRUE(testcmp::allFinite(again[name])) << "plain run, " << name;
    EXPECT_TRUE(testcmp::allFinite(profiled[name])) << "profiled run, " << name;
  }
}

} // namespace
