// The promotion interval of "fast accumulation off", on the GPU (skipped elsewhere): the
// generated kernel, in each promoting tile shape, and cuBLASLt both promote the tensor cores'
// partial sums into f32 every 128 along K; with fast accumulation neither does. The probe (also
// `fp8c-gemm-bench --accum-probe`): A all ones, row n of B 448 at k = 32 n and 2^-7 elsewhere
// (e4m3, unit scales, f32 D, K 4096). A 2^-7 product that follows 448 inside one interval is
// lost to the tensor cores' ~14-bit accumulation, while later intervals start from zero and reach
// the f32 result whole, so with interval P column n loses P - 1 - (32 n mod P) products:
// D[0, n] = 448 + (K - 1 - lost) 2^-7, exact in f32.
#include "GemmSm90GpuCase.h"

#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <gtest/gtest.h>

#include <vector>

namespace fp8c::sm90test {
namespace {

constexpr int64_t kM = 128, kN = 128, kK = 4096;

struct ProbeBuffers {
  DeviceBuffer a, b, d, one;
};

ProbeBuffers makeProbe() {
  std::vector<uint8_t> a(size_t(kM * kK), 0x38), b(size_t(kN * kK), 0x04); // 1.0, 2^-7
  for (int64_t n = 0; n < kN; ++n)
    b[size_t(n * kK + 32 * n)] = 0x7E; // 448
  const float one = 1.0f;
  auto up = [](const void *p, size_t bytes) {
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(bytes);
    EXPECT_TRUE(buf) << buf.error();
    EXPECT_TRUE(buf->upload(p, bytes));
    return buf.take();
  };
  ProbeBuffers pb{up(a.data(), a.size()), up(b.data(), b.size()), {}, up(&one, 4)};
  Expected<DeviceBuffer> d = DeviceBuffer::allocate(size_t(kM * kN * 4));
  EXPECT_TRUE(d) << d.error();
  pb.d = d.take();
  return pb;
}

/// Checks row 0 of D (f32) against the loss pattern of interval `p` (kK: no promotion).
void expectInterval(const DeviceBuffer &d, int64_t p, const std::string &what) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  ASSERT_TRUE(drv);
  ASSERT_TRUE((*drv)->cuCtxSynchronize() == CUDA_SUCCESS);
  std::vector<float> row(static_cast<size_t>(kN));
  ASSERT_TRUE(d.download(row.data(), row.size() * 4));
  for (int64_t n = 0; n < kN; ++n) {
    const double lost = (448.0 + double(kK - 1) / 128 - double(row[size_t(n)])) * 128;
    EXPECT_EQ(lost, double(p - 1 - (32 * n) % p)) << what << ", column " << n;
  }
}

TEST(GemmSm90PromotionInterval, GeneratedPromotesEvery128InEachTile) {
  FP8C_REQUIRE_SM90(runner);
  ProbeBuffers pb = makeProbe();
  const GemmSm90Problem prob{kM, kN, kK, kK, kK, kN};
  for (int bn : {128, 192, 256}) {
    for (bool fast : {true, false}) {
      GemmSm90Kernel k = tiles(bn, bn == 256 ? 4 : bn == 192 ? 5 : 6, fast);
      k.dType = DType::F32;
      k.fastAccum = fast;
      GemmSm90Pointers p;
      p.a = pb.a.data();
      p.b = pb.b.data();
      p.d = pb.d.data();
      p.invScaleA = p.invScaleB = static_cast<const float *>(pb.one.data());
      ASSERT_TRUE(pb.d.fill(0));
      Status st = runner->run(k, prob, p, nullptr);
      ASSERT_TRUE(st) << st.message();
      expectInterval(pb.d, fast ? kK : 128, k.name());
    }
  }
}

TEST(GemmSm90PromotionInterval, CublasLtPromotesEvery128WithoutFastAccumulation) {
  FP8C_REQUIRE_SM90(sm90);
  Expected<std::unique_ptr<CublasLtRunner>> lt = CublasLtRunner::create();
  ASSERT_TRUE(lt) << lt.error();
  ProbeBuffers pb = makeProbe();
  for (bool fast : {true, false}) {
    CublasLtGemmConfig c;
    c.m = kM;
    c.n = kN;
    c.k = kK;
    c.lda = c.ldb = kK;
    c.ldd = kN;
    c.dType = DType::F32;
    c.fastAccum = fast;
    CublasLtGemmPointers p;
    p.a = pb.a.data();
    p.b = pb.b.data();
    p.d = pb.d.data();
    p.invScaleA = p.invScaleB = static_cast<const float *>(pb.one.data());
    ASSERT_TRUE(pb.d.fill(0));
    Status st = (*lt)->run(c, p, nullptr);
    ASSERT_TRUE(st) << st.message();
    expectInterval(pb.d, fast ? kK : 128, fast ? "cuBLASLt, fast accumulation" : "cuBLASLt");
  }
}

} // namespace
} // namespace fp8c::sm90test
