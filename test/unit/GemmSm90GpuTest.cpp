// The generated Hopper FP8 GEMM (runtime/gpu/GemmSm90.h) on the GPU against an f64 reference
// of the dequantized operands: random FP8 operands (never all zero) with garbage in the row
// padding, D poisoned with 0xFF (NaN in every float format) and one spare row and padded
// columns that must stay poisoned; M in {1, 7, 100, 8191, 8192}, N and K not multiples of the
// tile; every scale mode, epilogue and tile shape, in both consumer schedules (cooperative and
// ping-pong, the latter also with few persistent blocks so that each warpgroup runs many tiles,
// and K < 128 so that a tile is one ring stage). Error: relative Frobenius norm of D - ref
// (in D's stored units, i.e. times scaleD for an FP8 D). An f32 D must be within 1e-3; a
// narrower D within 1e-3 plus the error of rounding the exact result to D's dtype
// (||round(ref) - ref|| / ||ref||, about 1.1e-3 for bf16), which no kernel can avoid. Fast
// accumulation (the tensor cores' own FP8 accumulation, bit-identical to cuBLASLt's fast
// accumulation) was measured at about 4e-4 for K = 1000 (f32 D); promotion per K block adds
// in f32 (the test prints every case's error).
// Skips without an sm_90 GPU.
#include "GpuTestSupport.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>

namespace fp8c {
namespace {

struct Case {
  GemmSm90Kernel k;
  int64_t m, n, kk;
  int maxBlocks = 0;
  double tol = 1e-3; ///< beyond the rounding of the exact result to D's dtype
};

double act(double x, GemmActivation a) {
  switch (a) {
  case GemmActivation::None: return x;
  case GemmActivation::Relu: return x > 0 ? x : 0;
  case GemmActivation::GeluTanh:
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  case GemmActivation::GeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case GemmActivation::Silu: return x / (1 + std::exp(-x));
  }
  return x;
}

std::vector<uint8_t> bytesOf(const std::vector<float> &v, DType t) {
  std::vector<uint8_t> out(v.size() * dtypeBytes(t));
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits = encodeBits(v[i], t);
    std::memcpy(out.data() + i * dtypeBytes(t), &bits, dtypeBytes(t));
  }
  return out;
}

DeviceBuffer upload(const void *data, size_t bytes) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(std::max<size_t>(bytes, 16));
  EXPECT_TRUE(b.hasValue()) << (b ? "" : b.error());
  if (!b)
    return {};
  EXPECT_TRUE(b->upload(data, bytes).isOk());
  return b.take();
}

/// D's row pitch for N columns. N % 8 != 0: N + 3, even for odd N, odd for even N (both
/// register store paths). Otherwise a pitch of whole 16-byte units with 8 or 16 padding columns
/// (N % 16 == 0): the TMA-store epilogue for a 16-bit D (N % 8 == 0) or an FP8 D (N % 16 == 0).
int64_t lddFor(int64_t n) { return n % 16 == 0 ? n + 16 : n % 8 == 0 ? n + 8 : n + 3; }

