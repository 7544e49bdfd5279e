// The generated Hopper FP8 GEMM without a GPU: every kernel config (tile shapes x dtypes x
// scale modes x epilogues, both consumer schedules) compiles with NVRTC for sm_90a; the PTX holds
// FP8 wgmma; ptxas reports no spill, no stack frame, and none of the wgmma serialization /
// setmaxnreg warnings (C7519: ptxas had to insert warpgroup.arrive; C7508: setmaxnreg ignored;
// C7510/C7513/C7515: wgmma serialized); a 16-bit D leaves through stmatrix and TMA stores where the
// chunk buffers fit, any other D from registers. Also the names and the tile heuristic
// (runtime/gpu/GemmSm90.h); the host-side checks are in GemmSm90ChecksTest.cpp.
#include "unit/runtime/GemmSm90Configs.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/jit/Nvrtc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <set>

namespace fp8c {
namespace {

using namespace sm90configs;

TEST(GemmSm90Compile, EveryConfigCompilesToWgmmaWithoutSpills) {
  double seconds = 0;
  int compiled = 0;
  for (const GemmSm90Spec &k : configs()) {
    SCOPED_TRACE(k.name());
    GemmSm90Problem prob{256, 256, 256, 256, 256, 256, 256, 4, 256, 256, 256};
    prob.ldBlockScale = 2; // blockCast: [256, 2] scales, [2, 256] inverses
    prob.ldBlockInv = 256;
    prob.ldaCast = 256;
    ASSERT_TRUE(checkGemmSm90(k, prob).isOk()) << checkGemmSm90(k, prob).message();
    NvrtcRequest req = gemmSm90Request(k);
    req.wantPtx = true;
    Expected<NvrtcResult> r = compileWithNvrtc(req);
    ASSERT_TRUE(r.hasValue()) << r.error();
    ++compiled;
    seconds += r->seconds;
    const std::string a = k.aType == DType::F8E4M3FN ? "e4m3" : "e5m2";
    const std::string b = k.bType == DType::F8E4M3FN ? "e4m3" : "e5m2";
    const bool pp = k.schedule == GemmSchedule::PingPong;
    int wn = pp || k.bm == 128 ? k.bn : k.bn / 2;
    if (k.promotes() && wn == 256)
      wn = 128; // promotion in two 128-column halves
    const std::string mma = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(wn) +
                            "k32.f32." + a + "." + b;
    EXPECT_NE(r->ptx.find(mma), std::string::npos) << "no " << mma << " in the PTX";
    EXPECT_NE(r->ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
    EXPECT_NE(r->ptx.find("setmaxnreg.inc"), std::string::npos);
    // Launched as a programmatic dependent of the previous kernel, every thread waits for it
    // before its first global access.
    EXPECT_NE(r->ptx.find("griddepcontrol.wait"), std::string::npos);
    // Clusters: B multicast to both blocks, stages released in both, a cluster barrier.
    const bool clustered = k.clusterM > 1;
    EXPECT_EQ(r->ptx.find(".multicast::cluster") != std::string::npos, clustered);
    EXPECT_EQ(r->ptx.find("mapa.shared::cluster") != std::string::npos, clustered);
    EXPECT_EQ(r->ptx.find("barrier.cluster.arrive") != std::string::npos, clustered);
    EXPECT_EQ(r->ptx.find(".reqnctapercluster 2") != std::string::npos, clustered);
    // The bf16-A prologue: the FP8 conversion and the proxy fence before the stage is handed
    // to wgmma; without it, A arrives by TMA alone.
    const std::string cvt = std::string("cvt.rn.satfinite.") + a + "x2.f32";
    if (k.castA || k.castAhead)
      EXPECT_NE(r->ptx.find(cvt), std::string::npos) << cvt;
    else if (k.dType != DType::F8E4M3FN && k.dType != DType::F8E5M2)
      EXPECT_EQ(r->ptx.find(cvt), std::string::npos) << cvt;
    // The TMA-store epilogue: stmatrix into the chunk buffer, the proxy fence, the bulk store
    // and the wait for its reads before the buffer is reused.
    const bool tms = k.epilogueBuffers() > 0;
    const bool d16 = k.dType == DType::BF16 || k.dType == DType::F16;
    if (tms)
      EXPECT_TRUE(k.tmaStore && k.dType != DType::F32);
    EXPECT_EQ(r->ptx.find("stmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos,
              tms && (d16 || (k.auxOut && !k.auxFp8) || k.epilogueWarps));
    // The offloaded epilogue: the consumers' bf16 tile read back by the epilogue warps.
    EXPECT_EQ(r->ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos,
              k.epilogueWarps);
    // A MN-major: its fragments from transposing shared-memory loads, the wgmma's A from
    // registers (four of them in braces before B's descriptor).
    EXPECT_EQ(r->ptx.find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") != std::string::npos,
              k.aTransposed);
    EXPECT_EQ(r->ptx.find(mma + " {%f") != std::string::npos &&
                  r->ptx.find("}, {%r", r->ptx.find(mma)) != std::string::npos,
              k.aTransposed);
    EXPECT_EQ(r->ptx.find("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") !=
                  std::string::npos,
              tms);
    EXPECT_EQ(r->ptx.find("cp.async.bulk.wait_group.read") != std::string::npos, tms);
    EXPECT_EQ(r->ptx.find("fence.proxy.async.shared::cta") != std::string::npos, k.castA || tms);
    EXPECT_EQ(r->ptx.find("max.u16x2") != std::string::npos, k.amaxA);
    // Cast-ahead A: rows published to other blocks' TMA loads (the global proxy fence) and
    // waited for with acquire loads.
    EXPECT_EQ(r->ptx.find("fence.proxy.async.global") != std::string::npos, k.castAhead);
    EXPECT_EQ(r->ptx.find("ld.acquire.gpu.global.u32") != std::string::npos, k.castAhead);
    // Extra outputs: D^T staged by byte stores; the pre-activation through stmatrix.
    EXPECT_EQ(r->ptx.find("st.shared.u8") != std::string::npos, k.transD);
    if (k.auxOut && !k.auxFp8)
      EXPECT_NE(r->ptx.find("stmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
    EXPECT_FALSE(r->hasSpills()) << r->log;
    for (const char *code : {"C7519", "C7508", "C7510", "C7513", "C7515"})
      EXPECT_EQ(r->log.find(code), std::string::npos) << code << " in the ptxas log:\n" << r->log;
    bool found = false;
    bool foundSums = false;
    for (const PtxasEntryInfo &e : r->entries) {
      EXPECT_EQ(e.stackFrameBytes, 0) << r->log;
      foundSums |= e.entry == k.name() + "_colsum";
      if (e.entry != k.name())
        continue;
      found = true;
      // setmaxnreg hands out registers assuming the launch bound's cap at entry (168): with
      // fewer, the consumers' setmaxnreg.inc would wait forever.
      EXPECT_EQ(e.registers, 168) << r->log;
    }
    EXPECT_TRUE(found) << "no ptxas report for " << k.name() << ":\n" << r->log;
    // The gelu_grad and residual epilogues read their input (prefetched to L2 first), cast-ahead
    // A its bf16 rows; column sums go through shuffles, a shared exchange and the module's
    // second kernel.
    const bool epiIn = k.geluGradIn || k.residualIn;
    EXPECT_EQ(r->ptx.find("prefetch.global.L2") != std::string::npos, epiIn);
    EXPECT_EQ(r->ptx.find("ld.global.nc") != std::string::npos, epiIn || k.castAhead);
    // (The offloaded epilogue sums a unit's 64 rows in one warp: no shared exchange.)
    EXPECT_EQ(r->ptx.find("st.shared.v2.f32") != std::string::npos,
              k.colSumType.has_value() && !k.epilogueWarps);
    EXPECT_EQ(foundSums, k.colSumType.has_value()) << r->log;
    // The block cast: each block's scale from a division (fp8.scale) and its inverse, written
    // beside D; no other config divides in the epilogue.
    if (k.blockCast)
      EXPECT_NE(r->ptx.find("div.rn.f32"), std::string::npos);
  }
  std::cout << "[ gemm sm90 ] " << compiled << " configs compiled in " << seconds << " s\n";
}

TEST(GemmSm90Compile, NamesAndSourcesDifferPerConfig) {
  std::set<std::string> names;
  for (const GemmSm90Spec &k : configs()) {
    EXPECT_TRUE(names.insert(k.name()).second) << k.name();
    std::string src = gemmSm90Source(k);
    EXPECT_NE(src.find("#include \"fp8c/gemm_sm90.cuh\""), std::string::npos);
    EXPECT_NE(src.find(k.name() + "("), std::string::npos);
    EXPECT_NE(src.find("__launch_bounds__(384, 1)"), std::string::npos);
  }
  GemmSm90Spec k;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  // 128 x 256 x 4 with a column buffer has room for one TMA-store chunk buffer per warpgroup.
  EXPECT_EQ(k.epilogueBuffers(), 1);
  EXPECT_EQ(k.name(),
            "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n256_s4_o1_biasbf16_gelutanh_amax_tms1");
  GemmSm90Spec pp = pingPong(128, 128, 6);
  EXPECT_EQ(pp.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s6_o1_pp_tms2");
  // The template takes one config struct of named members.
  const std::string ppSrc = gemmSm90Source(pp);
  EXPECT_NE(ppSrc.find("kSchedule = fp8c::sm90::Sched::PingPong;"), std::string::npos);
  EXPECT_NE(ppSrc.find("kClusterM = 1;"), std::string::npos);
  EXPECT_NE(ppSrc.find("kEpilogueBuffers = 2;"), std::string::npos);
  EXPECT_NE(ppSrc.find("fp8c::sm90::gemmSm90<GemmConfig>(mapA, mapB, mapB2, mapD, mapAux, mapDT, "
                       "mapSA, mapSB, mapSB2, p)"),
            std::string::npos);
  EXPECT_NE(gemmSm90Source(kernel(128, 6)).find("kSchedule = fp8c::sm90::Sched::Cooperative;"),
            std::string::npos);
  GemmSm90Spec c2 = pp;
  c2.clusterM = 2;
  EXPECT_EQ(c2.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s6_o1_pp_c2_tms2");
  EXPECT_NE(gemmSm90Source(c2).find("__cluster_dims__(2, 1, 1)"), std::string::npos);
  EXPECT_NE(gemmSm90Source(c2).find("kClusterM = 2;"), std::string::npos);
  // Registers only: TMA stores off, an f32 D, fewer than 128 bytes of a row per warpgroup, or
  // no room beside a 7-stage ring.
  GemmSm90Spec regs = pp;
  regs.tmaStore = false;
  EXPECT_EQ(regs.epilogueBuffers(), 0);
  EXPECT_EQ(regs.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s6_o1_pp");
  EXPECT_NE(gemmSm90Source(regs).find("kEpilogueBuffers = 0;"), std::string::npos);
  GemmSm90Spec fp8d = kernel(256, 4);
  fp8d.dType = DType::F8E4M3FN;
  EXPECT_EQ(fp8d.epilogueBuffers(), 2); // 128-column chunks of an FP8 D
  GemmSm90Spec fp8m64 = fp8d;
  fp8m64.bm = 64;
  fp8m64.bn = 128; // 64 columns per warpgroup: less than a 128-byte FP8 chunk
  EXPECT_EQ(fp8m64.epilogueBuffers(), 0);
  fp8d.dType = DType::F32;
  EXPECT_EQ(fp8d.epilogueBuffers(), 0);
  // Extra outputs: one 16 KB unit per warpgroup (two chunk buffers), named and instantiated;
  // refused without an FP8 D, without TMA stores, beside a 6-stage 128 x 128 ring, and at an N
  // or pitch that is not in whole 16-byte units.
  GemmSm90Spec xo = auxConfigs().front();
  EXPECT_EQ(xo.epilogueBuffers(), 2);
  EXPECT_EQ(xo.name(),
            "fp8c_gemm_sm90_e4m3_e4m3_e4m3_tensor_n128_s5_o1_pp_biasbf16_gelutanh_amax_tms2_aux_dt");
  EXPECT_NE(gemmSm90Source(xo).find("kEpilogueBuffers = 2;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(xo).find("kExtraOutputs = 3;"), std::string::npos);
  // The dual GEMM (swiglu): named, instantiated with Dual, its output columns per tile; refused
  // with a bias, an activation, extra outputs, or the cooperative 64-row split.
  const GemmSm90Spec sw = swigluConfigs().front();
  EXPECT_EQ(sw.name(), "fp8c_gemm_sm90_e4m3_e4m3_e4m3_tensor_n256_s4_o1_amax_tms2_swiglu");
  EXPECT_NE(gemmSm90Source(sw).find("kExtraOutputs = 0;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(sw).find("kDual = true;"), std::string::npos);
  EXPECT_EQ(sw.outCols(), 128);
  GemmSm90Spec swPp = swigluConfigs()[2]; // ping-pong 128 x 128, FP8 D: 64 output columns
  EXPECT_EQ(swPp.epilogueBuffers(), 0);     // less than a 128-byte FP8 chunk: registers
  for (auto edit : std::vector<std::function<void(GemmSm90Spec &)>>{
           [](GemmSm90Spec &x) { x.biasType = DType::BF16; },
           [](GemmSm90Spec &x) { x.activation = Activation::Silu; },
           [](GemmSm90Spec &x) { x.transD = true; }, [](GemmSm90Spec &x) { x.bm = 64; }}) {
    GemmSm90Spec bad = sw;
    edit(bad);
    Status st = checkGemmSm90Spec(bad);
    EXPECT_FALSE(st.isOk()) << bad.name();
    EXPECT_NE(st.message().find("dual GEMM (swiglu)"), std::string::npos) << st.message();
  }
  GemmSm90Pointers noUp{};
  alignas(16) int8_t dummy[64] = {};
  noUp.a = noUp.b = dummy;
  noUp.d = dummy;
  noUp.invScaleA = noUp.invScaleB = noUp.scaleD = reinterpret_cast<const float *>(dummy);
  noUp.amaxD = reinterpret_cast<float *>(dummy);
  Status st = checkGemmSm90(sw, GemmSm90Problem{64, 256, 256, 256, 256, 256}, &noUp);
  EXPECT_NE(st.message().find("needs the up weight (b2"), std::string::npos) << st.message();
  // The residual add: named, instantiated with its XO bit (16) through the usual epilogues;
  // refused beside extra outputs or the dual GEMM, with an input pitch that is not whole
  // 16-byte units, and without the input.
  const GemmSm90Spec res = residualConfigs().front();
  EXPECT_EQ(res.name(), "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n128_s6_o1_pp_tms2_res");
  EXPECT_NE(gemmSm90Source(res).find("kExtraOutputs = 16;"), std::string::npos);
  EXPECT_EQ(res.epilogueBuffers(), 2);
  for (auto edit : std::vector<std::function<void(GemmSm90Spec &)>>{
           [](GemmSm90Spec &x) { x.dType = DType::F8E4M3FN, x.transD = true; },
           [](GemmSm90Spec &x) { x.dType = DType::F8E4M3FN, x.geluGradIn = true; },
           [](GemmSm90Spec &x) { x.swiglu = true; }}) {
    GemmSm90Spec badRes = res;
    edit(badRes);
    Status st = checkGemmSm90Spec(badRes);
    EXPECT_NE(st.message().find("residual add (residualIn) combines with no extra outputs"),
              std::string::npos)
        << badRes.name() << ": " << st.message();
  }
  GemmSm90Problem rp{256, 256, 256, 256, 256, 256, 0, 0, 0, 0, 260};
  EXPECT_NE(checkGemmSm90(res, rp).message().find("residual input's pitch must be at least N and "
                                                  "a multiple of 8"),
            std::string::npos);
  rp.ldIn = 264;
  EXPECT_TRUE(checkGemmSm90(res, rp).isOk());
  GemmSm90Pointers noR = noUp;
  EXPECT_NE(checkGemmSm90(res, rp, &noR).message().find("needs its input r (epiIn)"),
            std::string::npos);
  noR.epiIn = dummy;
  EXPECT_TRUE(checkGemmSm90(res, rp, &noR).isOk()) << checkGemmSm90(res, rp, &noR).message();
  GemmSm90Problem xp{256, 256, 256, 256, 256, 256, 0, 0, 256, 256};
  EXPECT_TRUE(checkGemmSm90(xo, xp).isOk());
  GemmSm90Spec bad = xo;
  bad.dType = DType::BF16;
  EXPECT_NE(checkGemmSm90Spec(bad).message().find("need an FP8 D"), std::string::npos);
  bad = xo;
  bad.tmaStore = false;
  EXPECT_NE(checkGemmSm90Spec(bad).message().find("set tmaStore"), std::string::npos);
  bad = xo;
  bad.stages = 6;
  EXPECT_NE(checkGemmSm90Spec(bad).message().find("fewer stages"), std::string::npos);
  GemmSm90Problem odd = xp;
  odd.n = 250;
  EXPECT_NE(checkGemmSm90(xo, odd).message().find("whole 16-byte units"), std::string::npos);
  odd = xp;
  odd.ldDT = 288;
  odd.m = 290; // D^T's pitch must reach 304
  EXPECT_NE(checkGemmSm90(xo, odd).message().find("D^T pitch at least M"), std::string::npos);
  // The heuristic cuts the ping-pong ring to 5 stages to make room for the unit.
  Device h200;
  h200.smCount = 132;
  GemmSm90Spec chosen = xo;
  chosen = chooseGemmSm90Tiles(chosen, GemmSm90Problem{8192, 14336, 4096, 4096, 4096, 14336, 0, 0,
                                                        14336, 8192},
                               h200);
  EXPECT_EQ(chosen.schedule, GemmSchedule::PingPong);
  EXPECT_EQ(chosen.stages, 5);
  EXPECT_EQ(chosen.epilogueBuffers(), 2);
  EXPECT_EQ(pingPong(128, 128, 7).epilogueBuffers(), 0);
  EXPECT_EQ(pingPong(128, 128, 7).sharedBytes(), 7 * 32768 + 16 * 8 + 1024);
  // The offloaded epilogue (epilogueWarps): named "_ew", instantiated with EW; one unit buffer
  // per epilogue warp beside two 32 KB tile slots and a 4-stage ring; refused on other tiles or
  // schedules, with per-row amaxes, or no extra output to take; with the pre-activation too.
  const GemmSm90Spec ew = geluGradConfigs()[3];
  EXPECT_EQ(ew.name(),
            "fp8c_gemm_sm90_e5m2_e4m3_e5m2_tensor_n128_s4_o0_promote_amax_tms1_dt_dgelu_colsumbf16_ew");
  EXPECT_NE(gemmSm90Source(ew).find("kEpilogueBuffers = 1;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(ew).find("kExtraOutputs = 14;"), std::string::npos);
  EXPECT_NE(gemmSm90Source(ew).find("kEpilogueWarps = true;"), std::string::npos);
  EXPECT_EQ(ew.epilogueBuffers(), 1);
  EXPECT_EQ(ew.sharedBytes(),
            4 * 32768 + 2 * 32768 + 3 * 8192 + 2 * 1024 + (2 * 4 + 2 + 4) * 8 + 1024);
  for (auto edit : std::vector<std::function<void(GemmSm90Spec &)>>{
           [](GemmSm90Spec &x) { x.schedule = GemmSchedule::PingPong, x.fastAccum = true; },
           [](GemmSm90Spec &x) { x.bn = 192; },
           [](GemmSm90Spec &x) { x.clusterM = 2; }}) {
    GemmSm90Spec badEw = ew;
    edit(badEw);
    EXPECT_NE(checkGemmSm90Spec(badEw).message().find("needs cooperative 128 x 128 tiles"),
              std::string::npos)
        << badEw.name() << ": " << checkGemmSm90Spec(badEw).message();
  }
  GemmSm90Spec badEw = ew;
  badEw.geluGradIn = badEw.transD = false;
  badEw.colSumType.reset();
  EXPECT_NE(checkGemmSm90Spec(badEw).message().find("runs the extra-output epilogue"),
            std::string::npos);
  EXPECT_TRUE(geluGradConfigs()[5].auxOut);
  EXPECT_TRUE(checkGemmSm90Spec(geluGradConfigs()[5]).isOk());
  badEw = geluGradConfigs()[5];
  badEw.amaxRows = true;
  EXPECT_NE(checkGemmSm90Spec(badEw).message().find("tensor amax, not per-row"),
            std::string::npos);
  // The autotuner offers it for the promoting extra-output epilogues (the gelu_grad dgrad
  // GEMM), not for fast-accumulating ones (the MLP's first GEMM, which has ping-pong).
  const GemmSm90Problem mlpShape{8192, 14336, 4096, 4096, 4096, 14336, 0, 0, 14336, 8192, 14336};
  auto offloaded = [&](const GemmSm90Spec &base) {
    const std::vector<GemmSm90Spec> cands = gemmSm90Candidates(base, mlpShape, h200);
    return std::count_if(cands.begin(), cands.end(),
                         [](const GemmSm90Spec &c) { return c.epilogueWarps; });
  };
  EXPECT_EQ(offloaded(geluGradConfigs()[0]), 1);
  EXPECT_EQ(offloaded(auxConfigs().front()), 0);
  // The e4m3 pre-activation (auxFp8): the offloaded epilogue writes bf16 only, so the tuner
  // leaves it out even for a promoting base, and the check refuses it; auxFp8 needs auxOut.
  GemmSm90Spec aux8 = auxFp8Configs().front();
  EXPECT_NE(aux8.name().find("_aux8_dt"), std::string::npos) << aux8.name();
  aux8.fastAccum = false;
  EXPECT_EQ(offloaded(aux8), 0);
  badEw = geluGradConfigs()[5];
  badEw.auxFp8 = true;
  EXPECT_NE(checkGemmSm90Spec(badEw).message().find("writes the pre-activation in bf16"),
            std::string::npos);
  aux8 = auxFp8Configs().front();
  aux8.auxOut = false;
  EXPECT_NE(checkGemmSm90Spec(aux8).message().find("auxFp8 is the e4m3 form"), std::string::npos)
      << checkGemmSm90Spec(aux8).message();
}

TEST(GemmSm90Compile, TileHeuristic) {
  Device h200;
  h200.smCount = 132;
  GemmSm90Spec k;
  GemmSm90Spec big = chooseGemmSm90Tiles(k, {8192, 8192, 8192, 8192, 8192, 8192}, h200);
  EXPECT_EQ(big.bn, 256);
  EXPECT_TRUE(checkGemmSm90(big, {8192, 8192, 8192, 8192, 8192, 8192}).isOk());
  GemmSm90Spec decode = chooseGemmSm90Tiles(k, {16, 14336, 4096, 4096, 4096, 14336}, h200);
  EXPECT_EQ(decode.bm, 64);
  EXPECT_EQ(decode.bn, 128);
  EXPECT_TRUE(checkGemmSm90(decode, {16, 14336, 4096, 4096, 4096, 14336}).isOk());
  GemmSm90Spec blk = k;
  blk.scaleMode = GemmScaleMode::Block128;
  // Promotion: 128 x 192 where its tiles fill the SMs, 128 x 128 below.
  EXPECT_EQ(chooseGemmSm90Tiles(blk, {8192, 8192, 8192, 8192, 8192, 8192}, h200).bn, 192);
  EXPECT_EQ(chooseGemmSm90Tiles(blk, {1024, 1024, 8192, 8192, 8192, 1024}, h200).bn, 128);
  // The 1x128-block cast: whole 128-column blocks per warpgroup at every M (64 x 256 for
  // decode, 128 x 128 instead of promotion's 128 x 192), and a clear error for a tile without.
  GemmSm90Spec bc = blk;
  bc.dType = DType::F8E4M3FN;
  bc.blockCast = true;
  for (int64_t m : {1, 64, 65, 1024, 8192}) {
    GemmSm90Problem prob{m, 14336, 4096, 4096, 4096, 14336, (m + 3) / 4 * 4, 32};
    prob.ldBlockScale = 112;
    prob.ldBlockInv = prob.ldsa;
    const GemmSm90Spec t = chooseGemmSm90Tiles(bc, prob, h200);
    EXPECT_EQ(t.bm, m <= 64 ? 64 : 128) << m;
    EXPECT_EQ(t.bn, m <= 64 ? 256 : 128) << m;
    EXPECT_TRUE(checkGemmSm90(t, prob).isOk()) << m << ": " << checkGemmSm90(t, prob).message();
  }
  GemmSm90Spec wide = bc;
  wide.bn = 192;
  wide.stages = 5;
  EXPECT_NE(checkGemmSm90Spec(wide).message().find("whole 128-column blocks"), std::string::npos);
  GemmSm90Spec bf16Bc = bc;
  bf16Bc.dType = DType::BF16;
  bf16Bc.bn = 128;
  EXPECT_NE(checkGemmSm90Spec(bf16Bc).message().find("FP8 D"), std::string::npos);
  // The dual GEMM with promotion is cooperative at every M, decode included.
  GemmSm90Spec dual = blk;
  dual.swiglu = true;
  for (int64_t m : {1, 16, 64, 8192}) {
    // N 4096: 43 tiles of 96 output columns per 128 rows, too few for 132 SMs below M 512.
    const GemmSm90Problem prob{m, 4096, 4096, 4096, 4096, 4096, (m + 3) / 4 * 4, 32};
    const GemmSm90Spec t = chooseGemmSm90Tiles(dual, prob, h200);
    EXPECT_EQ(t.schedule, GemmSchedule::Cooperative) << m;
    EXPECT_EQ(t.bn, m == 8192 ? 192 : 128) << m;
    EXPECT_TRUE(checkGemmSm90(t, prob).isOk()) << m << ": " << checkGemmSm90(t, prob).message();
  }
  EXPECT_EQ(big.schedule, GemmSchedule::Cooperative);
  // Short K: ping-pong 128 x 128 (the epilogue hidden behind the other warpgroup's main loop).
  const GemmSm90Problem up{8192, 14336, 4096, 4096, 4096, 14336};
  GemmSm90Spec pp = chooseGemmSm90Tiles(k, up, h200);
  EXPECT_EQ(pp.schedule, GemmSchedule::PingPong);
  EXPECT_EQ(pp.bm, 128);
  EXPECT_EQ(pp.bn, 128);
  EXPECT_TRUE(pp.overlap);
  EXPECT_TRUE(checkGemmSm90(pp, up).isOk());
  // The dual GEMM: ping-pong 128 x 128 for an FP8 h (64 output columns, the register
  // epilogue; the tuner's pick) and a bf16 h, ping-pong 64-row tiles for decode, 128 x 192
  // promoting.
  GemmSm90Spec sw = k;
  sw.swiglu = true;
  sw.dType = DType::F8E4M3FN;
  GemmSm90Spec swBig = chooseGemmSm90Tiles(sw, up, h200);
  EXPECT_EQ(swBig.schedule, GemmSchedule::PingPong);
  EXPECT_EQ(swBig.bn, 128);
  EXPECT_EQ(swBig.epilogueBuffers(), 0);
  EXPECT_TRUE(checkGemmSm90(swBig, up).isOk());
  GemmSm90Spec swDecode = chooseGemmSm90Tiles(sw, {16, 14336, 4096, 4096, 4096, 14336}, h200);
  EXPECT_EQ(swDecode.schedule, GemmSchedule::PingPong);
  EXPECT_EQ(swDecode.bm, 64);
  EXPECT_TRUE(checkGemmSm90(swDecode, {16, 14336, 4096, 4096, 4096, 14336}).isOk());
  sw.dType = DType::BF16;
  EXPECT_EQ(chooseGemmSm90Tiles(sw, up, h200).schedule, GemmSchedule::PingPong);
  sw.fastAccum = false;
  EXPECT_EQ(chooseGemmSm90Tiles(sw, up, h200).bn, 192);
  GemmSm90Spec gelu = k;
  gelu.scaleMode = GemmScaleMode::OuterVector;
  gelu.biasType = DType::BF16;
  gelu.activation = Activation::GeluTanh;
  EXPECT_EQ(chooseGemmSm90Tiles(gelu, up, h200).schedule, GemmSchedule::PingPong);
  // Long K: cooperative 128 x 256; a ping-pong input is reset.
  GemmSm90Spec down = chooseGemmSm90Tiles(pp, {8192, 4096, 14336, 14336, 14336, 4096}, h200);
  EXPECT_EQ(down.schedule, GemmSchedule::Cooperative);
  EXPECT_EQ(down.bn, 256);
  // Promotion stays cooperative at any K; so does decode and a problem of few wide tiles.
  GemmSm90Spec precise = k;
  precise.fastAccum = false;
  EXPECT_EQ(chooseGemmSm90Tiles(precise, up, h200).schedule, GemmSchedule::Cooperative);
  EXPECT_EQ(chooseGemmSm90Tiles(blk, up, h200).schedule, GemmSchedule::Cooperative);
  EXPECT_EQ(chooseGemmSm90Tiles(pp, {16, 14336, 4096, 4096, 4096, 14336}, h200).schedule,
            GemmSchedule::Cooperative);
  EXPECT_EQ(chooseGemmSm90Tiles(pp, {256, 4096, 4096, 4096, 4096, 4096}, h200).schedule,
            GemmSchedule::Cooperative);
  EXPECT_GE(gemmSm90GroupM(big, {8192, 8192, 8192, 8192, 8192, 8192}, h200), 8);
  EXPECT_EQ(gemmSm90GroupM(big, {16, 8192, 8192, 8192, 8192, 8192}, h200), 1);
}

} // namespace
} // namespace fp8c
