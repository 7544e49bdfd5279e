// Non-finite and extreme values on the GPU against the interpreter (docs/numerics.md; skipped
// where no CUDA device answers):
//   - amax, scale and cast of inputs holding NaN, +-inf, tiny (1e-30, bf16 subnormals) and huge
//     (1e30) values, at every granularity: bit for bit;
//   - the output checks (CompileOptions::countNonFinite) count what the host counts, per dtype;
//   - delayed scaling with NaN / inf inputs, on each GEMM backend: every history push (a cast's
//     last block, the generated GEMM's epilogue, the launches after cuBLASLt) skips the
//     non-finite amax, leaving the history bit for bit as it was; the skip counts and the
//     outputs' NaN counts (enqueueNonFiniteReport) are the interpreter's;
//   - current scaling with a NaN input: the same outputs NaN as on the interpreter, reported;
//   - tiny and huge inputs under every recipe within the GEMM's tolerance of the interpreter
//     (the generated GEMM dequantizes one scale at a time; cuBLASLt forms their product, which
//     is normal for every case here but two tiny operands);
//   - a delayed training step with a NaN input: both halves' skip counts are
//     InterpretedTraining's.
#include "unit/runtime/GpuTestSupport.h"
#include "unit/training/TrainingTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "unit/support/RecipeTestSupport.h"

#include <fmt/format.h>

#include <limits>

using namespace fp8c;
using namespace fp8c::gputest;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

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
  o.load.countNonFinite = true;
  Expected<std::unique_ptr<Executable>> exe = compile(g, o);
  EXPECT_TRUE(exe.hasValue()) << (exe ? "" : exe.error());
  return exe ? exe.take() : nullptr;
}

std::string pipeline(const std::string &recipe) {
  return "shape-infer,canonicalize,quantize{recipe=" + recipe +
         (recipe == "delayed" ? " history_len=4" : "") + "},canonicalize,cse,fuse,dce";
}

// The executable's report, copied on the legacy stream and waited for.
NonFiniteReport deviceReport(Executable &exe) {
  EXPECT_TRUE(exe.enqueueNonFiniteReport(nullptr).isOk());
  EXPECT_EQ((*CudaDriver::get())->cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  return exe.nonFiniteReport();
}

int64_t outputCount(const NonFiniteReport &r, const std::string &name) {
  for (const NonFiniteReport::Output &o : r.outputs)
    if (o.name == name)
      return o.count;
  ADD_FAILURE() << "no output '" << name << "' in the report";
  return -2;
}

std::string stateKey(const AttrDict &a) {
  const Attribute *v = a.get("fp8.state");
  return v && v->kind() == AttrKind::String ? v->asString() : "";
}

// The interpreter on `g` with the histories `hist` (by key), which it advances; the outputs
// other than state by name, and its report.
std::map<std::string, HostTensor> interpretStep(const Graph &g,
                                                const std::map<std::string, HostTensor> &in,
                                                std::map<std::string, HostTensor> &hist,
                                                NonFiniteReport &report) {
  std::vector<HostTensor> args;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const std::string k = stateKey(g.inputAttrs(i));
    args.push_back(k.empty() ? in.at(g.input(i)->name()) : hist.at(k));
  }
  InterpretOptions o;
  o.report = &report;
  Expected<std::vector<HostTensor>> r = interpret(g, args, o);
  EXPECT_TRUE(r) << (r ? "" : r.error());
  std::map<std::string, HostTensor> out;
  if (!r)
    return out;
  std::vector<Value *> outs = g.outputs();
  for (unsigned i = 0; i < outs.size(); ++i) {
    const std::string k = i < g.resultAttrs().size() ? stateKey(g.resultAttrs()[i]) : "";
    if (k.empty())
      out[outs[i]->name()] = (*r)[i];
    else
      hist[k] = (*r)[i];
  }
  return out;
}

HostTensor nonZero(std::vector<int64_t> shape, DType t, uint64_t seed, double stddev) {
  HostTensor h = randomTensor(shape, t, seed, stddev);
  for (float &v : h.data)
    if (v == 0.0f)
      v = roundToDType(static_cast<float>(stddev), t);
  return h;
}

