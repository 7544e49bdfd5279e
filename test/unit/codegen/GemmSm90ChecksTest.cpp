// The generated Hopper FP8 GEMM's host-side checks without a GPU (runtime/gpu/GemmSm90.h):
// what checkGemmSm90Spec and checkGemmSm90 refuse for the ping-pong schedule, problems and
// pointers, the bf16-A prologue, cast-ahead A and A given MN-major, each refusal naming what to
// change, and the names and template arguments those kernels get. (The configs' compilation:
// GemmSm90CompileTest.cpp.)
#include "unit/runtime/GemmSm90Configs.h"
#include "runtime/gpu/GemmSm90.h"

#include <gtest/gtest.h>

#include <string>

namespace fp8c {
namespace {

using namespace sm90configs;

// The ping-pong schedule's own limits, each refusal naming what to do instead.
TEST(GemmSm90Compile, PingPongChecks) {
  GemmSm90Problem p{100, 333, 1000, 1008, 1008, 333, 100, 8};
  EXPECT_TRUE(checkGemmSm90(pingPong(128, 128, 7), p).isOk());
  EXPECT_TRUE(checkGemmSm90(pingPong(64, 256, 5), p).isOk());
  GemmSm90Spec blk = pingPong(128, 128, 6, false);
  blk.scaleMode = GemmScaleMode::Block128;
  Status st = checkGemmSm90(blk, p);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("ping-pong"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("cooperative"), std::string::npos) << st.message();
  GemmSm90Spec precise = pingPong(128, 128, 6, false);
  precise.fastAccum = false;
  EXPECT_NE(checkGemmSm90(precise, p).message().find("cooperative"), std::string::npos);
  GemmSm90Spec wide = pingPong(128, 256, 4);
  st = checkGemmSm90(wide, p);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("128 * 128"), std::string::npos) << st.message();
  EXPECT_NE(checkGemmSm90(pingPong(128, 192, 5), p).message().find("128 * 128"), std::string::npos);
  // 128 x 128 x 8 stages does not fit in shared memory, ping-pong or not.
  EXPECT_NE(checkGemmSm90(pingPong(128, 128, 8), p).message().find("shared memory"),
            std::string::npos);
}

TEST(GemmSm90Compile, HostChecksNameTheProblem) {
  GemmSm90Spec k;
  GemmSm90Problem p{100, 333, 1000, 1008, 1008, 333};
  EXPECT_TRUE(checkGemmSm90(k, p).isOk());
  GemmSm90Problem odd = p;
  odd.lda = 1000;
  Status st = checkGemmSm90(k, odd);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("multiples of 16 bytes"), std::string::npos) << st.message();
  GemmSm90Problem zero = p;
  zero.m = 0;
  EXPECT_NE(checkGemmSm90(k, zero).message().find("at least 1"), std::string::npos);
  GemmSm90Spec bf = k;
  bf.aType = DType::BF16;
  EXPECT_NE(checkGemmSm90(bf, p).message().find("must be FP8"), std::string::npos);
  GemmSm90Spec e5 = k;
  e5.aType = e5.bType = DType::F8E5M2;
  EXPECT_NE(checkGemmSm90(e5, p).message().find("e5m2 x e5m2"), std::string::npos);
  GemmSm90Spec blk = k;
  blk.scaleMode = GemmScaleMode::Block128;
  blk.bn = 192;
  blk.stages = 5; // 192 columns fit; the scale pitches are missing
  EXPECT_NE(checkGemmSm90(blk, p).message().find("ldsa"), std::string::npos);
  blk.bn = 256;
  blk.stages = 4;
  EXPECT_NE(checkGemmSm90(blk, p).message().find("at most 192"), std::string::npos);
  GemmSm90Spec precise = k; // 128 x 256: promoted in two 128-column halves
  precise.fastAccum = false;
  EXPECT_TRUE(checkGemmSm90(precise, p).isOk()) << checkGemmSm90(precise, p).message();
  precise.scaleMode = GemmScaleMode::OuterVector; // the halves take tensor scales only
  EXPECT_NE(checkGemmSm90(precise, p).message().find("at most 192"), std::string::npos);
  precise.scaleMode = GemmScaleMode::Tensor;
  precise.bn = 192;
  precise.stages = 5;
  EXPECT_TRUE(checkGemmSm90(precise, p).isOk()) << checkGemmSm90(precise, p).message();
  blk.bn = 128;
  EXPECT_NE(checkGemmSm90(blk, p).message().find("ldsa"), std::string::npos);
  GemmSm90Spec tooDeep = k;
  tooDeep.bn = 128;
  tooDeep.stages = 8;
  EXPECT_NE(checkGemmSm90Spec(tooDeep).message().find("shared memory"), std::string::npos);
  GemmSm90Spec big = k;
  big.stages = 6;
  EXPECT_NE(checkGemmSm90(big, p).message().find("shared memory"), std::string::npos);
  GemmSm90Spec c3 = k;
  c3.clusterM = 3;
  EXPECT_NE(checkGemmSm90Spec(c3).message().find("clusterM must be 1 or 2"), std::string::npos);
  GemmSm90Pointers ptrs;
  EXPECT_NE(checkGemmSm90(k, p, &ptrs).message().find("required"), std::string::npos);
  alignas(16) static unsigned char buf[64];
  ptrs.a = buf + 8;
  ptrs.b = ptrs.d = buf;
  ptrs.invScaleA = ptrs.invScaleB = reinterpret_cast<float *>(buf);
  EXPECT_NE(checkGemmSm90(k, p, &ptrs).message().find("16-byte aligned"), std::string::npos);
}

