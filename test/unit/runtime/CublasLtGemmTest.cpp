// The cuBLASLt backend (runtime/gpu/CublasLtGemm.h). On the CPU: the row-major -> column-major
// layout, scale modes, configuration checks, plan steps -> calls, the config key, and the
// descriptors (which need no GPU). The GPU half is CublasLtGpuTest.cpp.
#include "runtime/gpu/CublasLtGemm.h"

#include "unit/runtime/CublasLtTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace fp8c {
namespace {

using cublasTest::fp8Config;


TEST(CublasLtLayout, RowMajorProblemIsHandedOverTransposed) {
  CublasLtGemmConfig c = fp8Config(64, 256, 384);
  c.lda = 400;
  c.ldb = 416;
  c.ldd = 272;
  CublasLtLayout l = cublasLtLayout(c);
  // cuBLASLt's A is our B (K x N, ld = ldb), transposed; its B is our A (K x M, ld = lda).
  EXPECT_EQ(l.rowsA, 384u);
  EXPECT_EQ(l.colsA, 256u);
  EXPECT_EQ(l.ldA, 416);
  EXPECT_EQ(l.rowsB, 384u);
  EXPECT_EQ(l.colsB, 64u);
  EXPECT_EQ(l.ldB, 400);
  EXPECT_EQ(l.rowsD, 256u);
  EXPECT_EQ(l.colsD, 64u);
  EXPECT_EQ(l.ldD, 272);
  EXPECT_EQ(l.transA, CUBLAS_OP_T);
  EXPECT_EQ(l.transB, CUBLAS_OP_N);
  EXPECT_EQ(l.scaleModeA, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F);
  EXPECT_EQ(l.epilogue, CUBLASLT_EPILOGUE_DEFAULT);

  c.scaleMode = GemmScaleMode::OuterVector;
  l = cublasLtLayout(c);
  EXPECT_EQ(l.scaleModeA, CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F);
  EXPECT_EQ(l.scaleModeB, CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F);
  // Our B (weights, 128x128 blocks) is cuBLASLt's A; our A (1x128) its B.
  c.scaleMode = GemmScaleMode::Block128;
  l = cublasLtLayout(c);
  EXPECT_EQ(l.scaleModeA, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
  EXPECT_EQ(l.scaleModeB, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);

  for (auto [ours, theirs] : {std::pair{GemmEpilogue::Bias, CUBLASLT_EPILOGUE_BIAS},
                              {GemmEpilogue::Gelu, CUBLASLT_EPILOGUE_GELU},
                              {GemmEpilogue::GeluBias, CUBLASLT_EPILOGUE_GELU_BIAS},
                              {GemmEpilogue::Relu, CUBLASLT_EPILOGUE_RELU},
                              {GemmEpilogue::ReluBias, CUBLASLT_EPILOGUE_RELU_BIAS}}) {
    c.epilogue = ours;
    EXPECT_EQ(cublasLtLayout(c).epilogue, theirs);
  }
}

// A bf16 operand stored transposed ([K, M] A, [K, N] B) flips cuBLASLt's op on it.
TEST(CublasLtLayout, TransposedBf16OperandsFlipTheirOp) {
  CublasLtGemmConfig c = fp8Config(64, 256, 384);
  c.aType = c.bType = c.dType = DType::BF16;
  c.aKMajor = false;
  c.lda = 72; // [K, M] row-major: pitch >= M
  c.bKMajor = false;
  c.ldb = 264; // [K, N]: pitch >= N
  CublasLtLayout l = cublasLtLayout(c);
  // Its A is our B, [K, N] row-major = N x K column-major, used as is.
  EXPECT_EQ(l.rowsA, 256u);
  EXPECT_EQ(l.colsA, 384u);
  EXPECT_EQ(l.ldA, 264);
  EXPECT_EQ(l.transA, CUBLAS_OP_N);
  // Its B is our A, [K, M] row-major = M x K column-major, transposed.
  EXPECT_EQ(l.rowsB, 64u);
  EXPECT_EQ(l.colsB, 384u);
  EXPECT_EQ(l.ldB, 72);
  EXPECT_EQ(l.transB, CUBLAS_OP_T);
  EXPECT_EQ(l.rowsD, 256u);
  EXPECT_EQ(l.colsD, 64u);
  EXPECT_NE(c.str().find("layout=A[K,M]/B[K,N]"), std::string::npos) << c.str();
}

// A GELU epilogue with an aux output (the GELU input, saved by a training step) is cuBLASLt's
// GELU_AUX / GELU_AUX_BIAS.
TEST(CublasLtLayout, GeluWithAuxOutput) {
  CublasLtGemmConfig c = fp8Config(64, 256, 384);
  c.epilogue = GemmEpilogue::GeluBias;
  c.biasType = DType::BF16;
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_GELU_BIAS);
  c.auxType = DType::BF16;
  c.ldAux = 256;
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_GELU_AUX_BIAS);
  c.epilogue = GemmEpilogue::Gelu;
  c.biasType.reset();
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_GELU_AUX);
  EXPECT_NE(c.str().find("aux=bf16/256"), std::string::npos) << c.str();
}