// Rows of `t` scaled by `f` (rounded to t's dtype).
void scaleRows(HostTensor &t, int64_t r0, int64_t r1, float f) {
  const int64_t cols = t.shape[1];
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float &v = t.data[static_cast<size_t>(r * cols + c)];
      v = roundToDType(v * f, t.dtype);
    }
}

bool sameNaNs(const HostTensor &a, const HostTensor &b) {
  if (a.data.size() != b.data.size())
    return false;
  for (size_t i = 0; i < a.data.size(); ++i)
    if (std::isnan(a.data[i]) != std::isnan(b.data[i]))
      return false;
  return true;
}

// --- amax, scale, cast ------------------------------------------------------------------------

struct SpecialCase {
  const char *granularity;
  bool nonFinite; ///< NaN and +-inf among the values (else only tiny and huge ones)
};

void PrintTo(const SpecialCase &c, std::ostream *os) {
  *os << c.granularity << (c.nonFinite ? " with NaN / inf" : " extremes");
}

class GpuNonFiniteQuantTest : public ::testing::TestWithParam<SpecialCase> {};

TEST_P(GpuNonFiniteQuantTest, AmaxScaleCastMatchInterpreterBitForBit) {
  FP8C_REQUIRE_GPU();
  const SpecialCase c = GetParam();
  const int64_t m = 300, k = 256;
  const std::string g = c.granularity;
  std::string st = "tensor<f32>";
  if (g == "row")
    st = "tensor<?xf32>";
  else if (g == "block_1x128" || g == "block_128x128")
    st = fmt::format("tensor<?x{}xf32>", k / 128);
  std::unique_ptr<Module> mod =
      parse(fmt::format(R"(
func.func @quant(%x: tensor<?x{k}xbf16>) -> ({st}, {st}, tensor<?x{k}xf8E4M3FN>, {st}) {{
  %a = fp8.amax %x {{granularity = "{g}"}} : (tensor<?x{k}xbf16>) -> {st}
  %s = fp8.scale %a {{dtype = f8E4M3FN}} : ({st}) -> {st}
  %q = fp8.cast %x, %s {{granularity = "{g}"}} : (tensor<?x{k}xbf16>, {st}) -> tensor<?x{k}xf8E4M3FN>
  %p = fp8.scale %a {{dtype = f8E5M2, margin = 2, pow2 = true}} : ({st}) -> {st}
  return %a, %s, %q, %p : {st}, {st}, tensor<?x{k}xf8E4M3FN>, {st}
}}
)",
                        fmt::arg("k", k), fmt::arg("g", g), fmt::arg("st", st)));
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe = compileOrFail(*mod->graphs()[0], "shape-infer,fuse,dce", m);
  ASSERT_TRUE(exe);
  HostTensor x = nonZero({m, k}, DType::BF16, 5, 2.0);
  scaleRows(x, 30, 31, 1e-30f);   // tiny
  scaleRows(x, 40, 41, 1e30f);    // huge
  scaleRows(x, 50, 51, 1e-39f);   // bf16 subnormals: scale = FLT_MAX
  scaleRows(x, 130, 256, 1e-20f); // a block of tiny rows (128x128 blocks too)
  if (c.nonFinite) {
    x.data[3 * k + 7] = kNaN;
    x.data[10 * k + 200] = kInf;
    x.data[20 * k + 130] = -kInf;
  }
  const std::map<std::string, HostTensor> in = {{"x", x}};
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(exe->graph(), in);
  for (const char *name : {"a", "s", "q", "p"}) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    EXPECT_EQ(countBitMismatches(gpu[name], cpu[name]), 0) << name << " (granularity " << g << ")";
  }
  // Finite amaxes give finite scales, whatever their size.
  for (size_t i = 0; i < cpu["a"].data.size(); ++i)
    if (std::isfinite(cpu["a"].data[i]))
      EXPECT_TRUE(std::isfinite(cpu["s"].data[i]) && cpu["s"].data[i] > 0) << i;
  const NonFiniteReport r = deviceReport(*exe);
  for (const char *name : {"a", "s", "q", "p"})
    EXPECT_EQ(outputCount(r, name), countNonFinite(cpu[name])) << name;
}