void runCase(GemmSm90Runner &runner, const Case &c, std::mt19937 &rng) {
  const GemmSm90Kernel &k = c.k;
  SCOPED_TRACE(k.name() + " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
               " K=" + std::to_string(c.kk) + " blocks=" + std::to_string(c.maxBlocks));
  const int64_t M = c.m, N = c.n, K = c.kk;
  const int64_t lda = (K + 15) / 16 * 16 + 16, ldb = (K + 15) / 16 * 16;
  const int64_t ldd = lddFor(N);
  const int64_t kBlocks = (K + 127) / 128, nBlocks = (N + 127) / 128;
  std::uniform_real_distribution<float> val(-3.0f, 3.0f), scale(0.25f, 2.0f);
  std::uniform_int_distribution<int> byte(0, 255);

  // FP8 operands with random garbage (never NaN) in the padding columns past K.
  auto operand = [&](int64_t rows, int64_t ld, DType t, std::vector<uint8_t> &bytes,
                     std::vector<double> &deq) {
    bytes.assign(size_t(rows * ld), 0);
    deq.assign(size_t(rows * K), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < ld; ++j) {
        uint8_t q = floatToFp8(val(rng), t);
        if (j >= K)
          q = uint8_t(byte(rng) & 0x3F); // finite garbage the kernel must not read
        else
          deq[size_t(r * K + j)] = fp8ToFloat(q, t);
        bytes[size_t(r * ld + j)] = q;
      }
  };
  std::vector<uint8_t> aBytes, bBytes;
  std::vector<double> a, b;
  operand(M, lda, k.aType, aBytes, a);
  operand(N, ldb, k.bType, bBytes, b);
  // The bf16-A prologue (castA): A is bf16 (padding garbage past K, about 1 % of the elements
  // large enough to saturate), quantized by the kernel with quantA (tensor or per row); the
  // reference quantizes it on the host the same way (f32 product, RNE, saturating) into
  // aBytes / a, and the kernel's D must equal, bit for bit, the same config's D on those FP8
  // bytes (castA off), besides the f64 reference's tolerance.
  std::vector<uint16_t> a16;
  std::vector<float> quantA;
  float amaxA = 0;
  if (k.castA) {
    const int64_t ld16 = lda; // elements; a multiple of 8
    a16.assign(size_t(M * ld16), 0);
    std::uniform_real_distribution<float> q(0.5f, 40.0f);
    std::uniform_int_distribution<int> pct(0, 99);
    quantA.assign(k.scaleMode == GemmScaleMode::OuterVector ? size_t(M) : 1, 0.0f);
    for (float &x : quantA)
      x = q(rng);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < ld16; ++j) {
        float v = val(rng) * 4.0f;
        if (pct(rng) == 0)
          v *= 100.0f;
        const uint16_t h = floatToBf16(v);
        a16[size_t(r * ld16 + j)] = j < K ? h : uint16_t(0x7F80 | (byte(rng) & 0x3F)); // NaN pad
        if (j >= K)
          continue;
        const float x = bf16ToFloat(h);
        amaxA = std::max(amaxA, std::fabs(x));
        const float s = quantA[quantA.size() == 1 ? 0 : size_t(r)];
        const uint8_t q8 = floatToFp8(x * s, k.aType);
        aBytes[size_t(r * lda + j)] = q8;
        a[size_t(r * K + j)] = fp8ToFloat(q8, k.aType);
      }
  }

  GemmSm90Problem prob{M, N, K, lda, ldb, ldd};
  std::vector<float> sa, sb;
  if (k.scaleMode == GemmScaleMode::Tensor) {
    sa = {scale(rng)};
    sb = {scale(rng)};
  } else if (k.scaleMode == GemmScaleMode::OuterVector) {
    for (int64_t i = 0; i < M; ++i)
      sa.push_back(scale(rng));
    for (int64_t i = 0; i < N; ++i)
      sb.push_back(scale(rng));
  } else {
    prob.ldsa = (M + 3) / 4 * 4;
    prob.ldsb = (kBlocks + 3) / 4 * 4;
    sa.resize(size_t(kBlocks * prob.ldsa));
    sb.resize(size_t(nBlocks * prob.ldsb));
    for (float &x : sa)
      x = scale(rng);
    for (float &x : sb)
      x = scale(rng);
  }
  std::vector<float> bias;
  if (k.biasType)
    for (int64_t i = 0; i < N; ++i)
      bias.push_back(roundToDType(val(rng), *k.biasType));
  const float scaleD = 0.75f;

  // f64 reference (threads over rows).
  std::vector<double> ref(size_t(M * N));
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t kb = 0; kb < kBlocks; ++kb) {
          double part = 0;
          for (int64_t x = kb * 128; x < std::min(K, kb * 128 + 128); ++x)
            part += a[size_t(i * K + x)] * b[size_t(j * K + x)];
          if (k.scaleMode == GemmScaleMode::Block128)
            part *= double(sa[size_t(kb * prob.ldsa + i)]) *
                    double(sb[size_t((j / 128) * prob.ldsb + kb)]);
          acc += part;
        }
        if (k.scaleMode == GemmScaleMode::Tensor)
          acc *= double(sa[0]) * double(sb[0]);
        else if (k.scaleMode == GemmScaleMode::OuterVector)
          acc *= double(sa[size_t(i)]) * double(sb[size_t(j)]);
        if (k.biasType)
          acc += bias[size_t(j)];
        ref[size_t(i * N + j)] = act(acc, k.activation);
      }
  };
  {
    const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 32);
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t)
      pool.emplace_back(rows, M * t / threads, M * (t + 1) / threads);
    for (std::thread &t : pool)
      t.join();
  }

  DeviceBuffer dA = upload(aBytes.data(), aBytes.size()), dB = upload(bBytes.data(), bBytes.size());
  DeviceBuffer dA16 = upload(a16.data(), a16.size() * 2);
  DeviceBuffer dQuantA = upload(quantA.data(), quantA.size() * 4);
  const float zeroA = 0;
  DeviceBuffer dAmaxA = upload(&zeroA, 4);
  DeviceBuffer dSa = upload(sa.data(), sa.size() * 4), dSb = upload(sb.data(), sb.size() * 4);
  std::vector<uint8_t> biasBytes = k.biasType ? bytesOf(bias, *k.biasType) : std::vector<uint8_t>{};
  DeviceBuffer dBias = upload(biasBytes.data(), biasBytes.size());
  const float zero = 0;
  DeviceBuffer dAmax = upload(&zero, 4), dScaleD = upload(&scaleD, 4);
  const int eb = dtypeBytes(k.dType);
  const size_t dBytes = size_t((M + 1) * ldd * eb);
  Expected<DeviceBuffer> dD = DeviceBuffer::allocate(dBytes);
  ASSERT_TRUE(dD.hasValue());
  ASSERT_TRUE(dD->fill(0xFF).isOk());

  GemmSm90Pointers p;
  p.a = k.castA ? dA16.data() : dA.data();
  p.quantScaleA = k.castA ? static_cast<const float *>(dQuantA.data()) : nullptr;
  p.amaxA = k.amaxA ? static_cast<float *>(dAmaxA.data()) : nullptr;
  p.b = dB.data();
  p.d = dD->data();
  p.invScaleA = static_cast<const float *>(dSa.data());
  p.invScaleB = static_cast<const float *>(dSb.data());
  p.bias = k.biasType ? dBias.data() : nullptr;
  p.amaxD = k.amaxD ? static_cast<float *>(dAmax.data()) : nullptr;
  p.scaleD = static_cast<const float *>(dScaleD.data());
  Status st = runner.run(k, prob, p, nullptr, 0, c.maxBlocks);
  ASSERT_TRUE(st.isOk()) << st.message();
  CudaDriver *drv = *CudaDriver::get();
  ASSERT_EQ(drv->cuCtxSynchronize(), CUDA_SUCCESS);

  std::vector<uint8_t> out(dBytes);
  ASSERT_TRUE(dD->download(out.data(), dBytes).isOk());
  double err = 0, norm = 0, roundErr = 0, refAmax = 0;
  int64_t nans = 0, clobbered = 0;
  for (int64_t i = 0; i <= M; ++i)
    for (int64_t j = 0; j < ldd; ++j) {
      const uint8_t *e = out.data() + size_t((i * ldd + j) * eb);
      bool poisoned = true;
      for (int x = 0; x < eb; ++x)
        poisoned &= e[x] == 0xFF;
      if (i == M || j >= N) {
        clobbered += !poisoned;
        continue;
      }
      uint32_t bits = 0;
      std::memcpy(&bits, e, size_t(eb));
      const float got = decodeBits(bits, k.dType);
      const double r = ref[size_t(i * N + j)];
      refAmax = std::max(refAmax, std::fabs(r));
      const double want = isFloat8(k.dType) ? r * scaleD : r;
      const double rounded = double(roundToDType(float(want), k.dType));
      if (std::isnan(got)) {
        ++nans;
        continue;
      }
      err += (got - want) * (got - want);
      roundErr += (rounded - want) * (rounded - want);
      norm += want * want;
    }
  EXPECT_EQ(nans, 0) << "unwritten or NaN elements";
  EXPECT_EQ(clobbered, 0) << "writes outside [M, N]";
  const double rel = std::sqrt(err / std::max(norm, 1e-300));
  const double relRound = std::sqrt(roundErr / std::max(norm, 1e-300));
  EXPECT_LT(rel, relRound + c.tol) << "relative Frobenius error beyond the output rounding";
  EXPECT_GT(norm, 0);
  float amax = 0;
  if (k.amaxD) {
    ASSERT_TRUE(dAmax.download(&amax, 4).isOk());
    // The largest element carries the tensor cores' accumulation error: with fast accumulation
    // (FP8 wgmma's own sums over all of K) it was seen at 1.3e-3 of the f64 value at K = 1000
    // (bias + GELU, FP8 D); promoted sums stay within 1e-3.
    EXPECT_NEAR(amax, refAmax, (k.promotes() ? 1e-3 : 2e-3) * refAmax);
  }
  if (launchedGemmSm90Kernel(k, prob).epilogueBuffers() > 0) {
    // The TMA-store epilogue against the register epilogue of the same config: D (padding
    // included) and amax bit for bit.
    GemmSm90Kernel regs = k;
    regs.tmaStore = false;
    Expected<DeviceBuffer> dr = DeviceBuffer::allocate(dBytes);
    ASSERT_TRUE(dr.hasValue());
    ASSERT_TRUE(dr->fill(0xFF).isOk());
    ASSERT_TRUE(dAmax.upload(&zero, 4).isOk());
    GemmSm90Pointers pr = p;
    pr.d = dr->data();
    Status str = runner.run(regs, prob, pr, nullptr, 0, c.maxBlocks);
    ASSERT_TRUE(str.isOk()) << str.message();
    ASSERT_EQ(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint8_t> outR(dBytes);
    ASSERT_TRUE(dr->download(outR.data(), dBytes).isOk());
    int64_t differ = 0;
    for (size_t i = 0; i < dBytes; ++i)
      differ += out[i] != outR[i];
    EXPECT_EQ(differ, 0) << "bytes of D that differ from the register epilogue's";
    if (k.amaxD) {
      float amaxR = -1;
      ASSERT_TRUE(dAmax.download(&amaxR, 4).isOk());
      EXPECT_EQ(amax, amaxR) << "amax of the TMA-store and register epilogues";
    }
  }
  if (k.amaxA) {
    float got = -1;
    ASSERT_TRUE(dAmaxA.download(&got, 4).isOk());
    EXPECT_EQ(got, amaxA) << "amax of the bf16 A";
  }
  if (k.castA) {
    // The same config on the host-quantized FP8 A: D bit for bit (amaxD starts again at 0).
    GemmSm90Kernel fp8 = k;
    fp8.castA = false;
    fp8.amaxA = false;
    Expected<DeviceBuffer> d8 = DeviceBuffer::allocate(dBytes);
    ASSERT_TRUE(d8.hasValue());
    ASSERT_TRUE(d8->fill(0xFF).isOk());
    ASSERT_TRUE(dAmax.upload(&zero, 4).isOk());
    GemmSm90Pointers p8 = p;
    p8.a = dA.data();
    p8.d = d8->data();
    p8.quantScaleA = nullptr;
    p8.amaxA = nullptr;
    Status st8 = runner.run(fp8, prob, p8, nullptr, 0, c.maxBlocks);
    ASSERT_TRUE(st8.isOk()) << st8.message();
    ASSERT_EQ(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint8_t> out8(dBytes);
    ASSERT_TRUE(d8->download(out8.data(), dBytes).isOk());
    int64_t differ = 0;
    for (size_t i = 0; i < dBytes; ++i)
      differ += out[i] != out8[i];
    EXPECT_EQ(differ, 0) << "bytes of D that differ from the FP8-A kernel " << fp8.name();
  }
  std::printf("[ gemm sm90 ] %-62s M=%-5lld N=%-4lld K=%-4lld rel err %.2e (rounding to D "
              "alone %.2e)\n",
              k.name().c_str(), (long long)M, (long long)N, (long long)K, rel, relRound);
}

GemmSm90Kernel tiles(int bn, int stages, bool overlap = true) {
  GemmSm90Kernel k;
  k.bn = bn;
  k.stages = stages;
  k.overlap = overlap;
  return k;
}

GemmSm90Kernel pingPong(int bm, int bn, int stages, bool overlap = true) {
  GemmSm90Kernel k = tiles(bn, stages, overlap);
  k.bm = bm;
  k.schedule = GemmSchedule::PingPong;
  return k;
}

std::unique_ptr<GemmSm90Runner> makeRunner() {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv || !(*drv)->makeCurrent(0))
    return nullptr;
  Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
  return r ? r.take() : nullptr;
}

