// The cuBLASLt backend on a GPU (skipped with a message elsewhere): FP8 GEMMs in every scale
// mode, epilogue and output type against an f64 reference on the dequantized operands, within
// 1e-3 relative Frobenius error for f32 output (docs/numerics.md), and the largest element
// within D's rounding plus the accumulation's tail (Compare.h's gemmVsExact; D is poisoned with
// NaN first, and any NaN fails); bf16 GEMMs with transposed operands read in place; GELU with
// its input written as the aux output.
#include "runtime/gpu/CublasLtGemm.h"

#include "unit/support/Compare.h"
#include "unit/runtime/CublasLtTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace fp8c {
namespace {

using cublasTest::fp8Config;

// --- on a GPU ------------------------------------------------------------------------------

// Host operands, quantized, and the f64 reference on their dequantized values.
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  DType aType = DType::F8E4M3FN, bType = DType::F8E4M3FN;
  GemmScaleMode mode = GemmScaleMode::Tensor;
  std::vector<uint8_t> a, b;     // row-major [m, k], [n, k] (FP8 bytes or bf16 pairs)
  std::vector<float> invA, invB; // in cuBLASLt's layouts (CublasLtGemm.h)
  std::vector<float> bias;       // [n] values (already bf16-representable), empty if none
  std::vector<double> ref;       // [m, n], before the activation
};

Problem makeProblem(int64_t m, int64_t n, int64_t k, DType aType, DType bType, GemmScaleMode mode,
                    bool withBias, unsigned seed = 1) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.aType = aType;
  p.bType = bType;
  p.mode = mode;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> scaleDist(0.25f, 4.0f);
  const bool bf16 = aType == DType::BF16;
  const int64_t kb = (k + 127) / 128, kb4 = (kb + 3) / 4 * 4, nb = (n + 127) / 128;
  // Inverse scales per mode, and accessors giving the one applying to (row, k).
  switch (mode) {
  case GemmScaleMode::Tensor:
    p.invA = {bf16 ? 1.0f : scaleDist(rng)};
    p.invB = {bf16 ? 1.0f : scaleDist(rng)};
    break;
  case GemmScaleMode::OuterVector:
    for (int64_t i = 0; i < m; ++i)
      p.invA.push_back(scaleDist(rng));
    for (int64_t j = 0; j < n; ++j)
      p.invB.push_back(scaleDist(rng));
    break;
  case GemmScaleMode::Block128:
    p.invA.assign(kb * m, 0.0f); // [kb][m]
    for (auto &v : p.invA)
      v = scaleDist(rng);
    p.invB.assign(nb * kb4, 0.0f); // [nb][kb4]
    for (auto &v : p.invB)
      v = scaleDist(rng);
    break;
  }
  auto invAOf = [&](int64_t i, int64_t kk) {
    switch (mode) {
    case GemmScaleMode::Tensor:
      return double(p.invA[0]);
    case GemmScaleMode::OuterVector:
      return double(p.invA[i]);
    case GemmScaleMode::Block128:
      return double(p.invA[(kk / 128) * m + i]);
    }
    return 0.0;
  };
  auto invBOf = [&](int64_t j, int64_t kk) {
    switch (mode) {
    case GemmScaleMode::Tensor:
      return double(p.invB[0]);
    case GemmScaleMode::OuterVector:
      return double(p.invB[j]);
    case GemmScaleMode::Block128:
      return double(p.invB[(j / 128) * kb4 + kk / 128]);
    }
    return 0.0;
  };
  // Quantized values: random FP8 codes of moderate magnitude (never zero-heavy).
  auto quantize = [&](DType t, std::vector<uint8_t> &out, int64_t rows,
                      std::vector<double> &values) {
    values.resize(rows * k);
    out.resize(rows * k * (t == DType::BF16 ? 2 : 1));
    for (int64_t i = 0; i < rows * k; ++i) {
      float x = normal(rng) * (t == DType::F8E5M2 ? 64.0f : 16.0f);
      if (t == DType::BF16) {
        uint16_t bits = floatToBf16(normal(rng));
        out[2 * i] = uint8_t(bits);
        out[2 * i + 1] = uint8_t(bits >> 8);
        values[i] = bf16ToFloat(bits);
      } else {
        out[i] = floatToFp8(x, t);
        values[i] = fp8ToFloat(out[i], t);
      }
    }
  };
  std::vector<double> av, bv;
  quantize(aType, p.a, m, av);
  quantize(bType, p.b, n, bv);
  if (withBias)
    for (int64_t j = 0; j < n; ++j)
      p.bias.push_back(bf16ToFloat(floatToBf16(normal(rng) * 8.0f)));
  p.ref.assign(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += av[i * k + kk] * invAOf(i, kk) * bv[j * k + kk] * invBOf(j, kk);
      p.ref[i * n + j] = s + (withBias ? p.bias[j] : 0.0);
    }
  return p;
}

double geluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// D ([m, n], as doubles) against the f64 reference `want`: relative Frobenius error within
// `relFrobenius`, the largest element within D's half step plus Compare.h's accumulation tail
// times `accumulation` (the accumulation's own relative Frobenius bound, docs/numerics.md's 1e-3),
// every element finite.
::testing::AssertionResult nearReference(const Problem &p, const std::vector<double> &got,
                                         const std::vector<double> &want, DType d,
                                         double relFrobenius, double accumulation = 1e-3) {
  return testcmp::compare(got, want, {p.m, p.n})
      .within(testcmp::gemmVsExact(d, relFrobenius, accumulation));
}

class CublasLtGpu : public testing::Test {
protected:
  void SetUp() override {
    Expected<CudaDriver *> d = CudaDriver::get();
    if (!d)
      GTEST_SKIP() << "cublasLtCreate needs a GPU: " << d.error();
    drv = *d;
    ASSERT_TRUE(drv->makeCurrent(0));
    auto r = CublasLtRunner::create();
    ASSERT_TRUE(r) << r.error();
    runner = r.take();
  }

  DeviceBuffer upload(const void *data, size_t bytes) {
    auto b = DeviceBuffer::allocate(bytes);
    EXPECT_TRUE(b) << b.error();
    EXPECT_TRUE(b->upload(data, bytes));
    return b.take();
  }