INSTANTIATE_TEST_SUITE_P(
    Granularities, GpuNonFiniteQuantTest,
    ::testing::Values(SpecialCase{"tensor", true}, SpecialCase{"tensor", false},
                      SpecialCase{"row", true}, SpecialCase{"row", false},
                      SpecialCase{"block_1x128", true}, SpecialCase{"block_1x128", false},
                      SpecialCase{"block_128x128", true}, SpecialCase{"block_128x128", false}),
    [](const auto &info) {
      return std::string(info.param.granularity) +
             (info.param.nonFinite ? "_nonfinite" : "_extremes");
    });

// --- the output checks ------------------------------------------------------------------------

// Each counted dtype, at an element count with a tail past the last 16-byte word: the device's
// count is the host's count of the downloaded output.
TEST(GpuNonFiniteCountTest, CountsWhatTheHostCounts) {
  FP8C_REQUIRE_GPU();
  const int64_t m = 1001, k = 37;
  for (const char *dt : {"f32", "f16", "bf16"}) {
    SCOPED_TRACE(dt);
    std::unique_ptr<Module> mod = parse(fmt::format(R"(
func.func @f(%x: tensor<?x{k}x{dt}>) -> tensor<?x{k}x{dt}> {{
  %y = fp8.relu %x : (tensor<?x{k}x{dt}>) -> tensor<?x{k}x{dt}>
  return %y : tensor<?x{k}x{dt}>
}}
)",
                                                    fmt::arg("k", k), fmt::arg("dt", dt)));
    ASSERT_TRUE(mod);
    std::unique_ptr<Executable> exe = compileOrFail(*mod->graphs()[0], "shape-infer,fuse,dce", m);
    ASSERT_TRUE(exe);
    const DType t = exe->graph().input(0)->type().dtype();
    HostTensor x = nonZero({m, k}, t, 9, 1.0);
    for (int64_t i : {int64_t(0), int64_t(5), int64_t(16), int64_t(999), int64_t(36000), m * k - 1})
      x.data[static_cast<size_t>(i)] = i % 2 ? kNaN : kInf;
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, {{"x", x}}, nullptr);
    ASSERT_TRUE(gpu.count("y"));
    EXPECT_EQ(outputCount(deviceReport(*exe), "y"), countNonFinite(gpu["y"]));
    EXPECT_EQ(countNonFinite(gpu["y"]), 6); // 2 NaNs (odd indices), 4 infs
  }
  for (const char *dt : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(dt);
    std::unique_ptr<Module> mod = parse(fmt::format(R"(
func.func @f(%x: tensor<?x{k}xf32>, %s: tensor<f32>) -> tensor<?x{k}x{dt}> {{
  %q = fp8.cast %x, %s : (tensor<?x{k}xf32>, tensor<f32>) -> tensor<?x{k}x{dt}>
  return %q : tensor<?x{k}x{dt}>
}}
)",
                                                    fmt::arg("k", k), fmt::arg("dt", dt)));
    ASSERT_TRUE(mod);
    std::unique_ptr<Executable> exe = compileOrFail(*mod->graphs()[0], "shape-infer,fuse,dce", m);
    ASSERT_TRUE(exe);
    HostTensor x = nonZero({m, k}, DType::F32, 9, 1.0);
    for (int64_t i : {int64_t(0), int64_t(5), int64_t(16), int64_t(999), int64_t(36000), m * k - 1})
      x.data[static_cast<size_t>(i)] = i % 2 ? kNaN : kInf; // inf saturates: 2 NaNs stay
    HostTensor s = HostTensor::make({}, DType::F32);
    s.data = {1.0f};
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, {{"x", x}, {"s", s}}, nullptr);
    ASSERT_TRUE(gpu.count("q"));
    EXPECT_EQ(outputCount(deviceReport(*exe), "q"), countNonFinite(gpu["q"]));
    EXPECT_EQ(countNonFinite(gpu["q"]), 2);
  }
}