#define FP8C_REQUIRE_SM90(runner)                                                                 \
  FP8C_REQUIRE_GPU();                                                                             \
  std::unique_ptr<GemmSm90Runner> runner = makeRunner();                                          \
  if (!runner)                                                                                    \
  GTEST_SKIP() << "needs an sm_90 GPU"

TEST(GemmSm90Gpu, TensorScalesEveryMAndTile) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(1);
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {tiles(256, 4), m, 333, 1000}, rng);
  for (int64_t m : {1, 100, 8192})
    runCase(*runner, {tiles(128, 6), m, 333, 1000}, rng);
  runCase(*runner, {tiles(256, 4, false), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(192, 5), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(64, 8), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(256, 3), 300, 1000, 40}, rng);           // K < 128
  runCase(*runner, {tiles(256, 4), 1000, 700, 1500, 3}, rng);      // 3 persistent blocks
  runCase(*runner, {tiles(128, 6), 8192, 1000, 1000}, rng);        // ~4 tiles per block
  GemmSm90Kernel m64 = tiles(128, 8);
  m64.bm = 64;
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {m64, m, 333, 1000}, rng);
  m64.bn = 256;
  m64.stages = 5;
  runCase(*runner, {m64, 16, 1000, 1000, 5}, rng);
}

// The TMA-store epilogue (D's width and pitch multiples of 16 bytes): column tails inside a
// chunk (N = 328 for a 16-bit D, 336 for an FP8 D) and chunks wholly past N, row tails, both
// schedules, one and two chunk buffers (with and without column inputs), FP8 D with amax,
// promotion, clusters, several tiles per block; the padding columns past N stay poisoned.
TEST(GemmSm90Gpu, TmaStoreEpilogueTails) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(9);
  auto run = [&](const GemmSm90Kernel &k, int64_t m, int64_t n, int64_t kk, int blocks = 0) {
    const GemmSm90Problem prob{m, n, kk, kk, kk, lddFor(n)};
    ASSERT_GT(launchedGemmSm90Kernel(k, prob).epilogueBuffers(), 0) << k.name();
    runCase(*runner, {k, m, n, kk, blocks}, rng);
  };
  for (int64_t m : {1, 7, 100, 8191, 8192})
    run(tiles(256, 4), m, 328, 1000);
  run(tiles(128, 6), 100, 328, 1000);
  run(tiles(256, 4), 1000, 1000, 1500, 3); // several tiles per block: the buffers rotate
  for (int64_t m : {1, 100, 8191})
    run(pingPong(128, 128, 6), m, 328, 1000);
  run(pingPong(64, 256, 5), 100, 328, 1000);
  run(pingPong(128, 128, 6), 1000, 1000, 1500, 2);
  GemmSm90Kernel k = tiles(128, 8);
  k.bm = 64;
  run(k, 7, 328, 1000);
  k = tiles(256, 4);
  k.dType = DType::F16;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  k.amaxD = true;
  ASSERT_EQ(k.epilogueBuffers(), 1);
  run(k, 8191, 328, 1000);
  k = tiles(128, 6, false);
  k.fastAccum = false;
  run(k, 100, 328, 1000);
  k.scaleMode = GemmScaleMode::Block128;
  run(k, 7, 328, 1000);
  k = pingPong(128, 128, 6);
  k.clusterM = 2;
  run(k, 300, 328, 1000);
  // FP8 D (128-column chunks) with amax, as the MLP's first GEMM writes it.
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  k.amaxD = true;
  for (int64_t m : {1, 100, 8191})
    run(k, m, 336, 1000);
  k = tiles(256, 4);
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  run(k, 8192, 336, 1000);
  run(k, 1000, 1008, 1500, 3);
  // An FP8 D 8 bytes past a 16-byte unit: the register epilogue.
  EXPECT_EQ(launchedGemmSm90Kernel(k, {100, 328, 1000, 1000, 1000, 336}).epilogueBuffers(), 0);
  // D's pitch not a multiple of 16 bytes, or N not a multiple of 8: the register epilogue.
  EXPECT_EQ(launchedGemmSm90Kernel(tiles(256, 4), {100, 328, 1000, 1000, 1000, 331}).epilogueBuffers(), 0);
  EXPECT_EQ(launchedGemmSm90Kernel(tiles(256, 4), {100, 333, 1000, 1000, 1000, 336}).epilogueBuffers(), 0);
}

