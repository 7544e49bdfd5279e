// GPU tests of autotuning (runtime/gpu/GemmSm90Autotune.h) and of the measured `auto` backend
// (CompileOptions::autotune). Skipped with a message where no CUDA device answers, or where the
// device is not sm_90; run by the lead on the H200:
//   - autotuneGemmSm90 on M=256 N=776 K=528 (both tile heights among the candidates) times
//     every candidate, returns the fastest, and the winner's D matches the heuristic kernel's
//     D (and both an f64 reference) on random e4m3 operands, D poisoned first;
//   - a second tune with a fresh cache object on the same directory reads the winner from disk
//     (timing options that would fail if anything were timed);
//   - the MLP example under `auto` at M = 256 (maxTokens 256: tuned) logs a measured choice
//     per FP8 GEMM, its outputs match the interpreter (rowwise: the first 37 rows, rows are
//     independent) and the cuBLASLt backend (tensorwise), a captured CUDA graph replays it bit
//     for bit, a second compile takes the measurement from the cache, `generated` logs its
//     autotuned winner and `cublaslt` / autotune off measure nothing.
#include "unit/runtime/GpuTestSupport.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/gpu/GemmSm90Autotune.h"

#include "unit/support/TempFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace fp8c {
namespace {

using namespace fp8c::gputest;

const std::filesystem::path kTempRoot = testfiles::tempRoot("fp8c-autotune-gpu");

// A runner on device 0; nullptr (the test skips) only where the device is not sm_90.
std::unique_ptr<GemmSm90Runner> makeRunner(std::string *skip) {
  CudaDriver *drv = *CudaDriver::get();
  Status st = drv->makeCurrent(0);
  EXPECT_TRUE(st.isOk()) << st.message();
  Expected<Device> dev = drv->device(0);
  EXPECT_TRUE(dev.hasValue());
  if (!st || !dev)
    return nullptr;
  if (dev->ccMajor != 9 || dev->ccMinor != 0) {
    *skip = "needs an sm_90 GPU; device 0 is " + dev->str();
    return nullptr;
  }
  Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
  EXPECT_TRUE(r.hasValue()) << (r ? "" : r.error());
  return r ? r.take() : nullptr;
}

#define FP8C_REQUIRE_SM90_RUNNER(runner)                                                           \
  FP8C_REQUIRE_GPU();                                                                              \
  std::string skip_;                                                                               \
  std::unique_ptr<GemmSm90Runner> runner = makeRunner(&skip_);                                     \
  if (!skip_.empty())                                                                              \
    GTEST_SKIP() << skip_;                                                                         \
  ASSERT_TRUE(runner)

// One small problem with random e4m3 operands, scales 0.5 and 0.25, a bf16 D.
struct SmallGemm {
  static constexpr int64_t M = 256, N = 776, K = 528; // K: 16-byte rows, a K tail
  GemmSm90Problem prob{M, N, K, K, K, N, 0, 0};
  std::vector<float> a, b; // the e4m3 values
  DeviceBuffer da, db, dd, sa, sb;

  SmallGemm() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> v(-3.0f, 3.0f);
    auto fp8 = [&](size_t n, std::vector<float> &vals) {
      vals.resize(n);
      std::vector<uint8_t> bytes(n);
      for (size_t i = 0; i < n; ++i) {
        bytes[i] = floatToFp8(v(rng), DType::F8E4M3FN);
        vals[i] = fp8ToFloat(bytes[i], DType::F8E4M3FN);
      }
      Expected<DeviceBuffer> buf = DeviceBuffer::allocate(n);
      EXPECT_TRUE(buf.hasValue());
      EXPECT_TRUE(buf->upload(bytes.data(), n).isOk());
      return buf.take();
    };
    da = fp8(size_t(M * K), a);
    db = fp8(size_t(N * K), b);
    Expected<DeviceBuffer> d = DeviceBuffer::allocate(size_t(M * N * 2));
    EXPECT_TRUE(d.hasValue());
    dd = d.take();
    auto scalar = [](float x) {
      Expected<DeviceBuffer> s = DeviceBuffer::allocate(16);
      EXPECT_TRUE(s.hasValue());
      EXPECT_TRUE(s->upload(&x, 4).isOk());
      return s.take();
    };
    sa = scalar(0.5f);
    sb = scalar(0.25f);
  }

