// GemmSm90GpuCastAhead.h: the FP8 copy and ready counters of a cast-ahead run.
#include "unit/runtime/GemmSm90GpuCastAhead.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fp8c::sm90test {

void checkCastAhead(DeviceBuffer &aCast, DeviceBuffer &ready, const std::vector<uint8_t> &aBytes,
                    int64_t m, int64_t k, int64_t lda, int64_t counters) {
  std::vector<uint8_t> copy(size_t((m + 1) * lda));
  ASSERT_TRUE(aCast.download(copy.data(), copy.size()).isOk());
  int64_t differ = 0, pad = 0;
  for (int64_t r = 0; r <= m; ++r)
    for (int64_t j = 0; j < lda; ++j) {
      const uint8_t got = copy[size_t(r * lda + j)];
      if (r < m && j < k)
        differ += got != aBytes[size_t(r * lda + j)];
      else
        pad += got != 0xFF;
    }
  EXPECT_EQ(differ, 0) << "bytes of the cast-ahead FP8 copy of A off the host quantization";
  EXPECT_EQ(pad, 0) << "cast-ahead A wrote past K or past M";
  std::vector<uint32_t> counts(size_t(counters + 1));
  ASSERT_TRUE(ready.download(counts.data(), counts.size() * 4).isOk());
  EXPECT_EQ(int64_t(std::count(counts.begin(), counts.end() - 1, 0u)), counters)
      << "cast-ahead A's counters not zero after the run";
  EXPECT_EQ(counts.back(), 0xFFFFFFFFu) << "cast-ahead A wrote past its counters";
}

} // namespace fp8c::sm90test
