// The pre-activation output (bf16, or its e4m3 copy) against the reference
// (GemmSm90GpuAux.h).
#include "unit/runtime/GemmSm90GpuAux.h"

#include "unit/support/Compare.h"

#include "ir/DType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace fp8c::sm90test {

void checkPreActivation(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                        const std::vector<double> &pre, const std::function<double(double)> &act,
                        DeviceBuffer &dAux, double tol, std::vector<double> &ref) {
  const int64_t M = prob.m, N = prob.n;
  const size_t auxBytes = size_t((M + 1) * prob.ldAux * (k.auxFp8 ? 1 : 2));
  std::vector<uint8_t> aux(auxBytes);
  ASSERT_TRUE(dAux.download(aux.data(), auxBytes).isOk());
  double r2 = 0, n2 = 0, roundMax = 0, wantMax = 0;
  int64_t clobbered = 0;
  std::vector<double> gots(size_t(M * N)), wants(size_t(M * N));
  for (int64_t i = 0; i <= M; ++i)
    for (int64_t j = 0; j < prob.ldAux; ++j) {
      const size_t at = size_t(i * prob.ldAux + j);
      const uint32_t bits =
          k.auxFp8 ? aux[at] : uint32_t(aux[2 * at]) | uint32_t(aux[2 * at + 1]) << 8;
      if (i == M || j >= N) {
        clobbered += bits != (k.auxFp8 ? 0xFFu : 0xFFFFu);
        continue;
      }
      const double want = pre[size_t(i * N + j)];
      const double got =
          k.auxFp8 ? fp8ToFloat(uint8_t(bits), DType::F8E4M3FN) : bf16ToFloat(uint16_t(bits));
      double rounded = bf16ToFloat(floatToBf16(float(want)));
      if (k.auxFp8)
        rounded = fp8ToFloat(floatToFp8(float(rounded), DType::F8E4M3FN), DType::F8E4M3FN);
      gots[size_t(i * N + j)] = got;
      wants[size_t(i * N + j)] = want;
      r2 += (rounded - want) * (rounded - want);
      roundMax = std::max(roundMax, std::fabs(rounded - want));
      wantMax = std::max(wantMax, std::fabs(want));
      n2 += want * want;
      if (!k.auxFp8)
        ref[size_t(i * N + j)] = act(got);
    }
  EXPECT_EQ(clobbered, 0) << "aux writes outside [M, N]";
  // The largest element: its rounding (half a bf16 step, then for the e4m3 copy half an e4m3
  // step of that, or the largest rounding of the reference where the copy saturates) plus the
  // accumulation's tail (Compare.h), relative to max |pre|. Any NaN fails.
  const double rounding = std::max(testcmp::halfStep(DType::BF16) +
                                       (k.auxFp8 ? testcmp::halfStep(DType::F8E4M3FN) : 0.0),
                                   roundMax / std::max(wantMax, 1e-300));
  EXPECT_TRUE(testcmp::compare(gots, wants, {M, N})
                  .within({std::sqrt(r2 / std::max(n2, 1e-300)) + tol,
                           rounding + testcmp::kAccumulationTail * tol}))
      << "pre-activation error beyond its " << (k.auxFp8 ? "e4m3" : "bf16") << " rounding";
}

} // namespace fp8c::sm90test
