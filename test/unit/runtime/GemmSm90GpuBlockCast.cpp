// The 1x128-block cast's scales and inverses against the reference (GemmSm90GpuBlockCast.h).
#include "unit/runtime/GemmSm90GpuBlockCast.h"

#include "ir/DType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fp8c::sm90test {

void checkBlockCast(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                    const std::vector<double> &pre, const std::function<double(double)> &act,
                    DeviceBuffer &scales, DeviceBuffer &inverses, std::vector<double> &ref) {
  const int64_t M = prob.m, N = prob.n, nBlocks = (N + 127) / 128;
  const int64_t ldbs = prob.ldBlockScale, ldbi = prob.ldBlockInv;
  // The value cast is v = bf16(act(bf16(y))) (the graph's roundings); each block's scale is
  // fp8.scale of its amax. The kernel's v carries the GEMM's accumulation error (1e-3) and
  // may round one bf16 step (2^-8) off the reference's twice: its scales are held to 1e-2
  // of the reference's (a power-of-two scale to the reference's power of two, or the one
  // below or above it where the amax sits at a boundary), each inverse to 1 / scale bit for
  // bit, and D is then checked as sat(rne(v * its block's scale)) with the kernel's scales.
  const size_t bsBytes = size_t((M + 1) * ldbs * 4), biBytes = size_t((nBlocks + 1) * ldbi * 4);
  std::vector<float> bs(size_t((M + 1) * ldbs)), bi(size_t((nBlocks + 1) * ldbi));
  ASSERT_TRUE(scales.download(bs.data(), bsBytes).isOk());
  ASSERT_TRUE(inverses.download(bi.data(), biBytes).isOk());
  const double fmax = k.dType == DType::F8E4M3FN ? 448.0 : 57344.0;
  int64_t offScale = 0, offInv = 0, badPad = 0;
  for (int64_t i = 0; i <= M; ++i)
    for (int64_t b = 0; b < ldbs; ++b) {
      uint32_t bits = 0;
      std::memcpy(&bits, &bs[size_t(i * ldbs + b)], 4);
      if (i == M || b >= nBlocks) {
        badPad += bits != 0xFFFFFFFFu;
        continue;
      }
      double amax = 0;
      for (int64_t j = b * 128; j < std::min(N, b * 128 + 128); ++j) {
        const double v = bf16ToFloat(
            floatToBf16(float(act(bf16ToFloat(floatToBf16(float(pre[size_t(i * N + j)])))))));
        ref[size_t(i * N + j)] = v;
        amax = std::max(amax, std::fabs(v));
      }
      const float got = bs[size_t(i * ldbs + b)];
      double want = amax == 0 ? 1.0 : std::ldexp(fmax / amax, -prob.castMargin);
      if (prob.castPow2 && amax != 0)
        want = std::exp2(std::floor(std::log2(want)));
      const bool ok = prob.castPow2 && amax != 0
                          ? (got == float(want) || got == float(want / 2) || got == float(want * 2))
                          : std::fabs(got - want) <= 1e-2 * want;
      offScale += !ok;
      const float inv = bi[size_t(b * ldbi + i)];
      offInv += inv != 1.0f / got;
      for (int64_t j = b * 128; j < std::min(N, b * 128 + 128); ++j)
        ref[size_t(i * N + j)] *= double(got);
    }
  for (int64_t b = 0; b <= nBlocks; ++b)
    for (int64_t i = 0; i < ldbi; ++i) {
      uint32_t bits = 0;
      std::memcpy(&bits, &bi[size_t(b * ldbi + i)], 4);
      if (b == nBlocks || i >= M)
        badPad += bits != 0xFFFFFFFFu;
    }
  EXPECT_EQ(offScale, 0) << "block scales off the reference's";
  EXPECT_EQ(offInv, 0) << "inverse block scales that are not 1 / scale";
  EXPECT_EQ(badPad, 0) << "block scales or inverses written outside [M, N/128]";
}

} // namespace fp8c::sm90test