  // Runs `p` with output dtype `dType`, `epilogue`, and returns D as doubles (FP8 D is
  // returned dequantized by 1/scaleD); amax(D) in *amax when asked.
  // With aKMajor / bKMajor false (bf16 only), A and B are uploaded transposed, [K, M] and
  // [K, N], and cuBLASLt reads them in that layout.
  std::vector<double> run(const Problem &p, DType dType, GemmEpilogue epilogue, bool fastAccum,
                          float scaleD = 0.0f, float *amax = nullptr, bool aKMajor = true,
                          bool bKMajor = true, std::vector<double> *auxOut = nullptr) {
    CublasLtGemmConfig c;
    c.m = p.m;
    c.n = p.n;
    c.k = p.k;
    c.lda = aKMajor ? p.k : p.m;
    c.ldb = bKMajor ? p.k : p.n;
    c.aKMajor = aKMajor;
    c.bKMajor = bKMajor;
    c.ldd = p.n;
    c.aType = p.aType;
    c.bType = p.bType;
    c.dType = dType;
    c.scaleMode = p.mode;
    c.epilogue = epilogue;
    c.fastAccum = fastAccum;
    if (!p.bias.empty())
      c.biasType = dType == DType::F16 ? DType::F16 : DType::BF16;
    c.hasScaleD = scaleD != 0.0f;
    c.hasAmaxD = amax != nullptr;
    if (auxOut) { // the GELU input, bf16 [m, n]
      c.auxType = DType::BF16;
      c.ldAux = p.n;
    }
    // [rows, k] 2-byte elements -> [k, rows].
    auto transposed = [&](const std::vector<uint8_t> &x, int64_t rows) {
      std::vector<uint8_t> t(x.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t kk = 0; kk < p.k; ++kk)
          for (int byte = 0; byte < 2; ++byte)
            t[2 * (kk * rows + r) + byte] = x[2 * (r * p.k + kk) + byte];
      return t;
    };
    const std::vector<uint8_t> aHost = aKMajor ? p.a : transposed(p.a, p.m);
    const std::vector<uint8_t> bHost = bKMajor ? p.b : transposed(p.b, p.n);
    DeviceBuffer a = upload(aHost.data(), aHost.size());
    DeviceBuffer b = upload(bHost.data(), bHost.size());
    DeviceBuffer ia = upload(p.invA.data(), p.invA.size() * 4);
    DeviceBuffer ib = upload(p.invB.data(), p.invB.size() * 4);
    std::vector<uint16_t> biasBits;
    for (float v : p.bias)
      biasBits.push_back(c.biasType == DType::F16 ? floatToHalf(v) : floatToBf16(v));
    DeviceBuffer bias = upload(biasBits.data(), biasBits.size() * 2);
    DeviceBuffer sd = upload(&scaleD, 4);
    float zero = 0;
    DeviceBuffer am = upload(&zero, 4);
    const size_t dBytes = size_t(p.m * p.n) * dtypeBytes(dType);
    auto d = DeviceBuffer::allocate(dBytes);
    EXPECT_TRUE(d);
    EXPECT_TRUE(d->fill(0xff)); // poisoned: NaN in every float format
    CublasLtGemmPointers ptr;
    ptr.a = a.data();
    ptr.b = b.data();
    ptr.d = d->data();
    ptr.invScaleA = static_cast<const float *>(ia.data());
    ptr.invScaleB = static_cast<const float *>(ib.data());
    ptr.bias = p.bias.empty() ? nullptr : bias.data();
    ptr.scaleD = c.hasScaleD ? static_cast<const float *>(sd.data()) : nullptr;
    ptr.amaxD = amax ? static_cast<float *>(am.data()) : nullptr;
    auto auxBuf = DeviceBuffer::allocate(size_t(p.m * p.n) * 2);
    EXPECT_TRUE(auxBuf);
    EXPECT_TRUE(auxBuf->fill(0xff)); // poisoned
    ptr.aux = auxOut ? auxBuf->data() : nullptr;
    c.alignA = c.alignB = c.alignD = c.alignBias = c.alignAux = 256;
    lastConfig = c;
    Status s = runner->run(c, ptr, nullptr);
    EXPECT_TRUE(s) << s.message();
    if (!s)
      return {};
    EXPECT_TRUE(checkCu(drv->cuCtxSynchronize(), "cuCtxSynchronize"));
    std::vector<uint8_t> host(dBytes);
    EXPECT_TRUE(d->download(host.data(), dBytes));
    std::vector<double> out(p.m * p.n);
    for (int64_t i = 0; i < p.m * p.n; ++i) {
      switch (dType) {
      case DType::F32: {
        float v;
        std::memcpy(&v, &host[4 * i], 4);
        out[i] = v;
        break;
      }
      case DType::BF16:
        out[i] = bf16ToFloat(uint16_t(host[2 * i] | host[2 * i + 1] << 8));
        break;
      case DType::F16:
        out[i] = halfToFloat(uint16_t(host[2 * i] | host[2 * i + 1] << 8));
        break;
      default:
        out[i] = fp8ToFloat(host[i], dType) / (c.hasScaleD ? scaleD : 1.0f);
      }
    }
    if (amax) {
      EXPECT_TRUE(am.download(amax, 4));
    }
    if (auxOut) {
      std::vector<uint16_t> bits(size_t(p.m * p.n));
      EXPECT_TRUE(auxBuf->download(bits.data(), bits.size() * 2));
      auxOut->clear();
      for (uint16_t b : bits)
        auxOut->push_back(bf16ToFloat(b));
    }
    return out;
  }