  GemmSm90Pointers pointers() const {
    GemmSm90Pointers p;
    p.a = da.data();
    p.b = db.data();
    p.d = dd.data();
    p.invScaleA = static_cast<const float *>(sa.data());
    p.invScaleB = static_cast<const float *>(sb.data());
    return p;
  }

  // D of kernel `k`, into a poisoned buffer.
  std::vector<uint16_t> run(GemmSm90Runner &runner, const GemmSm90Spec &k) {
    EXPECT_TRUE(dd.fill(0xFF).isOk());
    Status st = runner.run(k, prob, pointers(), nullptr);
    EXPECT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ((*CudaDriver::get())->cuStreamSynchronize(nullptr), CUDA_SUCCESS);
    std::vector<uint16_t> out(size_t(M * N));
    EXPECT_TRUE(dd.download(out.data(), out.size() * 2).isOk());
    return out;
  }

  /// D as doubles.
  static std::vector<double> values(const std::vector<uint16_t> &d) {
    std::vector<double> v;
    for (uint16_t x : d)
      v.push_back(bf16ToFloat(x));
    return v;
  }

  /// D against the f64 product.
  testcmp::Comparison errorOf(const std::vector<uint16_t> &d) const {
    std::vector<double> ref(size_t(M * N));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double r = 0;
        for (int64_t k = 0; k < K; ++k)
          r += double(a[size_t(i * K + k)]) * double(b[size_t(j * K + k)]);
        ref[size_t(i * N + j)] = r * 0.5 * 0.25;
      }
    return testcmp::compare(values(d), ref, {M, N});
  }
};

// SmallGemm's D against f64: bf16 rounding (~1.1e-3 relative Frobenius) plus the accumulation
// (GemmSm90GpuTest's 1e-3): 3e-3; the largest element within D's half bf16 step plus four times
// the accumulation's bound (Compare.h's gemmVsExact).
const testcmp::Bounds kSmallGemmVsExact = testcmp::gemmVsExact(DType::BF16, 3e-3, 1e-3);

TEST(GpuGemmSm90Autotune, WinnerIsTheFastestCandidateAndMatchesTheHeuristicKernel) {
  FP8C_REQUIRE_SM90_RUNNER(runner);
  SmallGemm g;
  GemmSm90TuneCache cache(testfiles::tempDir("fp8c-autotune-gpu", "winner"));
  const GemmSm90Spec base; // e4m3 x e4m3 -> bf16, tensor scales
  Expected<GemmSm90TuneResult> r =
      autotuneGemmSm90(*runner, base, g.prob, g.pointers(), nullptr, cache);
  ASSERT_TRUE(r.hasValue()) << r.error();
  EXPECT_FALSE(r->fromCache);
  EXPECT_TRUE(r->cacheWriteError.empty()) << r->cacheWriteError;
  const std::vector<GemmSm90Spec> cands = gemmSm90Candidates(base, g.prob, runner->device());
  ASSERT_EQ(r->entry.candidates.size(), cands.size());
  ASSERT_GE(cands.size(), 4u) << "M = 256 should try both tile heights";
  double best = 1e300;
  for (size_t i = 0; i < cands.size(); ++i) {
    EXPECT_EQ(r->entry.candidates[i].name, cands[i].name());
    EXPECT_GT(r->entry.candidates[i].us, 0.0) << cands[i].name();
    best = std::min(best, r->entry.candidates[i].us);
    std::cout << "[ autotune ] " << cands[i].name() << ": " << r->entry.candidates[i].us << " us\n";
  }
  // The fastest, or the heuristic's config (first) where none is 1 % faster than it.
  if (best < 0.99 * r->entry.candidates[0].us)
    EXPECT_EQ(r->entry.winnerUs, best);
  else
    EXPECT_EQ(r->entry.winner.name(), cands[0].name());
  EXPECT_EQ(r->entry.heuristicUs, r->entry.candidates[0].us);
  EXPECT_EQ(r->winner.name(), r->entry.winner.name());
  std::cout << "[ autotune ] winner " << r->winner.name() << "\n";

  const GemmSm90Spec heuristic = chooseGemmSm90Tiles(base, g.prob, runner->device());
  const std::vector<uint16_t> dh = g.run(*runner, heuristic);
  const std::vector<uint16_t> dw = g.run(*runner, r->winner);
  int64_t mismatches = 0;
  for (size_t i = 0; i < dh.size(); ++i)
    mismatches += dh[i] != dw[i];
  const testcmp::Comparison apart =
      testcmp::compare(SmallGemm::values(dw), SmallGemm::values(dh), {SmallGemm::M, SmallGemm::N});
  std::cout << "[ autotune ] winner vs heuristic: " << mismatches << " of " << dh.size()
            << " bf16 values differ, relative difference " << apart.relFrobenius() << "\n";
  // Another tiling may sum the K products in another order: at most a bf16 rounding apart
  // (one bf16 step, 2^-7 of an element), beside the sums' own difference (f32, under 2^-12 of
  // an element at K = 528): two bf16 steps. A NaN is an element the winner left poisoned.
  EXPECT_TRUE(apart.within({5e-3, 2 * testcmp::fullStep(DType::BF16)})) << "winner vs heuristic";
  EXPECT_TRUE(g.errorOf(dh).within(kSmallGemmVsExact)) << "heuristic kernel vs f64";
  EXPECT_TRUE(g.errorOf(dw).within(kSmallGemmVsExact)) << "winner vs f64";
}