// --- delayed scaling --------------------------------------------------------------------------

const char *const kLinear = R"(
func.func @lin(%x: tensor<?x256xbf16>, %w: tensor<384x256xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y = fp8.linear %x, %w, %b : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  return %y : tensor<?x384xbf16>
}
)";

const char *const kMlp = R"(
func.func @mlp(%x: tensor<?x256xbf16>, %w1: tensor<384x256xbf16>, %b1: tensor<384xbf16>, %w2: tensor<256x384xbf16>, %b2: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x256xbf16>, tensor<384x256xbf16>, tensor<384xbf16>) -> tensor<?x384xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x384xbf16>) -> tensor<?x384xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x384xbf16>, tensor<256x384xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
)";

std::map<std::string, HostTensor> modelInputs(const Graph &g, int64_t m, uint64_t seed) {
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    if (!stateKey(g.inputAttrs(i)).empty())
      continue;
    std::vector<int64_t> shape = g.input(i)->type().shape();
    if (shape[0] == kDynamic)
      shape[0] = m;
    const double sd = shape.size() == 2 && g.input(i)->name() != "x" ? 0.06 : 1.0;
    in[g.input(i)->name()] = nonZero(shape, DType::BF16, seed + i, sd);
  }
  return in;
}

struct DelayedCase {
  const char *model; ///< "linear" or "mlp"
  const char *backend;
};

void PrintTo(const DelayedCase &c, std::ostream *os) { *os << c.model << " on " << c.backend; }

class GpuNonFiniteDelayedTest : public ::testing::TestWithParam<DelayedCase> {};

// Runs clean, NaN in x, clean, +inf in x, clean. Before each run the interpreter takes the
// GPU's histories (so both use the same scales); after it the skip counts (cumulative on the
// device) and the output's NaN count match the interpreter's, a skipped history is bit for bit
// what it was before the run, and every other one moved by one entry.
TEST_P(GpuNonFiniteDelayedTest, SkipsAndCountsAsTheInterpreter) {
  FP8C_REQUIRE_GPU();
  const DelayedCase c = GetParam();
  std::unique_ptr<Module> mod = parse(std::string(c.model) == "mlp" ? kMlp : kLinear);
  ASSERT_TRUE(mod);
  const int64_t m = 37;
  std::unique_ptr<Executable> exe =
      compileOrFail(*mod->graphs()[0], pipeline("delayed"), m, c.backend);
  ASSERT_TRUE(exe);
  const Graph &g = exe->graph();
  std::map<std::string, int64_t> skippedSoFar;
  for (int run = 0; run < 5; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    std::map<std::string, HostTensor> in = modelInputs(g, m, 100 + 10 * run);
    if (run == 1)
      in["x"].data[5 * 256 + 17] = kNaN;
    if (run == 3)
      in["x"].data[9 * 256 + 3] = kInf;
    std::map<std::string, HostTensor> hist, before;
    for (const std::string &key : exe->stateNames()) {
      Expected<std::vector<float>> h = exe->readState(key, nullptr);
      ASSERT_TRUE(h) << h.error();
      HostTensor t = HostTensor::make({static_cast<int64_t>(h->size())}, DType::F32);
      t.data = *h;
      hist[key] = before[key] = t;
    }
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
    NonFiniteReport cpuReport;
    std::map<std::string, HostTensor> cpu = interpretStep(g, in, hist, cpuReport);
    const NonFiniteReport dev = deviceReport(*exe);
    ASSERT_TRUE(gpu.count("y") && cpu.count("y"));
    EXPECT_EQ(outputCount(dev, "y"), countNonFinite(gpu["y"]));
    EXPECT_EQ(countNonFinite(gpu["y"]), countNonFinite(cpu["y"]));
    EXPECT_TRUE(sameNaNs(gpu["y"], cpu["y"]));
    for (const NonFiniteReport::History &h : cpuReport.histories) {
      skippedSoFar[h.key] += h.skipped;
      // (An amax that cuBLASLt computes, AMAX_D: the MLP's g on cuBLASLt, must be NaN for a D
      // with a NaN, as the interpreter's is, for its push to be skipped.)
      EXPECT_EQ(dev.skippedOf(h.key), skippedSoFar[h.key]) << h.key;
      Expected<std::vector<float>> now = exe->readState(h.key, nullptr);
      ASSERT_TRUE(now) << now.error();
      const std::vector<float> &was = before.at(h.key).data;
      if (h.skipped) {
        EXPECT_EQ(*now, was) << h.key << ": a skipped push changed the history";
      } else {
        for (size_t i = 1; i < was.size(); ++i)
          EXPECT_EQ((*now)[i], was[i - 1]) << h.key << "[" << i << "]";
        const float want = hist.at(h.key).data[0];
        EXPECT_NEAR((*now)[0], want, 1e-2 * want) << h.key << ": the new amax";
        EXPECT_TRUE(std::isfinite((*now)[0])) << h.key;
      }
    }
    if (run == 0 || run == 2 || run == 4)
      EXPECT_TRUE(dev.outputs.size() == 1 && dev.outputs[0].count == 0);
  }
  EXPECT_GT(skippedSoFar.at("x_amax_history"), 1) << "the NaN and the inf run";
}