// The backward's GELU derivative (fp8c-cublaslt-support --backward): DGELU reads the GELU input
// as its aux matrix, DGELU_BGRAD also writes the bias gradient to the bias pointer.
TEST(CublasLtLayout, BackwardGeluReadsTheAuxMatrix) {
  CublasLtGemmConfig c = fp8Config(64, 256, 384);
  c.aType = DType::F8E5M2;
  c.epilogue = GemmEpilogue::DGelu;
  EXPECT_NE(checkCublasLtConfig(c, 9, 0).message().find("give auxType"), std::string::npos);
  c.auxType = DType::BF16;
  c.ldAux = 256;
  EXPECT_TRUE(checkCublasLtConfig(c, 9, 0).isOk()) << checkCublasLtConfig(c, 9, 0).message();
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_DGELU);
  c.epilogue = GemmEpilogue::DGeluBgrad;
  EXPECT_NE(checkCublasLtConfig(c, 9, 0).message().find("a bias epilogue without a bias"),
            std::string::npos);
  c.biasType = DType::BF16;
  EXPECT_TRUE(checkCublasLtConfig(c, 9, 0).isOk()) << checkCublasLtConfig(c, 9, 0).message();
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_DGELU_BGRAD);
  EXPECT_NE(c.str().find("epilogue=dgelu_bgrad"), std::string::npos) << c.str();
}

// The bias gradient alone (a weight-gradient GEMM's column sums of dY): our A is cuBLASLt's B,
// so BGradA (sums of our A over K, [m]) is its BGRADB; the gradient goes to the bias pointer.
TEST(CublasLtLayout, BiasGradientOfEitherOperand) {
  CublasLtGemmConfig c;
  c.m = 4096, c.n = 14336, c.k = 8192;
  c.aKMajor = c.bKMajor = false; // dY^T and G read in place
  c.lda = 4096, c.ldb = 14336, c.ldd = 14336;
  c.aType = c.bType = c.dType = DType::BF16;
  c.epilogue = GemmEpilogue::BGradA;
  EXPECT_NE(checkCublasLtConfig(c, 9, 0).message().find("a bias epilogue without a bias"),
            std::string::npos);
  c.biasType = DType::BF16;
  EXPECT_TRUE(checkCublasLtConfig(c, 9, 0).isOk()) << checkCublasLtConfig(c, 9, 0).message();
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_BGRADB);
  EXPECT_NE(c.str().find("epilogue=bgrad_a"), std::string::npos) << c.str();
  c.epilogue = GemmEpilogue::BGradB;
  EXPECT_EQ(cublasLtLayout(c).epilogue, CUBLASLT_EPILOGUE_BGRADA);
}

// The message of checkCublasLtConfig for `c` on compute capability 9.0 (or "ok").
std::string check(const CublasLtGemmConfig &c, int major = 9, int minor = 0) {
  Status s = checkCublasLtConfig(c, major, minor);
  return s ? "ok" : s.message();
}

