// The gelu_grad epilogue over the GELU input's e4m3 copy (GemmSm90Spec::geluGradInFp8,
// gemm_sm90_offload.cuh's derivative tables) without a GPU: its name, XO bits and shared memory,
// the checks that refuse it off the offloaded epilogue, the tile heuristic and the tuner's
// candidates at every M, and its saved input's pitch. Its NVRTC compile is
// GemmSm90Compile.EveryConfigCompilesToWgmmaWithoutSpills's (GemmSm90Configs' geluGradConfigs).
#include "unit/runtime/GemmSm90Configs.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/gpu/GemmSm90Autotune.h"

#include <gtest/gtest.h>

namespace fp8c {
namespace {

using namespace sm90configs;

TEST(GemmSm90Compile, GeluGradOverTheE4m3CopyIsTheOffloadedEpilogues) {
  Device h200;
  h200.smCount = 132;
  const GemmSm90Problem mlpShape{8192, 14336, 4096, 4096, 4096, 14336, 0, 0, 14336, 8192, 14336};
  // gelu_grad over the e4m3 saved input (geluGradInFp8): named "_dgelu8", XO bit 64, 3 KB of
  // derivative tables past the offloaded epilogue's shared memory; the offloaded epilogue only,
  // which the heuristic then picks at every M, the tuner's only candidate; its pitch in whole
  // 16-byte units.
  const GemmSm90Spec ew8 = geluGradConfigs()[4];
  EXPECT_EQ(
      ew8.name(),
      "fp8c_gemm_sm90_e5m2_e4m3_e5m2_tensor_n128_s4_o0_promote_amax_tms1_dt_dgelu8_colsumbf16_ew");
  EXPECT_EQ(ew8.extraOutputBits(), 2 | 4 | 8 | 64);
  EXPECT_NE(gemmSm90Source(ew8).find("kEpilogueBuffers = 1;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(ew8).find("kExtraOutputs = 78;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(ew8).find("kEpilogueWarps = true;"), std::string::npos);
  EXPECT_EQ(ew8.sharedBytes(), geluGradConfigs()[3].sharedBytes() + 3 * 256 * 4);
  EXPECT_LE(ew8.sharedBytes(), 232448); // the most a block takes on sm_90
  GemmSm90Spec bad8 = ew8;
  bad8.epilogueWarps = false;
  EXPECT_NE(checkGemmSm90Spec(bad8).message().find("offloaded epilogue's warps only"),
            std::string::npos)
      << checkGemmSm90Spec(bad8).message();
  bad8 = ew8;
  bad8.geluGradIn = false;
  EXPECT_NE(checkGemmSm90Spec(bad8).message().find("set geluGradIn"), std::string::npos)
      << checkGemmSm90Spec(bad8).message();
  for (int64_t m : {1, 64, 100, 8192}) {
    const GemmSm90Problem shape{m, 14336, 4096, 4096, 4096, 14336, 0, 0, 14336, 8192, 14336};
    GemmSm90Spec base = ew8;
    base.epilogueWarps = false;
    base.bn = 192;
    const GemmSm90Spec picked = chooseGemmSm90Tiles(base, shape, h200);
    EXPECT_EQ(picked.name(), ew8.name()) << m;
    const std::vector<GemmSm90Spec> cands = gemmSm90Candidates(base, shape, h200);
    ASSERT_EQ(cands.size(), 1u) << m;
    EXPECT_EQ(cands[0].name(), ew8.name()) << m;
  }
  GemmSm90Problem oddPitch = mlpShape;
  oddPitch.ldIn = 14344;
  EXPECT_NE(checkGemmSm90(ew8, oddPitch).message().find("a multiple of 16 elements"),
            std::string::npos)
      << checkGemmSm90(ew8, oddPitch).message();
}

} // namespace
} // namespace fp8c