  CudaDriver *drv = nullptr;
  std::unique_ptr<CublasLtRunner> runner;
  CublasLtGemmConfig lastConfig; ///< the config of the last run()
};

std::vector<double> activated(const std::vector<double> &ref, GemmEpilogue e) {
  std::vector<double> out = ref;
  for (double &v : out) {
    if (e == GemmEpilogue::Gelu || e == GemmEpilogue::GeluBias)
      v = geluTanh(v);
    if (e == GemmEpilogue::Relu || e == GemmEpilogue::ReluBias)
      v = std::max(v, 0.0);
  }
  return out;
}

TEST_F(CublasLtGpu, TensorwiseF32OutputWithinDesignTolerance) {
  for (auto [aT, bT] : {std::pair{DType::F8E4M3FN, DType::F8E4M3FN},
                        {DType::F8E4M3FN, DType::F8E5M2},
                        {DType::F8E5M2, DType::F8E4M3FN}})
    for (bool fast : {false, true}) {
      Problem p = makeProblem(100, 256, 384, aT, bT, GemmScaleMode::Tensor, false);
      std::vector<double> got = run(p, DType::F32, GemmEpilogue::Default, fast);
      ASSERT_FALSE(got.empty());
      const double err = testcmp::compare(got, p.ref, {p.m, p.n}).relFrobenius();
      EXPECT_TRUE(nearReference(p, got, p.ref, DType::F32, 1e-3))
          << dtypeName(aT) << " x " << dtypeName(bT) << " fast " << fast;
      std::printf("[ CUBLASLT ] %s x %s -> f32, fastAccum=%d: rel. Frobenius error %.2e\n",
                  std::string(dtypeName(aT)).c_str(), std::string(dtypeName(bT)).c_str(), int(fast),
                  err);
    }
}

TEST_F(CublasLtGpu, Epilogues) {
  for (GemmEpilogue e : {GemmEpilogue::Bias, GemmEpilogue::Gelu, GemmEpilogue::GeluBias,
                         GemmEpilogue::Relu, GemmEpilogue::ReluBias}) {
    bool bias =
        e == GemmEpilogue::Bias || e == GemmEpilogue::GeluBias || e == GemmEpilogue::ReluBias;
    Problem p =
        makeProblem(64, 128, 256, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Tensor, bias, 7);
    std::vector<double> got = run(p, DType::BF16, e, true);
    ASSERT_FALSE(got.empty());
    EXPECT_TRUE(nearReference(p, got, activated(p.ref, e), DType::BF16, 4e-3))
        << "bf16 output, epilogue " << int(e);
  }
}

TEST_F(CublasLtGpu, Fp8OutputWithScaleAndAmax) {
  Problem p =
      makeProblem(64, 256, 256, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Tensor, true, 3);
  double refAmax = 0;
  for (double v : p.ref)
    refAmax = std::max(refAmax, std::fabs(v));
  float scaleD = float(448.0 / refAmax);
  float amax = -1;
  std::vector<double> got = run(p, DType::F8E4M3FN, GemmEpilogue::Bias, true, scaleD, &amax);
  ASSERT_FALSE(got.empty());
  EXPECT_NEAR(amax, refAmax, 1e-3 * refAmax) << "AMAX_D is max |D| before the D scale";
  EXPECT_TRUE(nearReference(p, got, p.ref, DType::F8E4M3FN, 0.05)) << "e4m3 keeps 3 mantissa bits";
}

TEST_F(CublasLtGpu, RowwiseOuterVectorScales) {
  if (runner->device().ccMajor != 9 || runner->device().ccMinor != 0)
    GTEST_SKIP() << "outer-vector scales are a compute capability 9.0 mode";
  Problem p = makeProblem(64, 256, 384, DType::F8E4M3FN, DType::F8E4M3FN,
                          GemmScaleMode::OuterVector, true, 5);
  std::vector<double> got = run(p, DType::BF16, GemmEpilogue::Bias, true);
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(nearReference(p, got, p.ref, DType::BF16, 4e-3));
  got = run(p, DType::F32, GemmEpilogue::Bias, false);
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(nearReference(p, got, p.ref, DType::F32, 1e-3));
}

