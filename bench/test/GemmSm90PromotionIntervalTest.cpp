// The promotion interval of "fast accumulation off", on the GPU (skipped elsewhere): the
// generated kernel, in each promoting tile shape, and cuBLASLt both promote the tensor cores'
// partial sums into f32 every 128 along K; with fast accumulation neither does. Read from the
// probe's output, exactly (bench/PromotionProbe.h, also `fp8c-gemm-bench --accum-probe`).
#include "unit/runtime/GemmSm90GpuCase.h"

#include "bench/PromotionProbe.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <gtest/gtest.h>

#include <string>

namespace fp8c::sm90test {
namespace {

using bench::PromotionProbe;

/// Each column's lost products against interval `p` (PromotionProbe::kK: none).
void expectInterval(const PromotionProbe &probe, int64_t p, const std::string &what) {
  Expected<std::vector<double>> lost = probe.lostProducts();
  ASSERT_TRUE(lost) << lost.error();
  for (int64_t n = 0; n < PromotionProbe::kN; ++n)
    EXPECT_EQ((*lost)[size_t(n)], PromotionProbe::expectedLost(p, n)) << what << ", column " << n;
}

TEST(GemmSm90PromotionInterval, GeneratedPromotesEvery128InEachTile) {
  FP8C_REQUIRE_SM90(runner);
  Expected<PromotionProbe> probe = PromotionProbe::create();
  ASSERT_TRUE(probe) << probe.error();
  for (int bn : {128, 192, 256}) {
    for (bool fast : {true, false}) {
      GemmSm90Spec k = tiles(bn, bn == 256 ? 4 : bn == 192 ? 5 : 6, fast);
      k.dType = DType::F32;
      k.fastAccum = fast;
      ASSERT_TRUE(probe->clear());
      Status st = runner->run(k, probe->problem(), probe->sm90Pointers(), nullptr);
      ASSERT_TRUE(st) << st.message();
      expectInterval(*probe, fast ? PromotionProbe::kK : 128, k.name());
    }
  }
}

TEST(GemmSm90PromotionInterval, CublasLtPromotesEvery128WithoutFastAccumulation) {
  FP8C_REQUIRE_SM90(sm90);
  Expected<std::unique_ptr<CublasLtRunner>> lt = CublasLtRunner::create();
  ASSERT_TRUE(lt) << lt.error();
  Expected<PromotionProbe> probe = PromotionProbe::create();
  ASSERT_TRUE(probe) << probe.error();
  for (bool fast : {true, false}) {
    ASSERT_TRUE(probe->clear());
    Status st = (*lt)->run(probe->cublasConfig(fast), probe->cublasPointers(), nullptr);
    ASSERT_TRUE(st) << st.message();
    expectInterval(*probe, fast ? PromotionProbe::kK : 128,
                   fast ? "cuBLASLt, fast accumulation" : "cuBLASLt");
  }
}

} // namespace
} // namespace fp8c::sm90test