TEST(GemmSm90Gpu, PromotionWithoutFastAccumulation) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(5);
  GemmSm90Kernel fast = tiles(128, 6);
  fast.dType = DType::F32;
  GemmSm90Kernel precise = fast;
  precise.fastAccum = false;
  precise.overlap = false;
  // f32 D: the accumulation error alone. Fast accumulation was measured at 1.15e-3 here
  // (K = 4000), promotion at 1.07e-4: fast accumulation is held to 3e-3 at this K.
  runCase(*runner, {fast, 100, 333, 4000, 0, 3e-3}, rng);
  runCase(*runner, {precise, 100, 333, 4000}, rng);
  precise.dType = DType::BF16;
  for (int64_t m : {1, 7, 8191})
    runCase(*runner, {precise, m, 333, 1000}, rng);
  // 128 x 192 tiles: 96 + 96 accumulators per thread (register and TMA-store epilogues).
  GemmSm90Kernel wide = tiles(192, 5, false);
  wide.fastAccum = false;
  runCase(*runner, {wide, 8191, 333, 1000}, rng);
  runCase(*runner, {wide, 100, 328, 4000}, rng);
  precise.bn = 64;
  precise.stages = 8;
  precise.scaleMode = GemmScaleMode::OuterVector;
  runCase(*runner, {precise, 8192, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, DtypesAndOutputs) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(2);
  GemmSm90Kernel k = tiles(128, 6);
  k.aType = DType::F8E5M2;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = tiles(256, 4);
  k.bType = DType::F8E5M2;
  k.dType = DType::F16;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  k = tiles(256, 4);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  k.activation = GemmActivation::Relu;
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  k.activation = GemmActivation::None;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, RowScalesBiasActivations) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(3);
  GemmSm90Kernel k = tiles(256, 4);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  k.activation = GemmActivation::GeluErf;
  k.biasType = DType::F32;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = tiles(128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.activation = GemmActivation::Silu;
  k.biasType = DType::F16;
  k.amaxD = true;
  runCase(*runner, {k, 1, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, BlockScalesPromotedPerKBlock) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(4);
  GemmSm90Kernel k = tiles(128, 6, false);
  k.scaleMode = GemmScaleMode::Block128;
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {k, m, 333, 1000}, rng);
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  k.amaxD = true;
  runCase(*runner, {k, 100, 333, 1000, 2}, rng);
  k = tiles(128, 8, false);
  k.bm = 64;
  k.scaleMode = GemmScaleMode::Block128;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  k.bn = 256;
  k.stages = 5;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, PingPongTensorScalesEveryMAndTile) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(6);
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {pingPong(128, 128, 6), m, 333, 1000}, rng);
  for (int64_t m : {1, 100, 8192})
    runCase(*runner, {pingPong(128, 128, 7), m, 333, 1000}, rng);
  runCase(*runner, {pingPong(128, 128, 6, false), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 256, 5), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 128, 8), 7, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 64, 8), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(128, 64, 8), 100, 333, 1000}, rng);
  // Many tiles per warpgroup: the ring positions skip the other warpgroup's stages (kBlocks 8
  // vs 6 and 7 stages; 1 stage per tile at K < 128; 12 with 5 stages), odd and even counts.
  runCase(*runner, {pingPong(128, 128, 6), 8192, 1000, 1000}, rng);
  runCase(*runner, {pingPong(128, 128, 7), 1000, 700, 1000, 3}, rng);
  runCase(*runner, {pingPong(128, 128, 7), 1000, 700, 40, 2}, rng);
  runCase(*runner, {pingPong(128, 128, 6), 1000, 1000, 1500, 1}, rng);
  runCase(*runner, {pingPong(64, 256, 5), 300, 1000, 1500, 5}, rng);
}