TEST_F(CublasLtGpu, Block128Scales) {
  if (runner->device().ccMajor != 9 || runner->device().ccMinor != 0)
    GTEST_SKIP() << "128-block scales are a compute capability 9.0 mode";
  // N not a multiple of 128 and K not a multiple of 512, to exercise the padded scale pitch.
  Problem p = makeProblem(64, 320, 384, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Block128,
                          false, 9);
  std::vector<double> got = run(p, DType::F32, GemmEpilogue::Default, false);
  ASSERT_FALSE(got.empty());
  const double err = testcmp::compare(got, p.ref, {p.m, p.n}).relFrobenius();
  std::printf("[ CUBLASLT ] block128 e4m3 -> f32: rel. Frobenius error %.2e\n", err);
  EXPECT_TRUE(nearReference(p, got, p.ref, DType::F32, 1e-3));
}

TEST_F(CublasLtGpu, Bf16Gemm) {
  Problem p = makeProblem(64, 128, 256, DType::BF16, DType::BF16, GemmScaleMode::Tensor, true);
  std::vector<double> got = run(p, DType::BF16, GemmEpilogue::GeluBias, false);
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(nearReference(p, got, activated(p.ref, GemmEpilogue::GeluBias), DType::BF16, 4e-3));
}

// A transposed bf16 operand read in place (TRANSA / TRANSB), as the unquantized backward's
// dgrad and wgrad GEMMs do: every layout gives the reference.
TEST_F(CublasLtGpu, Bf16GemmReadsTransposedOperandsInPlace) {
  Problem p = makeProblem(72, 136, 200, DType::BF16, DType::BF16, GemmScaleMode::Tensor, true);
  for (bool aKMajor : {true, false})
    for (bool bKMajor : {true, false}) {
      SCOPED_TRACE(std::string("A ") + (aKMajor ? "[M,K]" : "[K,M]") + ", B " +
                   (bKMajor ? "[N,K]" : "[K,N]"));
      std::vector<double> got =
          run(p, DType::BF16, GemmEpilogue::Bias, false, 0.0f, nullptr, aKMajor, bKMajor);
      ASSERT_FALSE(got.empty());
      EXPECT_TRUE(nearReference(p, got, activated(p.ref, GemmEpilogue::Bias), DType::BF16, 4e-3));
    }
}

// GELU_AUX_BIAS: the GEMM writes the GELU of its result (bf16, or FP8 with a scale and amax, as
// the delayed MLP's first GEMM does) and the GELU input (bias included) as a bf16 aux matrix.
TEST_F(CublasLtGpu, GeluWritesItsInputAsAux) {
  for (DType t : {DType::BF16, DType::F8E4M3FN}) {
    SCOPED_TRACE(std::string("operands ") + std::string(dtypeName(t)));
    Problem p = makeProblem(72, 144, 256, t, t, GemmScaleMode::Tensor, true, 3); // FP8 D: 16 B rows
    const std::vector<double> gelu = activated(p.ref, GemmEpilogue::GeluBias);
    double geluAmax = 0;
    for (double v : gelu)
      geluAmax = std::max(geluAmax, std::fabs(v));
    std::vector<double> aux;
    float amax = -1;
    const bool fp8 = t != DType::BF16;
    std::vector<double> got =
        run(p, fp8 ? DType::F8E4M3FN : DType::BF16, GemmEpilogue::GeluBias, fp8,
            fp8 ? float(448.0 / geluAmax) : 0.0f, fp8 ? &amax : nullptr, true, true, &aux);
    ASSERT_FALSE(got.empty());
    ASSERT_EQ(aux.size(), p.ref.size());
    // p.ref is the GEMM result with its bias: the GELU input, rounded to bf16 in aux.
    EXPECT_TRUE(nearReference(p, aux, p.ref, DType::BF16, 4e-3)) << "aux is not the GELU input";
    EXPECT_TRUE(nearReference(p, got, gelu, fp8 ? DType::F8E4M3FN : DType::BF16, fp8 ? 0.05 : 4e-3))
        << "e4m3 keeps 3 mantissa bits";
    if (fp8)
      EXPECT_NEAR(amax, geluAmax, 1e-3 * geluAmax) << "AMAX_D is max |GELU| before the D scale";
  }
}