INSTANTIATE_TEST_SUITE_P(
    Backends, GpuNonFiniteDelayedTest,
    ::testing::Values(DelayedCase{"linear", "auto"}, DelayedCase{"linear", "generated"},
                      DelayedCase{"mlp", "auto"}, DelayedCase{"mlp", "generated"},
                      DelayedCase{"mlp", "cublaslt"}),
    [](const auto &info) { return std::string(info.param.model) + "_" + info.param.backend; });

// --- current scaling --------------------------------------------------------------------------

struct RecipeBackend {
  const char *recipe;
  const char *backend;
};

void PrintTo(const RecipeBackend &c, std::ostream *os) { *os << c.recipe << " on " << c.backend; }

class GpuNonFiniteCurrentTest : public ::testing::TestWithParam<RecipeBackend> {};

// A NaN in x: the outputs NaN on the GPU are those NaN on the interpreter (all of them under
// tensorwise, the NaN's row otherwise), and the device counts them.
TEST_P(GpuNonFiniteCurrentTest, NaNSpreadsAsOnTheInterpreterAndIsCounted) {
  FP8C_REQUIRE_GPU();
  const RecipeBackend c = GetParam();
  std::unique_ptr<Module> mod = parse(kLinear);
  ASSERT_TRUE(mod);
  const int64_t m = 37;
  std::unique_ptr<Executable> exe =
      compileOrFail(*mod->graphs()[0], pipeline(c.recipe), m, c.backend);
  ASSERT_TRUE(exe);
  std::map<std::string, HostTensor> in = modelInputs(exe->graph(), m, 7);
  in["x"].data[4 * 256 + 200] = kNaN;
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  std::map<std::string, HostTensor> hist;
  NonFiniteReport cpuReport;
  std::map<std::string, HostTensor> cpu = interpretStep(exe->graph(), in, hist, cpuReport);
  ASSERT_TRUE(gpu.count("y") && cpu.count("y"));
  EXPECT_TRUE(sameNaNs(gpu["y"], cpu["y"]));
  EXPECT_EQ(outputCount(deviceReport(*exe), "y"), outputCount(cpuReport, "y"));
  EXPECT_EQ(outputCount(cpuReport, "y"), std::string(c.recipe) == "tensorwise" ? m * 384 : 384);
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, GpuNonFiniteCurrentTest,
    ::testing::Values(RecipeBackend{"tensorwise", "auto"}, RecipeBackend{"tensorwise", "generated"},
                      RecipeBackend{"rowwise", "auto"}, RecipeBackend{"rowwise", "generated"},
                      RecipeBackend{"blockwise", "auto"}, RecipeBackend{"blockwise", "generated"}),
    [](const auto &info) { return std::string(info.param.recipe) + "_" + info.param.backend; });

// --- extreme magnitudes -----------------------------------------------------------------------

struct MagnitudeCase {
  const char *recipe;
  const char *backend;
  float xScale, wScale;
  const char *id;
};