TEST(GpuGemmSm90Autotune, SecondTuneReadsTheWinnerFromDisk) {
  FP8C_REQUIRE_SM90_RUNNER(runner);
  SmallGemm g;
  const std::string dir = testfiles::tempDir("fp8c-autotune-gpu", "disk");
  const GemmSm90Spec base;
  GemmSm90TuneEntry first;
  {
    GemmSm90TuneCache cache(dir);
    Expected<GemmSm90TuneResult> r =
        autotuneGemmSm90(*runner, base, g.prob, g.pointers(), nullptr, cache);
    ASSERT_TRUE(r.hasValue()) << r.error();
    EXPECT_FALSE(r->fromCache);
    first = r->entry;
  }
  GemmSm90TuneCache fresh(dir); // nothing in memory
  GemmSm90SustainedTiming noTiming;
  noTiming.rounds = 0; // timeGpuCallsSustainedUs refuses this: any timing would fail the call
  Expected<GemmSm90TuneResult> again =
      autotuneGemmSm90(*runner, base, g.prob, g.pointers(), nullptr, fresh, noTiming);
  ASSERT_TRUE(again.hasValue()) << again.error();
  EXPECT_TRUE(again->fromCache);
  EXPECT_EQ(fresh.stats().diskHits, 1u);
  EXPECT_EQ(again->winner.name(), first.winner.name());
  EXPECT_EQ(again->entry.winnerUs, first.winnerUs);
  ASSERT_EQ(again->entry.candidates.size(), first.candidates.size());
  // And the winner read back runs.
  const std::vector<uint16_t> d = g.run(*runner, again->winner);
  EXPECT_TRUE(g.errorOf(d).within(kSmallGemmVsExact)) << "the winner read back";
  // The same problem with the timing options that fail, on an empty directory: an error that
  // names the autotune, not a crash.
  GemmSm90TuneCache empty(testfiles::tempDir("fp8c-autotune-gpu", "empty"));
  Expected<GemmSm90TuneResult> failed =
      autotuneGemmSm90(*runner, base, g.prob, g.pointers(), nullptr, empty, noTiming);
  ASSERT_FALSE(failed.hasValue());
  EXPECT_NE(failed.error().find("autotune of the generated sm90 GEMM"), std::string::npos)
      << failed.error();
}

// --- The measured auto backend on the MLP example -----------------------------------------

std::unique_ptr<Module> parse(const std::string &text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "<test>", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  return m;
}

std::string readExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string passesFor(const std::string &recipe) {
  return "shape-infer,canonicalize,quantize{recipe=" + recipe + "},canonicalize,cse,fuse,dce";
}