TEST(GemmSm90Gpu, PingPongEpiloguesAndDtypes) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(7);
  GemmSm90Kernel k = pingPong(128, 128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  runCase(*runner, {k, 1000, 700, 1000, 3}, rng);
  k.activation = GemmActivation::GeluErf;
  k.biasType = DType::F32;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(64, 256, 5);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.activation = GemmActivation::Silu;
  k.biasType = DType::F16;
  k.amaxD = true;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  runCase(*runner, {k, 1000, 700, 1000, 3}, rng);
  k.activation = GemmActivation::Relu;
  k.dType = DType::F8E5M2;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.aType = DType::F8E5M2;
  k.dType = DType::F16;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.bType = DType::F8E5M2;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

// Clusters of two blocks along M sharing the B tile (TMA multicast, stages released in both
// blocks): odd tile-row counts (the second block of the last pair loads rows past M as zeros and
// stores nothing), few persistent clusters so that each runs many pairs, both schedules, the
// decode tile, epilogues with column inputs, FP8 D, promotion and blockwise scales.
TEST(GemmSm90Gpu, ClustersOfTwoShareB) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(8);
  auto c2 = [](GemmSm90Kernel k) {
    k.clusterM = 2;
    return k;
  };
  for (int64_t m : {1, 100, 300, 8191})
    runCase(*runner, {c2(pingPong(128, 128, 6)), m, 333, 1000}, rng);
  for (int64_t m : {7, 300, 8192})
    runCase(*runner, {c2(tiles(256, 4)), m, 333, 1000}, rng);
  runCase(*runner, {c2(pingPong(128, 128, 6)), 1000, 700, 1000, 4}, rng); // 2 clusters
  runCase(*runner, {c2(tiles(256, 4)), 1000, 1000, 1500, 2}, rng);        // 1 cluster
  runCase(*runner, {c2(pingPong(128, 128, 6)), 1000, 700, 40, 6}, rng);   // K < 128
  GemmSm90Kernel m64 = tiles(128, 8);
  m64.bm = 64;
  runCase(*runner, {c2(m64), 16, 1000, 1000}, rng);
  GemmSm90Kernel k = c2(pingPong(128, 128, 6));
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = GemmActivation::GeluTanh;
  runCase(*runner, {k, 300, 333, 1000}, rng);
  k = c2(tiles(256, 4));
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  runCase(*runner, {k, 1000, 700, 1000}, rng);
  k = c2(tiles(128, 6, false));
  k.scaleMode = GemmScaleMode::Block128;
  runCase(*runner, {k, 300, 333, 1000}, rng);
  k = c2(tiles(128, 6, false));
  k.fastAccum = false;
  runCase(*runner, {k, 100, 333, 4000}, rng);
}