void PrintTo(const MagnitudeCase &c, std::ostream *os) {
  *os << c.recipe << " on " << c.backend << ", x scaled by " << c.xScale << ", w by " << c.wScale;
}

class GpuExtremeMagnitudeTest : public ::testing::TestWithParam<MagnitudeCase> {};

// x and w scaled by extreme factors: the GPU's y within the GEMM tolerance of the interpreter's
// (2e-2, as GpuEndToEndTest's examples), finite, and no zeros where the interpreter has none.
// Delayed scaling takes one step on inputs of the same magnitude first (the interpreter from
// the GPU's histories).
TEST_P(GpuExtremeMagnitudeTest, MatchesTheInterpreter) {
  FP8C_REQUIRE_GPU();
  const MagnitudeCase c = GetParam();
  std::unique_ptr<Module> mod = parse(R"(
func.func @lin(%x: tensor<?x256xbf16>, %w: tensor<384x256xbf16>) -> tensor<?x384xbf16> {
  %y = fp8.linear %x, %w : (tensor<?x256xbf16>, tensor<384x256xbf16>) -> tensor<?x384xbf16>
  return %y : tensor<?x384xbf16>
}
)");
  ASSERT_TRUE(mod);
  const int64_t m = 64;
  std::unique_ptr<Executable> exe =
      compileOrFail(*mod->graphs()[0], pipeline(c.recipe), m, c.backend);
  ASSERT_TRUE(exe);
  auto inputs = [&](uint64_t seed) {
    std::map<std::string, HostTensor> in = modelInputs(exe->graph(), m, seed);
    scaleRows(in["x"], 0, m, c.xScale);
    scaleRows(in["w"], 0, 384, c.wScale);
    return in;
  };
  if (std::string(c.recipe) == "delayed")
    runOnDevice(*exe, inputs(1), nullptr);
  std::map<std::string, HostTensor> hist;
  for (const std::string &key : exe->stateNames()) {
    Expected<std::vector<float>> h = exe->readState(key, nullptr);
    ASSERT_TRUE(h) << h.error();
    hist[key] = HostTensor::make({static_cast<int64_t>(h->size())}, DType::F32);
    hist[key].data = *h;
  }
  const std::map<std::string, HostTensor> in = inputs(2);
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  NonFiniteReport cpuReport;
  std::map<std::string, HostTensor> cpu = interpretStep(exe->graph(), in, hist, cpuReport);
  ASSERT_TRUE(gpu.count("y") && cpu.count("y"));
  const double err = relativeFrobeniusError(gpu["y"], cpu["y"]);
  EXPECT_LT(err, 2e-2);
  std::cout << "[ extreme  ] " << c.recipe << " " << c.backend << " " << c.id
            << ": relative error vs the interpreter " << err << "\n";
  EXPECT_EQ(countNonFinite(gpu["y"]), 0);
  int64_t zerosGpu = 0, zerosCpu = 0;
  for (size_t i = 0; i < gpu["y"].data.size(); ++i) {
    zerosGpu += gpu["y"].data[i] == 0.0f;
    zerosCpu += cpu["y"].data[i] == 0.0f;
  }
  EXPECT_LE(zerosGpu, zerosCpu + 2) << "outputs lost to zero";
  EXPECT_TRUE(deviceReport(*exe).clean());
}

std::vector<MagnitudeCase> magnitudeCases() {
  std::vector<MagnitudeCase> out;
  for (const char *r : {"tensorwise", "rowwise", "blockwise", "delayed"})
    for (const char *b : {"auto", "generated"}) {
      out.push_back({r, b, 1e-18f, 1.0f, "x1em18"});
      out.push_back({r, b, 1e-30f, 1.0f, "x1em30"});
      out.push_back({r, b, 1e30f, 1.0f, "x1e30"});
      out.push_back({r, b, 1e-30f, 1e30f, "x1em30_w1e30"});
    }
  // Two tiny operands: the generated GEMM multiplies by one inverse scale at a time; cuBLASLt's
  // product of the two is subnormal here (docs/numerics.md).
  for (const char *r : {"tensorwise", "rowwise"})
    out.push_back({r, "generated", 1e-18f, 1e-18f, "x1em18_w1em18"});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Recipes, GpuExtremeMagnitudeTest, ::testing::ValuesIn(magnitudeCases()),
                         [](const auto &info) {
                           return std::string(info.param.recipe) + "_" + info.param.backend + "_" +
                                  info.param.id;
                         });