std::unique_ptr<Executable> compileWith(const Graph &g, const std::string &recipe, int64_t maxM,
                                        GemmBackend backend, bool autotune) {
  CompileOptions o;
  o.passes = passesFor(recipe);
  o.load.maxTokens = maxM;
  o.backend = backend;
  o.load.autotune = autotune;
  Expected<std::unique_ptr<Executable>> exe = compile(g, o);
  EXPECT_TRUE(exe.hasValue()) << (exe ? "" : exe.error());
  return exe ? exe.take() : nullptr;
}


bool isSm90() {
  Expected<Device> dev = (*CudaDriver::get())->device(0);
  return dev && dev->ccMajor == 9 && dev->ccMinor == 0;
}

// The plan's backend of the GEMM step a log line names ("<step name>: ...").
GemmBackend planBackendOf(const Executable &exe, const std::string &line) {
  const std::string name = line.substr(0, line.find(':'));
  for (const Step &s : exe.plan().steps)
    if (const auto *g = std::get_if<GemmStep>(&s); g && g->name == name)
      return g->backend;
  ADD_FAILURE() << "no GEMM step named " << name;
  return GemmBackend::Auto;
}

// Every GEMM of the last run logged a measured auto choice, except a step the plan put on the
// generated GEMM (an epilogue only it computes: the rowwise GELU with its row amax), which
// logs its tuned kernel; returns the lines.
std::vector<std::string> expectMeasured(const Executable &exe, const std::string &what) {
  std::vector<std::string> log = exe.gemmBackendLog();
  EXPECT_EQ(log.size(), 2u) << what << ": the MLP has two FP8 GEMMs";
  for (const std::string &line : log) {
    std::cout << "[ auto     ] " << what << ": " << line << "\n";
    if (planBackendOf(exe, line) == GemmBackend::Generated) {
      EXPECT_NE(line.find(": generated sm90 "), std::string::npos) << what << ": " << line;
      // Tuned here, or earlier in this process (FP8C_CACHE_DIR is shared by the GPU tests).
      EXPECT_TRUE(line.find("autotuned at M=256") != std::string::npos ||
                  line.find("autotuned for M bucket 256: from the cache") != std::string::npos)
          << what << ": " << line;
      continue;
    }
    EXPECT_NE(line.find("(auto: measured "), std::string::npos) << what << ": " << line;
    EXPECT_NE(line.find(" at M=256"), std::string::npos) << what << ": " << line;
    const bool gen = line.find(": generated sm90 ") != std::string::npos;
    const bool lt = line.find(": cublaslt (") != std::string::npos;
    EXPECT_TRUE(gen != lt) << what << ": " << line;
    if (gen)
      EXPECT_NE(line.find(" vs cuBLASLt "), std::string::npos) << line;
    if (lt)
      EXPECT_NE(line.find(" vs generated "), std::string::npos) << line;
  }
  return log;
}

// Rowwise scaling keeps rows independent: the first `rows` rows of every output of a run on
// `in` against the interpreter on those rows of x alone (Compare.h's kFp8VsInterpreter), and no
// poisoned element left in any row.
void expectHeadMatchesInterpreter(const Executable &exe,
                                  const std::map<std::string, HostTensor> &in,
                                  std::map<std::string, HostTensor> &gpu, int64_t rows,
                                  const std::string &what) {
  std::map<std::string, HostTensor> head = in;
  const int64_t d = in.at("x").shape[1];
  HostTensor x = HostTensor::make({rows, d}, in.at("x").dtype);
  std::copy(in.at("x").data.begin(), in.at("x").data.begin() + rows * d, x.data.begin());
  head["x"] = x;
  std::map<std::string, HostTensor> cpu = runOnCpu(exe.graph(), head);
  for (const std::string &name : exe.outputNames()) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    EXPECT_TRUE(testcmp::allFinite(gpu[name])) << what << " '" << name << "'";
    const int64_t cols = gpu[name].shape[1];
    HostTensor top = HostTensor::make({rows, cols}, gpu[name].dtype);
    std::copy(gpu[name].data.begin(), gpu[name].data.begin() + rows * cols, top.data.begin());
    const testcmp::Comparison cmp = testcmp::compare(top, cpu[name]);
    const double rel = cmp.relFrobenius();
    EXPECT_TRUE(cmp.within(testcmp::kFp8VsInterpreter))
        << what << " '" << name << "', first " << rows << " rows";
    std::cout << "[ auto     ] " << what << " '" << name << "': first " << rows
              << " rows, relative error vs interpreter " << rel << "\n";
  }
}

