// The spec of one generated Hopper GEMM (codegen/gemm/GemmSpec.h) and its source
// (codegen/gemm/GemmSource.h): the name is unique per distinct config, the source names the
// template's members, and the source of a spec compiles with NVRTC for sm_90a to FP8 wgmma.
#include "codegen/gemm/GemmSource.h"
#include "codegen/gemm/GemmSpec.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/jit/Nvrtc.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

namespace fp8c {
namespace {

/// The base spec and one variant per member that selects a different kernel.
std::vector<GemmSm90Spec> oneMemberVariants() {
  const GemmSm90Spec base;
  std::vector<std::function<void(GemmSm90Spec &)>> edits = {
      [](GemmSm90Spec &) {},
      [](GemmSm90Spec &k) { k.aType = DType::F8E5M2; },
      [](GemmSm90Spec &k) { k.bType = DType::F8E5M2; },
      [](GemmSm90Spec &k) { k.dType = DType::F16; },
      [](GemmSm90Spec &k) { k.dType = DType::F32; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN; },
      [](GemmSm90Spec &k) { k.scaleMode = GemmScaleMode::OuterVector; },
      [](GemmSm90Spec &k) { k.scaleMode = GemmScaleMode::Block128; },
      [](GemmSm90Spec &k) { k.biasType = DType::BF16; },
      [](GemmSm90Spec &k) { k.biasType = DType::F32; },
      [](GemmSm90Spec &k) { k.activation = Activation::Relu; },
      [](GemmSm90Spec &k) { k.activation = Activation::GeluTanh; },
      [](GemmSm90Spec &k) { k.amaxD = true; },
      [](GemmSm90Spec &k) { k.amaxD = k.amaxRows = true; },
      [](GemmSm90Spec &k) { k.schedule = GemmSchedule::PingPong; },
      [](GemmSm90Spec &k) { k.bm = 64; },
      [](GemmSm90Spec &k) { k.bn = 128; },
      [](GemmSm90Spec &k) { k.stages = 3; },
      [](GemmSm90Spec &k) { k.overlap = false; },
      [](GemmSm90Spec &k) { k.fastAccum = false; },
      [](GemmSm90Spec &k) { k.clusterM = 2; },
      [](GemmSm90Spec &k) { k.castA = true; },
      [](GemmSm90Spec &k) { k.castA = true, k.castSlots = 3; },
      [](GemmSm90Spec &k) { k.castAhead = true; },
      [](GemmSm90Spec &k) { k.castAhead = k.amaxA = true; },
      [](GemmSm90Spec &k) { k.aTransposed = true; },
      [](GemmSm90Spec &k) { k.tmaStore = false; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.auxOut = true; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.auxOut = k.auxFp8 = true; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.transD = true; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.geluGradIn = true; },
      [](GemmSm90Spec &k) { k.residualIn = true; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.colSumType = DType::F32; },
      [](GemmSm90Spec &k) { k.swiglu = true; },
      [](GemmSm90Spec &k) { k.dType = DType::F8E4M3FN, k.blockCast = true; },
      [](GemmSm90Spec &k) { k.epilogueWarps = true; },
      [](GemmSm90Spec &k) { k.sideSpec = "struct Spec {};", k.sideBuffers = 2; },
      [](GemmSm90Spec &k) { k.sideSpec = "struct Spec { };", k.sideBuffers = 2; },
  };
  std::vector<GemmSm90Spec> out;
  for (const auto &e : edits) {
    GemmSm90Spec k = base;
    e(k);
    out.push_back(k);
  }
  return out;
}

TEST(GemmSpec, NameIsUniquePerDistinctConfig) {
  const std::vector<GemmSm90Spec> specs = oneMemberVariants();
  std::set<std::string> names, sources;
  for (const GemmSm90Spec &k : specs) {
    EXPECT_TRUE(names.insert(k.name()).second) << "two configs named " << k.name();
    EXPECT_TRUE(sources.insert(gemmSm90Source(k)).second) << "two configs with one source";
  }
  EXPECT_EQ(names.size(), specs.size());
  // The name depends on the config alone.
  EXPECT_EQ(GemmSm90Spec().name(), GemmSm90Spec().name());
}

TEST(GemmSpec, SourceInstantiatesTheTemplateWithANamedConfig) {
  GemmSm90Spec k;
  k.stages = 4;
  const std::string src = gemmSm90Source(k);
  EXPECT_NE(src.find("struct GemmConfig {"), std::string::npos) << src;
  EXPECT_NE(src.find("static constexpr int kStages = 4;"), std::string::npos) << src;
  EXPECT_NE(src.find("static constexpr int kBN = 256;"), std::string::npos) << src;
  EXPECT_NE(src.find("kTypeA = fp8c::Dt::E4M3;"), std::string::npos) << src;
  EXPECT_NE(src.find("using Side = fp8c::sm90::NoSide;"), std::string::npos) << src;
  EXPECT_NE(src.find("fp8c::sm90::gemmSm90<GemmConfig>("), std::string::npos) << src;
  EXPECT_NE(src.find(k.name() + "("), std::string::npos) << src;
}

TEST(GemmSpec, SourceCompilesWithNvrtcForSm90a) {
  GemmSm90Spec k;
  k.biasType = DType::BF16;
  k.activation = Activation::Relu;
  k.amaxD = true;
  ASSERT_TRUE(checkGemmSm90Spec(k).isOk()) << checkGemmSm90Spec(k).message();
  NvrtcRequest req;
  req.kernelName = k.name();
  req.source = gemmSm90Source(k);
  req.arch = "sm_90a";
  req.wantPtx = true;
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  ASSERT_TRUE(r.hasValue()) << r.error();
  EXPECT_NE(r->ptx.find("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"),
            std::string::npos);
  EXPECT_NE(r->ptx.find(".entry " + k.name()), std::string::npos);
}

} // namespace
} // namespace fp8c