// --- training ---------------------------------------------------------------------------------

// A delayed training step of the small MLP with a NaN in x after a clean one: each history of
// either half skipped as many amaxes as InterpretedTraining's (the reference continues from the
// GPU's histories), and the output's and the gradients' NaN counts are the reference's.
TEST(GpuNonFiniteTrainingTest, DelayedStepSkipsAsTheInterpreter) {
  FP8C_REQUIRE_GPU();
  using namespace fp8c::trainingtest;
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(readExample("mlp_small"), "mlp_small", diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  TrainingOptions o;
  o.recipe = recipeDefaults(RecipeKind::Delayed);
  o.tokens = 128;
  o.fuse = true;
  o.countNonFinite = true;
  Expected<std::unique_ptr<GpuTraining>> gpu = compileTraining(*mod->graphs()[0], o);
  ASSERT_TRUE(gpu.hasValue()) << gpu.error();
  Expected<std::unique_ptr<InterpretedTraining>> cpu =
      InterpretedTraining::create(*mod->graphs()[0], o);
  ASSERT_TRUE(cpu.hasValue()) << cpu.error();
  GpuTraining &G = **gpu;
  InterpretedTraining &C = **cpu;
  const Graph &fg = *G.graphs().forward;
  std::map<std::string, DeviceBuffer> keep;
  for (int step = 0; step < 2; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    if (step > 0)
      continueFromGpuState(G, C, nullptr);
    std::vector<HostTensor> w = randomInputs(fg, 11, o.tokens);
    std::vector<HostTensor> a = randomInputs(fg, 100 + step, o.tokens);
    NamedTensors hostIn;
    Bindings devIn;
    for (unsigned i = 0; i < fg.numInputs(); ++i) {
      const std::string &name = fg.input(i)->name();
      if (!G.forwardInputs().count(name))
        continue;
      HostTensor h = (name == "x" ? a : w)[i];
      if (name == "x" && step == 1)
        h.data[3 * h.shape[1] + 11] = kNaN;
      hostIn[name] = h;
      devIn[name] = upload("in:" + name, h, keep);
    }
    Bindings devOut;
    for (const auto &[name, type] : G.forwardOutputs())
      devOut[name] = poisoned("out:" + name, type, keep);
    ASSERT_TRUE(G.forward(devIn, devOut, nullptr).isOk());
    ASSERT_TRUE(C.forward(hostIn).hasValue());
    NamedTensors dy;
    Bindings devDy;
    for (const auto &[name, type] : G.outputGrads()) {
      dy[name] = nonZeroTensor(type.shape(), type.dtype(), 500 + step, 0.5);
      devDy[name] = upload("dy:" + name, dy[name], keep);
    }
    Bindings devGrad;
    for (const auto &[name, type] : G.inputGrads())
      devGrad[name] = poisoned("grad:" + name, type, keep);
    ASSERT_TRUE(G.backward(devDy, devGrad, nullptr).isOk());
    ASSERT_TRUE(C.backward(dy).hasValue());
    ASSERT_TRUE(G.enqueueNonFiniteReport(nullptr).isOk());
    ASSERT_EQ((*CudaDriver::get())->cuStreamSynchronize(nullptr), CUDA_SUCCESS);
    const NonFiniteReport dev = G.nonFiniteReport(), ref = C.nonFiniteReport();
    for (const NonFiniteReport::History &h : ref.histories)
      EXPECT_EQ(dev.skippedOf(h.key), h.skipped) << h.key;
    for (const NonFiniteReport::Output &out : ref.outputs)
      EXPECT_EQ(outputCount(dev, out.name), out.count) << out.name;
    if (step == 0)
      EXPECT_TRUE(dev.clean());
    else
      EXPECT_GT(dev.skippedOf("x_amax_history"), 0);
  }
}

} // namespace