TEST_F(CublasLtGpu, ConfigsAreCachedPerM) {
  size_t before = runner->cachedConfigs();
  for (int64_t m : {16, 32, 16}) {
    Problem p =
        makeProblem(m, 128, 128, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Tensor, false);
    ASSERT_FALSE(run(p, DType::BF16, GemmEpilogue::Default, true).empty());
  }
  EXPECT_EQ(runner->cachedConfigs(), before + 2);
}

// Autotuning (opt-in): the first call times the heuristic's candidates under a sustained load,
// keeps the fastest, and its FP8 D and amax (written by every timed call) stay right; the
// record holds every candidate's time in the heuristic's order. Off, nothing is timed.
TEST_F(CublasLtGpu, AutotuneKeepsTheFastestCandidateAndItsResultIsRight) {
  runner->setAutotune(true);
  Problem p =
      makeProblem(512, 1024, 768, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Tensor, false);
  double refAmax = 0;
  for (double v : p.ref)
    refAmax = std::max(refAmax, std::fabs(v));
  float amax = -1;
  std::vector<double> got =
      run(p, DType::F8E4M3FN, GemmEpilogue::Default, true, float(448.0 / refAmax), &amax);
  ASSERT_FALSE(got.empty());
  EXPECT_NEAR(amax, refAmax, 2e-3 * refAmax) << "fast accumulation over K = 1024";
  // Fast accumulation over K = 768: twice the design's accumulation bound, as the amax's.
  EXPECT_TRUE(nearReference(p, got, p.ref, DType::F8E4M3FN, 0.05, 2e-3))
      << "e4m3 keeps 3 mantissa bits";
  std::optional<CublasLtRunner::TuneResult> t = runner->tuneResult(lastConfig);
  if (!t) {
    std::printf("[ autotune ] the heuristic offered one algorithm: nothing to time\n");
  } else {
    std::printf("[ autotune ] %d candidates: heuristic's first %.1f us, kept %.1f us\n",
                t->candidates, t->heuristicUs, t->chosenUs);
    EXPECT_GE(t->candidates, 2);
    EXPECT_LE(t->chosenUs, t->heuristicUs);
    EXPECT_GT(t->chosenUs, 0.0);
    ASSERT_EQ(t->candidateUs.size(), size_t(t->candidates));
    EXPECT_EQ(t->candidateUs[0], t->heuristicUs);
    ASSERT_GE(t->chosen, 0);
    ASSERT_LT(t->chosen, t->candidates);
    EXPECT_EQ(t->candidateUs[size_t(t->chosen)], t->chosenUs);
    EXPECT_EQ(*std::min_element(t->candidateUs.begin(), t->candidateUs.end()), t->chosenUs);
  }
  runner->setAutotune(false);
  Problem q =
      makeProblem(256, 512, 384, DType::F8E4M3FN, DType::F8E4M3FN, GemmScaleMode::Tensor, false);
  ASSERT_FALSE(run(q, DType::BF16, GemmEpilogue::Default, true).empty());
  EXPECT_FALSE(runner->tuneResult(lastConfig)) << "autotuning off: nothing timed";
}

TEST_F(CublasLtGpu, UnsupportedConfigIsAnError) {
  CublasLtGemmConfig c = fp8Config();
  c.scaleMode = GemmScaleMode::Block128;
  c.epilogue = GemmEpilogue::Gelu;
  CublasLtGemmPointers p;
  Status s = runner->run(c, p, nullptr);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cuBLASLt cannot run this GEMM"), std::string::npos) << s.message();
}

} // namespace
} // namespace fp8c