// The bf16-A prologue: A read as bf16 and cast in the kernel (tensor and row quantization
// scales, saturation, amax of A), bit for bit the FP8-A kernel's D on the host-quantized A:
// M tails, K tails (K < 128, K not a multiple of 64), the configs the heuristic gives it
// (stages cut for the staging slots), few persistent blocks, promotion, e5m2 A, three slots.
TEST(GemmSm90Gpu, CastsBf16AInThePrologue) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(9);
  auto cast = [](GemmSm90Kernel k) {
    k.castA = true;
    return k;
  };
  GemmSm90Kernel pp = cast(pingPong(128, 128, 4));
  pp.amaxA = true;
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {pp, m, 333, 1000}, rng);
  runCase(*runner, {pp, 1000, 700, 40, 6}, rng);   // K < 128: one stage, one half box empty
  runCase(*runner, {pp, 300, 1000, 1000, 3}, rng); // few blocks: many tiles each
  GemmSm90Kernel row = cast(pingPong(128, 128, 4));
  row.scaleMode = GemmScaleMode::OuterVector;
  row.biasType = DType::BF16;
  row.activation = GemmActivation::GeluTanh;
  runCase(*runner, {row, 8192, 333, 1000}, rng);
  GemmSm90Kernel wide = cast(tiles(256, 3));
  wide.dType = DType::F8E4M3FN;
  wide.amaxD = true;
  wide.amaxA = true;
  runCase(*runner, {wide, 300, 1000, 1500}, rng);
  GemmSm90Kernel m64 = cast(tiles(128, 7));
  m64.bm = 64;
  m64.amaxA = true;
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {m64, m, 1000, 1000}, rng);
  GemmSm90Kernel precise = cast(tiles(128, 4, false));
  precise.fastAccum = false;
  precise.aType = DType::F8E5M2;
  runCase(*runner, {precise, 100, 333, 2000}, rng);
  GemmSm90Kernel three = cast(pingPong(128, 128, 3));
  three.castSlots = 3;
  runCase(*runner, {three, 1000, 333, 1000}, rng);
}

} // namespace
} // namespace fp8c