TEST(CublasLtConfig, Checks) {
  EXPECT_EQ(check(fp8Config()), "ok");
  EXPECT_EQ(check(fp8Config(), 8, 9), "ok") << "tensor-wide FP8 on Ada";
  CublasLtGemmConfig c = fp8Config();
  c.bType = DType::F8E5M2;
  EXPECT_EQ(check(c), "ok");
  c.aType = DType::F8E5M2;
  EXPECT_NE(check(c).find("e5m2 x e5m2 is not offered"), std::string::npos) << check(c);
  EXPECT_NE(check(c).find("cuBLASLt cannot run this GEMM [m=64 n=256 k=384"), std::string::npos);
  c = fp8Config();
  c.bType = DType::BF16;
  EXPECT_NE(check(c).find("both be FP8"), std::string::npos);
  EXPECT_NE(check(fp8Config(), 8, 6).find("compute capability 8.9"), std::string::npos);

  c = fp8Config();
  c.scaleMode = GemmScaleMode::OuterVector;
  EXPECT_EQ(check(c), "ok");
  EXPECT_NE(check(c, 8, 9).find("compute capability 9.0 (Hopper) only"), std::string::npos);
  EXPECT_NE(check(c, 10, 0).find("this device is 10.0"), std::string::npos);
  c.dType = DType::F8E4M3FN;
  EXPECT_NE(check(c).find("D cannot be FP8"), std::string::npos);
  c = fp8Config();
  c.scaleMode = GemmScaleMode::Block128;
  c.epilogue = GemmEpilogue::Gelu;
  EXPECT_NE(check(c).find("gelu epilogue is not offered with block128"), std::string::npos)
      << check(c);
  c.epilogue = GemmEpilogue::Bias;
  c.biasType = DType::BF16;
  EXPECT_EQ(check(c), "ok");
  c.m = 62; // any M: codegen pads the A-scale pitch to a multiple of 4
  EXPECT_EQ(check(c), "ok");

  c = fp8Config();
  c.epilogue = GemmEpilogue::GeluBias;
  EXPECT_NE(check(c).find("a bias epilogue without a bias"), std::string::npos);
  c.biasType = DType::F32;
  EXPECT_NE(check(c).find("the bias must be bf16 for D of bf16"), std::string::npos) << check(c);
  c.biasType = DType::BF16;
  EXPECT_EQ(check(c), "ok");
  c.dType = DType::F8E4M3FN;
  EXPECT_EQ(check(c), "ok") << "FP8 D takes a bf16 (or f16) bias";
  c.dType = DType::F16;
  EXPECT_NE(check(c).find("must be f16"), std::string::npos);

  c = fp8Config(64, 256, 100);
  EXPECT_NE(check(c).find("multiples of 16 bytes"), std::string::npos);
  c = fp8Config();
  c.lda = 100;
  EXPECT_NE(check(c).find("smaller than its row"), std::string::npos);
  c = fp8Config();
  c.alignA = 8;
  EXPECT_NE(check(c).find("16-byte aligned"), std::string::npos);

  c = fp8Config();
  c.aType = c.bType = DType::BF16;
  EXPECT_EQ(check(c, 8, 0), "ok") << "bf16 runs anywhere";
  c.hasAmaxD = true;
  EXPECT_NE(check(c).find("FP8 GEMMs only"), std::string::npos);

  // f16 and f32 operands (a graph without a recipe): D of their type, a bias of D's type.
  for (DType t : {DType::F16, DType::F32}) {
    c = fp8Config();
    c.aType = c.bType = c.dType = t;
    EXPECT_EQ(check(c), "ok") << dtypeName(t);
    c.epilogue = GemmEpilogue::Bias;
    c.biasType = t;
    EXPECT_EQ(check(c), "ok") << dtypeName(t);
  }
  c = fp8Config();
  c.aType = c.bType = DType::F32;
  EXPECT_NE(check(c).find("a f32 GEMM writes f32"), std::string::npos) << check(c);
  c.bType = DType::BF16;
  EXPECT_NE(check(c).find("both be bf16, f16 or f32"), std::string::npos) << check(c);

  // Transposed operands: bf16 only; the pitch then bounds M (A) or N (B).
  c = fp8Config(64, 256, 384);
  c.aKMajor = false;
  c.lda = 64;
  EXPECT_NE(check(c).find("must both be K-major (TN)"), std::string::npos) << check(c);
  c.aType = c.bType = DType::BF16;
  EXPECT_EQ(check(c), "ok");
  c.lda = 56;
  EXPECT_NE(check(c).find("smaller than its row"), std::string::npos);
  c.lda = 64;
  c.bKMajor = false;
  c.ldb = 384; // [K, N] needs a pitch >= N = 256 only
  EXPECT_EQ(check(c), "ok");
  c.ldb = 248;
  EXPECT_NE(check(c).find("smaller than its row"), std::string::npos);

  // The aux output: only with a GELU epilogue; bf16 for an FP8 GEMM; a 16-byte pitch >= N.
  c = fp8Config(64, 256, 384);
  c.dType = DType::F8E4M3FN;
  c.hasScaleD = c.hasAmaxD = true;
  c.auxType = DType::BF16;
  c.ldAux = 256;
  EXPECT_NE(check(c).find("needs a GELU epilogue"), std::string::npos) << check(c);
  c.epilogue = GemmEpilogue::GeluBias;
  c.biasType = DType::BF16;
  EXPECT_EQ(check(c), "ok");
  c.auxType = DType::F32;
  EXPECT_NE(check(c).find("the aux matrix must be bf16"), std::string::npos) << check(c);
  c.auxType = DType::BF16;
  c.ldAux = 252;
  EXPECT_NE(check(c).find("aux row pitch"), std::string::npos) << check(c);
  c.ldAux = 264;
  c.alignAux = 8;
  EXPECT_NE(check(c).find("aux matrix must be 16-byte aligned"), std::string::npos);
}

