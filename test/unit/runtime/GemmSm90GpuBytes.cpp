// GemmSm90GpuBytes.h: uploads, byte comparisons and A's transposed copy for the generated GEMM's
// GPU check.
#include "unit/runtime/GemmSm90GpuBytes.h"

#include "runtime/cuda/CudaDriver.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fp8c::sm90test {

DeviceBuffer upload(const void *data, size_t bytes) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(std::max<size_t>(bytes, 16));
  EXPECT_TRUE(b.hasValue()) << (b ? "" : b.error());
  if (!b)
    return {};
  EXPECT_TRUE(b->upload(data, bytes).isOk());
  return b.take();
}

void sameBytes(GemmSm90Runner &runner, const GemmSm90Spec &k, const GemmSm90Problem &prob,
               GemmSm90Pointers p, int maxBlocks, size_t dBytes, DeviceBuffer &dAmax,
               const std::vector<uint8_t> &expect, const std::string &what) {
  Expected<DeviceBuffer> d = DeviceBuffer::allocate(dBytes);
  ASSERT_TRUE(d.hasValue());
  ASSERT_TRUE(d->fill(0xFF).isOk());
  ASSERT_TRUE(dAmax.fill(0).isOk());
  p.d = d->data();
  Status st = runner.run(k, prob, p, nullptr, 0, maxBlocks);
  ASSERT_TRUE(st.isOk()) << st.message();
  ASSERT_EQ((*CudaDriver::get())->cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<uint8_t> got(dBytes);
  ASSERT_TRUE(d->download(got.data(), dBytes).isOk());
  int64_t differ = 0;
  for (size_t i = 0; i < dBytes; ++i)
    differ += got[i] != expect[i];
  EXPECT_EQ(differ, 0) << what;
}

std::vector<uint8_t> transposedOperand(const std::vector<uint8_t> &a, int64_t m, int64_t k,
                                       int64_t lda, int64_t ldaT, std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> t(size_t(k * ldaT), 0);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t r = 0; r < ldaT; ++r)
      t[size_t(j * ldaT + r)] = r < m ? a[size_t(r * lda + j)] : uint8_t(byte(rng) & 0x3F);
  return t;
}

} // namespace fp8c::sm90test