// The bf16-A prologue's limits and its pitch rule (bf16 rows: a multiple of 8 elements).
TEST(GemmSm90Compile, CastAChecks) {
  GemmSm90Spec k = pingPong(128, 128, 4);
  k.castA = true;
  GemmSm90Problem p{100, 333, 1000, 1000, 1008, 333};
  EXPECT_TRUE(checkGemmSm90(k, p).isOk()) << checkGemmSm90(k, p).message();
  GemmSm90Problem odd = p;
  odd.lda = 1004; // 2008 bytes
  Status st = checkGemmSm90(k, odd);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("bf16 A 1004"), std::string::npos) << st.message();
  GemmSm90Spec blk = kernel(128, 4, false);
  blk.castA = true;
  blk.scaleMode = GemmScaleMode::Block128;
  EXPECT_NE(checkGemmSm90Spec(blk).message().find("not 1x128 blocks"), std::string::npos);
  GemmSm90Spec c2 = k;
  c2.clusterM = 2;
  EXPECT_NE(checkGemmSm90Spec(c2).message().find("single blocks"), std::string::npos);
  GemmSm90Spec noCast = pingPong(128, 128, 6);
  noCast.amaxA = true;
  EXPECT_NE(checkGemmSm90Spec(noCast).message().find("set castA"), std::string::npos);
  // Six stages plus two 32 KiB staging slots do not fit; the heuristic cuts the stages.
  GemmSm90Spec deep = pingPong(128, 128, 6);
  deep.castA = true;
  EXPECT_NE(checkGemmSm90Spec(deep).message().find("shared memory"), std::string::npos);
  Device h200;
  h200.smCount = 132;
  GemmSm90Spec base;
  base.castA = true;
  for (const GemmSm90Problem &prob : {GemmSm90Problem{8192, 14336, 4096, 4096, 4096, 14336},
                                      GemmSm90Problem{8192, 4096, 14336, 14336, 14336, 4096},
                                      GemmSm90Problem{16, 14336, 4096, 4096, 4096, 14336}}) {
    GemmSm90Spec c = chooseGemmSm90Tiles(base, prob, h200);
    EXPECT_TRUE(checkGemmSm90(c, prob).isOk())
        << c.name() << ": " << checkGemmSm90(c, prob).message();
    GemmSm90Spec plain = chooseGemmSm90Tiles(GemmSm90Spec{}, prob, h200);
    EXPECT_EQ(c.bn, plain.bn);
    EXPECT_EQ(c.schedule, plain.schedule);
    EXPECT_LE(c.stages, plain.stages) << c.name();
    EXPECT_LE(c.sharedBytes(), 232448) << c.name();
  }
  GemmSm90Pointers ptrs;
  alignas(16) static unsigned char buf[64];
  ptrs.a = ptrs.b = ptrs.d = buf;
  ptrs.invScaleA = ptrs.invScaleB = reinterpret_cast<float *>(buf);
  EXPECT_NE(checkGemmSm90(k, p, &ptrs).message().find("quantScaleA"), std::string::npos);
  EXPECT_EQ(k.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s4_o1_pp_abf16s2_tms2");
}