TEST(GpuAutotuneAutoBackend, MlpLogsAMeasuredChoiceAndStillMatches) {
  FP8C_REQUIRE_GPU();
  if (!isSm90())
    GTEST_SKIP() << "needs an sm_90 GPU (the measurement is Hopper-only)";
  const int64_t m = 256, rows = 37; // kGemmSm90TuneMinRows: the steps are tuned
  static_assert(kGemmSm90TuneMinRows <= 256);
  std::unique_ptr<Module> mod = parse(readExample("mlp.mlir"));
  ASSERT_TRUE(mod);
  const Graph &graph = *mod->graphs()[0];

  // rowwise: rows are independent, so the first 37 rows are checked against the interpreter.
  {
    std::unique_ptr<Executable> exe = compileWith(graph, "rowwise", m, GemmBackend::Auto, true);
    ASSERT_TRUE(exe);
    std::map<std::string, HostTensor> in = inputsFor(*exe, 21, m);
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
    expectMeasured(*exe, "mlp rowwise M=256");
    expectHeadMatchesInterpreter(*exe, in, gpu, rows, "mlp rowwise M=256");
  }

  // tensorwise: against the cuBLASLt backend on the same inputs; a captured graph replays it;
  // a second compile takes the measurement from the cache.
  std::unique_ptr<Executable> exe = compileWith(graph, "tensorwise", m, GemmBackend::Auto, true);
  std::unique_ptr<Executable> lt = compileWith(graph, "tensorwise", m, GemmBackend::CublasLt, true);
  ASSERT_TRUE(exe && lt);
  std::map<std::string, HostTensor> in = inputsFor(*exe, 22, m);
  CudaDriver *drv = *CudaDriver::get();
  CUstream stream = nullptr;
  ASSERT_EQ(drv->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  std::map<std::string, DeviceBuffer> buffers;
  Bindings b;
  std::map<std::string, HostTensor> eager = runOnDevice(*exe, in, stream, &buffers, &b);
  std::map<std::string, HostTensor> ref = runOnDevice(*lt, in, nullptr);
  expectMeasured(*exe, "mlp tensorwise M=256");
  for (const std::string &line : lt->gemmBackendLog()) {
    EXPECT_EQ(line.find("measured"), std::string::npos) << "--backend=cublaslt measured: " << line;
    EXPECT_NE(line.find(": cublaslt"), std::string::npos) << line;
  }
  for (const std::string &name : exe->outputNames()) {
    ASSERT_TRUE(eager.count(name) && ref.count(name)) << name;
    const testcmp::Comparison cmp = testcmp::compare(eager[name], ref[name]);
    const double rel = cmp.relFrobenius();
    EXPECT_TRUE(cmp.within(testcmp::kFp8VsInterpreter))
        << "tensorwise '" << name << "' vs the cuBLASLt backend";
    std::cout << "[ auto     ] mlp tensorwise M=256 '" << name
              << "': auto vs cuBLASLt backend, relative error " << rel << "\n";
  }
  // Capture: run() decides nothing new, so it captures and replays to the same bits (the eager
  // run's outputs are all finite, compared above).
  for (const std::string &name : exe->outputNames())
    ASSERT_TRUE(buffers.at(name).fill(0xFF, stream).isOk());
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

  std::unique_ptr<Executable> again = compileWith(graph, "tensorwise", m, GemmBackend::Auto, true);
  ASSERT_TRUE(again);
  runOnDevice(*again, in, nullptr);
  for (const std::string &line : expectMeasured(*again, "mlp tensorwise M=256, second compile"))
    EXPECT_NE(line.find("from the cache"), std::string::npos) << line;

  // --backend=generated: the autotuned winner, named in the log.
  std::unique_ptr<Executable> gen =
      compileWith(graph, "tensorwise", m, GemmBackend::Generated, true);
  ASSERT_TRUE(gen);
  std::map<std::string, HostTensor> genOut = runOnDevice(*gen, in, nullptr);
  for (const std::string &line : gen->gemmBackendLog()) {
    std::cout << "[ generated] " << line << "\n";
    EXPECT_NE(line.find(": generated sm90 "), std::string::npos) << line;
    EXPECT_NE(line.find("autotuned"), std::string::npos) << line;
    EXPECT_EQ(line.find("auto: measured"), std::string::npos) << line;
  }
  for (const std::string &name : gen->outputNames())
    EXPECT_TRUE(testcmp::compare(genOut[name], ref[name]).within(testcmp::kFp8VsInterpreter))
        << name;

  // Autotune off: the heuristics, nothing measured.
  std::unique_ptr<Executable> off = compileWith(graph, "tensorwise", m, GemmBackend::Auto, false);
  ASSERT_TRUE(off);
  runOnDevice(*off, in, nullptr);
  for (const std::string &line : off->gemmBackendLog()) {
    EXPECT_EQ(line.find("measured"), std::string::npos) << "autotune off measured: " << line;
    EXPECT_EQ(line.find("autotuned"), std::string::npos) << line;
  }
}

// Buffers only a GEMM step's cuBLASLt form touches (the rowwise dual GEMM's gate and up
// results for its swiglu launch) are sized, once auto measured the generated GEMM faster at
// maxTokens' bucket (M 257-512), for M 256, the largest M that runs cuBLASLt; runs at M 512
// (generated) and M 200 (cuBLASLt form, in the smaller buffers) match the interpreter's rows.
TEST(GpuAutotuneAutoBackend, CublasOnlyBuffersSizedBelowTheMeasuredBucket) {
  FP8C_REQUIRE_GPU();
  if (!isSm90())
    GTEST_SKIP() << "needs an sm_90 GPU (the measurement is Hopper-only)";
  const int64_t maxM = 512, rows = 8;
  std::unique_ptr<Module> mod = parse(readExample("swiglu_mlp.mlir"));
  ASSERT_TRUE(mod);
  std::unique_ptr<Executable> exe =
      compileWith(*mod->graphs()[0], "rowwise", maxM, GemmBackend::Auto, true);
  ASSERT_TRUE(exe);
  const GemmStep *dual = nullptr;
  for (const Step &s : exe->plan().steps)
    if (const auto *g = std::get_if<GemmStep>(&s); g && g->b2 >= 0)
      dual = g;
  ASSERT_TRUE(dual && dual->gateD >= 0 && dual->upD >= 0) << "rowwise swiglu: one dual step";
  for (int64_t m : {maxM, int64_t(200)}) {
    std::map<std::string, HostTensor> in = inputsFor(*exe, 23, m);
    std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
    std::string line;
    for (const std::string &l : exe->gemmBackendLog())
      if (l.rfind(dual->name + ":", 0) == 0)
        line = l;
    std::cout << "[ auto     ] swiglu rowwise M=" << m << ": " << line << "\n";
    if (m == maxM) {
      const bool generated = line.find(": generated sm90 ") != std::string::npos;
      for (int b : {dual->gateD, dual->upD}) {
        const BufferDesc &d = exe->plan().buffers[size_t(b)];
        const int64_t got = exe->memoryPlan().slots[size_t(b)].bytes;
        EXPECT_EQ(got, d.bytes(generated ? 256 : maxM)) << d.name << ": " << line;
        std::cout << "[ auto     ] %" << d.name << ": " << got << " bytes (" << d.bytes(maxM)
                  << " at M " << maxM << ")\n";
      }
    } else {
      EXPECT_NE(line.find(": cublaslt"), std::string::npos)
          << "M 200 is below the bucket: " << line;
    }
    expectHeadMatchesInterpreter(*exe, in, gpu, rows, "swiglu rowwise M=" + std::to_string(m));
  }
}

} // namespace
} // namespace fp8c