TEST(CublasLtConfig, KeyTracksTheRunTimeM) {
  CublasLtGemmConfig a = fp8Config(64), b = fp8Config(128);
  EXPECT_NE(a.str(), b.str());
  EXPECT_EQ(a.str(), fp8Config(64).str());
  CublasLtGemmConfig c = fp8Config(64);
  c.fastAccum = false;
  EXPECT_NE(c.str(), a.str());
  c = fp8Config(64);
  c.alignD = 16;
  EXPECT_NE(c.str(), a.str());
  c = fp8Config(64);
  c.aKMajor = false;
  EXPECT_NE(c.str(), a.str());
}

// A plan with one GEMM: A[?, 100] and B[256, 100] FP8 with pitch 112, D[?, 256] bf16, scalar
// inverse scales and a bf16 bias.
LaunchPlan gemmPlan(GemmStep &g) {
  LaunchPlan plan;
  auto add = [&](const char *name, std::vector<int64_t> shape, DType t, int64_t ld = 0) {
    BufferDesc b;
    b.name = name;
    b.type = TensorType(std::move(shape), t);
    b.ld = ld;
    plan.buffers.push_back(b);
    return static_cast<int>(plan.buffers.size() - 1);
  };
  g.name = "linear0";
  g.a = add("x8", {kDynamic, 100}, DType::F8E4M3FN, 112);
  g.b = add("w8", {256, 100}, DType::F8E4M3FN, 112);
  g.d = add("y", {kDynamic, 256}, DType::BF16);
  g.invScaleA = add("x_inv_scale", {}, DType::F32);
  g.invScaleB = add("w_inv_scale", {}, DType::F32);
  g.bias = add("b", {256}, DType::BF16);
  g.epilogue = GemmEpilogue::GeluBias;
  g.m = AffineM{1, 0};
  g.n = 256;
  g.k = 100;
  plan.steps.push_back(g);
  return plan;
}

TEST(CublasLtCall, FromAPlanStep) {
  GemmStep g;
  LaunchPlan plan = gemmPlan(g);
  std::vector<CUdeviceptr> addr = {0x100000, 0x200010, 0x300000, 0x400000, 0x400100, 0x500000};
  auto call = cublasLtCall(g, plan, 48, addr);
  ASSERT_TRUE(call) << call.error();
  const auto &[c, p] = *call;
  EXPECT_EQ(c.m, 48);
  EXPECT_EQ(c.n, 256);
  EXPECT_EQ(c.k, 112) << "K rounded up to 16 bytes within the padded pitch";
  EXPECT_EQ(c.lda, 112);
  EXPECT_EQ(c.ldb, 112);
  EXPECT_EQ(c.ldd, 256);
  EXPECT_EQ(c.dType, DType::BF16);
  ASSERT_TRUE(c.biasType);
  EXPECT_EQ(*c.biasType, DType::BF16);
  EXPECT_EQ(c.alignA, 256);
  EXPECT_EQ(c.alignB, 16);
  EXPECT_EQ(p.a, reinterpret_cast<const void *>(0x100000));
  EXPECT_EQ(p.invScaleA, reinterpret_cast<const float *>(0x400000));
  EXPECT_EQ(p.invScaleB, reinterpret_cast<const float *>(0x400100));
  EXPECT_EQ(p.bias, reinterpret_cast<const void *>(0x500000));
  EXPECT_EQ(p.amaxD, nullptr);
  EXPECT_EQ(check(c), "ok");

  addr.pop_back();
  auto wrong = cublasLtCall(g, plan, 48, addr);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().find("cuBLASLt GEMM 'linear0'"), std::string::npos);
}

TEST(CublasLtDescriptors, BuiltWithoutAGpu) {
  std::vector<CublasLtGemmConfig> configs;
  configs.push_back(fp8Config());
  CublasLtGemmConfig c = fp8Config();
  c.scaleMode = GemmScaleMode::OuterVector;
  configs.push_back(c);
  c.scaleMode = GemmScaleMode::Block128;
  c.fastAccum = false;
  c.epilogue = GemmEpilogue::Bias;
  c.biasType = DType::BF16;
  configs.push_back(c);
  c = fp8Config();
  c.dType = DType::F8E4M3FN;
  c.hasScaleD = c.hasAmaxD = true;
  c.epilogue = GemmEpilogue::GeluBias;
  c.biasType = DType::BF16;
  configs.push_back(c);
  c = fp8Config();
  c.aType = c.bType = DType::BF16;
  configs.push_back(c);
  for (const CublasLtGemmConfig &cfg : configs) {
    auto d = CublasLtDescriptors::create(cfg);
    ASSERT_TRUE(d) << d.error();
    CublasLtGemmPointers p;
    float dummy[4];
    p.invScaleA = p.invScaleB = p.scaleD = dummy;
    p.amaxD = dummy;
    p.bias = dummy;
    EXPECT_TRUE((*d)->setPointers(p)) << cfg.str();
  }
}

} // namespace
} // namespace fp8c
