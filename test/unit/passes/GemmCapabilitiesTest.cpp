// GemmCapabilities (passes/GemmCapabilities.h): what the generated Hopper GEMM takes, and the
// reason where it does not.
#include "passes/GemmCapabilities.h"

#include <gtest/gtest.h>

namespace fp8c {
namespace {

TEST(GemmCapabilities, GeneratedOperandsAreFp8AndNotBothE5m2) {
  EXPECT_EQ(GemmCapabilities::generatedOperands(DType::F8E4M3FN, DType::F8E4M3FN), "");
  EXPECT_EQ(GemmCapabilities::generatedOperands(DType::F8E5M2, DType::F8E4M3FN), "");
  EXPECT_NE(GemmCapabilities::generatedOperands(DType::BF16, DType::F8E4M3FN)
                .find("FP8 operands only"),
            std::string::npos);
  EXPECT_NE(GemmCapabilities::generatedOperands(DType::F8E5M2, DType::F8E5M2).find("e5m2 x e5m2"),
            std::string::npos);
}

TEST(GemmCapabilities, GeneratedLayoutsAndEpilogues) {
  EXPECT_EQ(GemmCapabilities::generatedLayout(true, true), "");
  EXPECT_NE(GemmCapabilities::generatedLayout(true, false).find("K-major"), std::string::npos);
  // The GELU input beside a bf16 D alone; D transposed beside an FP8 D.
  EXPECT_EQ(GemmCapabilities::generatedExtraOutputs(DType::BF16, DType::BF16, false), "");
  EXPECT_NE(GemmCapabilities::generatedExtraOutputs(DType::BF16, DType::BF16, true), "");
  EXPECT_NE(GemmCapabilities::generatedExtraOutputs(DType::BF16, DType::F8E4M3FN, false), "");
  EXPECT_EQ(GemmCapabilities::generatedExtraOutputs(DType::F8E4M3FN, DType::F8E4M3FN, true), "");
  EXPECT_NE(GemmCapabilities::generatedExtraOutputs(DType::F8E4M3FN, DType::F16, false), "");
  EXPECT_EQ(GemmCapabilities::generatedEpilogueInput(true, DType::BF16), "");
  EXPECT_NE(GemmCapabilities::generatedEpilogueInput(true, DType::F8E4M3FN), "");
  EXPECT_EQ(GemmCapabilities::generatedEpilogueInput(false, DType::F8E4M3FN), "");
  EXPECT_EQ(GemmCapabilities::generatedGeluGradOrColSums(DType::F8E5M2), "");
  EXPECT_NE(GemmCapabilities::generatedGeluGradOrColSums(DType::BF16), "");
  EXPECT_EQ(GemmCapabilities::generatedBlockCast(DType::F8E4M3FN), "");
  EXPECT_NE(GemmCapabilities::generatedBlockCast(DType::F32), "");
  EXPECT_TRUE(GemmCapabilities::generatedRunsOn(9, 0));
  EXPECT_FALSE(GemmCapabilities::generatedRunsOn(8, 9));
  EXPECT_FALSE(GemmCapabilities::generatedRunsOn(10, 0));
}

} // namespace
} // namespace fp8c