// Cast-ahead A's limits, pitches, pointers and name.
TEST(GemmSm90Compile, CastAheadChecks) {
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.castAhead = true;
  k.amaxA = true;
  GemmSm90Problem p{100, 333, 1000, 1000, 1008, 333};
  p.ldaCast = 1008;
  EXPECT_TRUE(checkGemmSm90(k, p).isOk()) << checkGemmSm90(k, p).message();
  GemmSm90Problem odd = p;
  odd.lda = 1004; // 2008 bytes of bf16
  EXPECT_NE(checkGemmSm90(k, odd).message().find("bf16 A 1004"), std::string::npos);
  odd = p;
  odd.ldaCast = 1000; // not a multiple of 16 bytes
  EXPECT_NE(checkGemmSm90(k, odd).message().find("ldaCast"), std::string::npos);
  odd.ldaCast = 992; // below K
  EXPECT_NE(checkGemmSm90(k, odd).message().find("ldaCast"), std::string::npos);
  GemmSm90Spec both = k;
  both.castA = true;
  both.stages = 4; // room for the bf16-A prologue's staging slots
  EXPECT_NE(checkGemmSm90Spec(both).message().find("set one"), std::string::npos);
  GemmSm90Spec blk = kernel(128, 4, false);
  blk.castAhead = true;
  blk.scaleMode = GemmScaleMode::Block128;
  EXPECT_NE(checkGemmSm90Spec(blk).message().find("not 1x128 blocks"), std::string::npos);
  GemmSm90Spec c2 = kernel(128, 6);
  c2.castAhead = true;
  c2.clusterM = 2;
  EXPECT_NE(checkGemmSm90Spec(c2).message().find("single blocks"), std::string::npos);
  GemmSm90Pointers ptrs;
  alignas(16) static unsigned char buf[64];
  ptrs.a = ptrs.b = ptrs.d = buf;
  ptrs.invScaleA = ptrs.invScaleB = reinterpret_cast<float *>(buf);
  ptrs.quantScaleA = reinterpret_cast<float *>(buf);
  ptrs.amaxA = reinterpret_cast<float *>(buf);
  EXPECT_NE(checkGemmSm90(k, p, &ptrs).message().find("aCast"), std::string::npos);
  ptrs.aCast = buf;
  ptrs.aReady = reinterpret_cast<uint32_t *>(buf);
  EXPECT_TRUE(checkGemmSm90(k, p, &ptrs).isOk()) << checkGemmSm90(k, p, &ptrs).message();
  EXPECT_EQ(gemmSm90CastAheadCounters(100), 3);
  EXPECT_EQ(gemmSm90CastAheadCounters(128), 3);
  EXPECT_EQ(k.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s6_o1_pp_aca_amaxa_tms2");
  EXPECT_NE(gemmSm90Source(k).find("kSchedule = fp8c::sm90::Sched::PingPong;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(k).find("kAmaxA = true;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(k).find("kCastAhead = true;"), std::string::npos);
}

// A given MN-major (aTransposed): the kernels and problems it takes, each refusal naming what
// to change, its name and template argument.
TEST(GemmSm90Compile, ATransposedChecks) {
  GemmSm90Spec k = kernel(192, 5, false);
  k.fastAccum = false;
  k.aTransposed = true;
  // M 100 rows of D read from A^T [K 1000, M]: pitch at least M, whole 16-byte units.
  GemmSm90Problem p{100, 336, 1000, 112, 1008, 352};
  EXPECT_TRUE(checkGemmSm90(k, p).isOk()) << checkGemmSm90(k, p).message();
  EXPECT_EQ(k.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n192_s5_o0_promote_tms1_at");
  EXPECT_NE(gemmSm90Source(k).find("kATransposed = true;"), std::string::npos);
  GemmSm90Problem bad = p;
  bad.lda = 96; // below M
  EXPECT_NE(checkGemmSm90(k, bad).message().find("at least M (A^T"), std::string::npos);
  bad.lda = 104; // not 16-byte units
  EXPECT_NE(checkGemmSm90(k, bad).message().find("multiples of 16 bytes"), std::string::npos);
  bad = p;
  bad.n = 333; // D's width not in 16-byte units: no TMA-store epilogue
  bad.ldd = 336;
  EXPECT_NE(checkGemmSm90(k, bad).message().find("stores D by TMA only"), std::string::npos);
  GemmSm90Spec pp = pingPong(128, 128, 6);
  pp.aTransposed = true;
  EXPECT_NE(checkGemmSm90Spec(pp).message().find("cooperative 128-row tiles"), std::string::npos);
  GemmSm90Spec c2 = kernel(128, 6);
  c2.aTransposed = true;
  c2.clusterM = 2;
  EXPECT_NE(checkGemmSm90Spec(c2).message().find("single blocks"), std::string::npos);
  GemmSm90Spec row = kernel(128, 6);
  row.aTransposed = true;
  row.scaleMode = GemmScaleMode::OuterVector;
  EXPECT_NE(checkGemmSm90Spec(row).message().find("tensor scales"), std::string::npos);
  GemmSm90Spec f32 = kernel(128, 6);
  f32.aTransposed = true;
  f32.dType = DType::F32;
  EXPECT_NE(checkGemmSm90Spec(f32).message().find("TMA-store epilogue"), std::string::npos);
  GemmSm90Spec cast = kernel(128, 6);
  cast.aTransposed = cast.castA = true;
  cast.stages = 4;
  EXPECT_NE(checkGemmSm90Spec(cast).message().find("no bf16-A prologue"), std::string::npos);
  GemmSm90Spec dt = kernel(128, 6);
  dt.aTransposed = dt.transD = true;
  dt.dType = DType::F8E4M3FN;
  EXPECT_NE(checkGemmSm90Spec(dt).message().find("no extra outputs"), std::string::npos);
}

} // namespace
} // namespace fp8c
