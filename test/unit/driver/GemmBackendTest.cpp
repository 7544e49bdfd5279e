// The GEMM backend choice (CompileOptions::backend, ir/GemmBackend.h) on the CPU: names, the
// backend carried into every plan step (FP8 GEMMs take the option, bf16 GEMMs stay on cuBLASLt),
// the same plan from the typed option as from its text (fp8c --backend, fuse{gemm-backend=B}),
// and the mapping of each example x recipe's
// GEMM steps onto the generated sm90 GEMM (runtime/gpu/GemmSm90Step.h): kernel config from the
// step, tile configs over M, pitches at odd M, and the refusals that name the GEMM.
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "driver/Compile.h"
#include "runtime/gpu/GemmSm90Step.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace fp8c {
namespace {

std::unique_ptr<Module> parseExample(const std::string &name) {
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name + ".mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(ss.str(), name, diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  return m;
}

CompiledGraph plan(const Graph &g, const std::string &recipe, GemmBackend backend) {
  CompileOptions o;
  o.recipe = recipeKindNamed(recipe);
  o.backend = backend;
  Expected<CompiledGraph> cg = compileToPlan(g, o);
  EXPECT_TRUE(cg.hasValue()) << (cg ? "" : cg.error());
  return cg ? cg.take() : CompiledGraph{};
}

std::vector<const GemmStep *> gemms(const LaunchPlan &p) {
  std::vector<const GemmStep *> out;
  for (const Step &s : p.steps)
    if (const auto *g = std::get_if<GemmStep>(&s))
      out.push_back(g);
  return out;
}

Device hopper() {
  Device d;
  d.ccMajor = 9;
  d.arch = "sm_90a";
  d.smCount = 132;
  return d;
}

TEST(GemmBackend, NamesRoundTripAndUnknownNamesAreRefused) {
  for (GemmBackend b : {GemmBackend::Auto, GemmBackend::CublasLt, GemmBackend::Generated})
    EXPECT_EQ(parseGemmBackend(gemmBackendName(b)), b);
  EXPECT_FALSE(parseGemmBackend("cutlass").has_value());
  EXPECT_FALSE(parseGemmBackend("").has_value());
  EXPECT_EQ(CompileOptions().backend, GemmBackend::Auto);
}

// What fp8c does with --recipe=R --backend=B (or --passes=P --backend=B): the name parsed once,
// the pipeline's fuse planning for it, codegen lowering for it. The typed CompileOptions::backend
// gives the same pipeline and the same plan, and so does the backend spelled in the pipeline
// text (fuse{gemm-backend=B}).
TEST(GemmBackend, TypedOptionPlansAsTheCliAndThePipelineText) {
  for (const char *example : {"mlp", "swiglu_mlp"})
    for (const char *recipe : {"tensorwise", "blockwise", "delayed"})
      for (GemmBackend b : {GemmBackend::Auto, GemmBackend::CublasLt, GemmBackend::Generated}) {
        SCOPED_TRACE(std::string(example) + " " + recipe + " " + gemmBackendName(b));
        std::unique_ptr<Module> m = parseExample(example);
        ASSERT_TRUE(m);
        const Graph &g = *m->graphs()[0];
        CompileOptions o;
        o.recipe = recipeKindNamed(recipe);
        o.backend = b;
        Expected<CompiledGraph> typed = compileToPlan(g, o);
        ASSERT_TRUE(typed.hasValue()) << typed.error();

        const std::string text = std::string("shape-infer,canonicalize,quantize{recipe=") +
                                 recipe + "},canonicalize,cse,fuse,dce";
        std::optional<GemmBackend> cli = parseGemmBackend(gemmBackendName(b)); // --backend=B
        ASSERT_EQ(cli, b);
        const std::string spelled =
            b == GemmBackend::Auto
                ? text
                : std::string("shape-infer,canonicalize,quantize{recipe=") + recipe +
                      "},canonicalize,cse,fuse{gemm-backend=" + gemmBackendName(b) + "},dce";
        for (const auto &[pipeline, defaults] :
             {std::pair{text, PipelineDefaults{*cli}}, std::pair{spelled, PipelineDefaults{}}}) {
          SCOPED_TRACE(pipeline);
          PassManager pm;
          ASSERT_TRUE(pm.parsePipeline(pipeline, defaults).isOk());
          EXPECT_EQ(pm.str(), typed->pipeline);
          std::unique_ptr<Module> c = parseExample(example);
          DiagnosticEngine diag;
          ASSERT_TRUE(pm.run(*c, diag)) << diag.str();
          CodegenOptions co;
          Expected<LaunchPlan> p = lowerGraph(*c->graphs()[0], co);
          ASSERT_TRUE(p.hasValue()) << p.error();
          EXPECT_EQ(planToCudaText(*p), planToCudaText(typed->plan));
        }
      }
}

// The backend the text spells and the one the caller forces must agree.
TEST(GemmBackend, PipelineTextAndForcedBackendDisagreeIsAnError) {
  PassManager pm;
  Status s = pm.parsePipeline("fuse{gemm-backend=cublaslt}",
                              PipelineDefaults{GemmBackend::Generated});
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(),
            "fuse: gemm-backend=cublaslt but the FP8 GEMM backend is generated (--backend)");
  PassManager same;
  EXPECT_TRUE(same.parsePipeline("fuse{gemm-backend=generated}",
                                 PipelineDefaults{GemmBackend::Generated})
                  .isOk());
  EXPECT_EQ(same.str(), "fuse{gemm-backend=generated}");
}

TEST(GemmBackend, EveryFp8StepCarriesTheOption) {
  for (const char *example : {"linear", "mlp", "swiglu_mlp", "linear_residual"}) {
    std::unique_ptr<Module> m = parseExample(example);
    ASSERT_TRUE(m);
    for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"})
      for (GemmBackend b : {GemmBackend::Auto, GemmBackend::CublasLt, GemmBackend::Generated}) {
        CompiledGraph cg = plan(*m->graphs()[0], recipe, b);
        std::vector<const GemmStep *> gs = gemms(cg.plan);
        ASSERT_FALSE(gs.empty()) << example << " " << recipe;
        for (const GemmStep *g : gs) {
          // Auto: a row-scaled step with an activation or an amax in its epilogue, which only
          // the generated GEMM computes, runs on it; a dual GEMM's (b2) cuBLASLt form computes
          // its epilogue in launches, so auto keeps both.
          const bool generatedOnly =
              g->scaleMode == GemmScaleMode::OuterVector && g->b2 < 0 &&
              (g->amaxD >= 0 || (g->epilogue != GemmEpilogue::Bias &&
                                 g->epilogue != GemmEpilogue::Default));
          EXPECT_EQ(g->backend, b == GemmBackend::Auto && generatedOnly ? GemmBackend::Generated : b)
              << example << " " << recipe << " " << g->name;
        }
      }
  }
}

TEST(GemmBackend, Bf16GemmsStayOnCublasLt) {
  std::unique_ptr<Module> m = parseExample("mlp");
  ASSERT_TRUE(m);
  CompiledGraph cg = plan(*m->graphs()[0], "none", GemmBackend::Generated);
  std::vector<const GemmStep *> gs = gemms(cg.plan);
  ASSERT_EQ(gs.size(), 2u);
  for (const GemmStep *g : gs) {
    EXPECT_EQ(g->backend, GemmBackend::CublasLt) << g->name;
    Expected<GemmSm90Spec> k = gemmSm90KernelOf(*g, cg.plan);
    ASSERT_FALSE(k.hasValue());
    EXPECT_NE(k.error().find("GEMM '" + g->name + "'"), std::string::npos) << k.error();
    EXPECT_NE(k.error().find("bf16 x bf16; it takes FP8 operands only"), std::string::npos)
        << k.error();
  }
  EXPECT_EQ(planToCudaText(cg.plan).find("generated sm90 GEMM"), std::string::npos);
}

// What the generated GEMM is asked to do matches the step: dtypes, scales, bias, GELU (tanh,
// as cuBLASLt's), amaxD / scaleD, fast accumulation; every recipe's GEMMs are taken.
TEST(GemmBackend, StepsMapOntoTheGeneratedKernel) {
  std::unique_ptr<Module> m = parseExample("mlp");
  ASSERT_TRUE(m);
  std::set<GemmScaleMode> modes;
  for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
    CompiledGraph cg = plan(*m->graphs()[0], recipe, GemmBackend::Generated);
    std::vector<const GemmStep *> gs = gemms(cg.plan);
    ASSERT_EQ(gs.size(), 2u) << recipe;
    for (const GemmStep *g : gs) {
      Expected<GemmSm90Spec> k = gemmSm90KernelOf(*g, cg.plan);
      ASSERT_TRUE(k.hasValue()) << recipe << ": " << (k ? "" : k.error());
      EXPECT_EQ(k->aType, cg.plan.buffers[g->a].type.dtype());
      EXPECT_EQ(k->bType, cg.plan.buffers[g->b].type.dtype());
      EXPECT_EQ(k->dType, cg.plan.buffers[g->d].type.dtype());
      EXPECT_EQ(k->scaleMode, g->scaleMode);
      modes.insert(k->scaleMode);
      EXPECT_EQ(k->biasType.has_value(), g->bias >= 0);
      EXPECT_EQ(k->amaxD, g->amaxD >= 0);
      EXPECT_EQ(k->fastAccum, g->fastAccum);
      const bool gelu = g->epilogue == GemmEpilogue::Gelu ||
                        g->epilogue == GemmEpilogue::GeluBias ||
                        g->blockAct == Activation::GeluTanh;
      EXPECT_EQ(k->activation, gelu ? Activation::GeluTanh : Activation::None);
      EXPECT_EQ(k->blockCast, g->blockCast);
      if (isFloat8(k->dType) && !g->blockCast)
        EXPECT_GE(g->scaleD, 0) << recipe << ": an FP8 D needs its scale";
    }
    // delayed: GEMM 1 writes g in FP8 with scaleD and its amax (cuBLASLt's AMAX_D).
    if (std::string(recipe) == "delayed") {
      Expected<GemmSm90Spec> k = gemmSm90KernelOf(*gs[0], cg.plan);
      ASSERT_TRUE(k.hasValue());
      EXPECT_TRUE(isFloat8(k->dType));
      EXPECT_TRUE(k->amaxD);
      EXPECT_EQ(k->activation, Activation::GeluTanh);
    }
  }
  EXPECT_EQ(modes.size(), 3u) << "tensor, outer-vector and 128-block scales all exercised";
}

// Blockwise MLP: GEMM 1's GELU and the 1x128-block cast of g are the step's (blockCast): the
// generated kernel writes g's FP8 copy and the inverse scales GEMM 2 reads; auto keeps
// cuBLASLt's form (the bf16 result to epiD, then the launches) and the unfused form (the plain
// GEMM on the generated kernel into epiD, then the same launches); forced onto the generated
// GEMM there is neither; forced onto cuBLASLt nothing is fused.
TEST(GemmBackend, BlockwiseMlpCastsItsActivationInTheEpilogue) {
  std::unique_ptr<Module> m = parseExample("mlp");
  ASSERT_TRUE(m);
  {
    CompiledGraph cg = plan(*m->graphs()[0], "blockwise", GemmBackend::Auto);
    std::vector<const GemmStep *> gs = gemms(cg.plan);
    ASSERT_EQ(gs.size(), 2u);
    const GemmStep &g = *gs[0];
    ASSERT_TRUE(g.blockCast);
    EXPECT_EQ(g.blockAct, Activation::GeluTanh);
    EXPECT_EQ(g.epilogue, GemmEpilogue::Bias); // cuBLASLt's 128-block mode: bias alone
    EXPECT_TRUE(g.blockPow2);
    EXPECT_EQ(g.blockMargin, 0);
    EXPECT_EQ(cg.plan.buffers[g.d].name, "g_fp8");
    ASSERT_GE(g.blockInvOut, 0);
    EXPECT_EQ(g.blockInvOut, gs[1]->invScaleA) << "GEMM 2 reads the inverses GEMM 1 writes";
    ASSERT_GE(g.epiD, 0);
    EXPECT_EQ(cg.plan.buffers[g.epiD].type.dtype(), DType::BF16);
    EXPECT_FALSE(g.epiFallback.empty());
    EXPECT_EQ(g.scaleD, -1);
    Expected<GemmSm90Spec> k = gemmSm90KernelOf(g, cg.plan);
    ASSERT_TRUE(k.hasValue()) << k.error();
    EXPECT_TRUE(k->blockCast);
    EXPECT_EQ(k->dType, DType::F8E4M3FN);
    EXPECT_EQ(k->activation, Activation::GeluTanh);
    const GemmSm90Problem prob = gemmSm90ProblemOf(g, cg.plan, 37);
    EXPECT_EQ(prob.ldBlockInv, 40); // roundup(M, 4), the layout GEMM 2's A scales take
    EXPECT_EQ(prob.ldBlockScale, 112);
    EXPECT_TRUE(prob.castPow2);
    for (int64_t maxM : {16, 8192}) {
      Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(g, cg.plan, maxM, hopper());
      ASSERT_TRUE(ks.hasValue()) << ks.error();
      for (const GemmSm90Spec &t : *ks) {
        const int wn = t.schedule == GemmSchedule::PingPong || t.bm == 128 ? t.bn : t.bn / 2;
        EXPECT_EQ(wn % 128, 0) << t.name();
      }
    }
    std::optional<GemmStep> u = unfusedGemmOf(g);
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->d, g.epiD);
    EXPECT_EQ(u->name, g.name + "_unfused");
    Expected<GemmSm90Spec> uk = gemmSm90KernelOf(*u, cg.plan);
    ASSERT_TRUE(uk.hasValue()) << uk.error();
    EXPECT_FALSE(uk->blockCast);
    EXPECT_EQ(uk->dType, DType::BF16);
    EXPECT_EQ(uk->activation, Activation::None);
    EXPECT_TRUE(uk->biasType.has_value());
    EXPECT_FALSE(unfusedGemmOf(*gs[1]).has_value()) << "GEMM 2 has no fused epilogue";
  }
  {
    CompiledGraph cg = plan(*m->graphs()[0], "blockwise", GemmBackend::Generated);
    std::vector<const GemmStep *> gs = gemms(cg.plan);
    ASSERT_EQ(gs.size(), 2u);
    EXPECT_TRUE(gs[0]->blockCast);
    EXPECT_EQ(gs[0]->epiD, -1);
    EXPECT_TRUE(gs[0]->epiFallback.empty());
    EXPECT_FALSE(unfusedGemmOf(*gs[0]).has_value());
  }
  {
    CompiledGraph cg = plan(*m->graphs()[0], "blockwise", GemmBackend::CublasLt);
    for (const GemmStep *g : gemms(cg.plan))
      EXPECT_FALSE(g->blockCast) << g->name;
  }
}

// The tile configs compile() prepares: 64-row tiles for decode, 128 x 128 and 128 x 256
// (cooperative) or 128 x 128 ping-pong (K <= kGemmSm90PingPongMaxK) above; cooperative
// 128 x 128 and, with enough tiles, 128 x 192 where the kernel promotes (128-block scales);
// 64 x 256 and 128 x 128 with the 1x128-block cast. Each passes the host checks.
TEST(GemmBackend, TileConfigsCoverTheMRange) {
  std::unique_ptr<Module> m = parseExample("mlp");
  ASSERT_TRUE(m);
  for (const char *recipe : {"tensorwise", "blockwise"}) {
    CompiledGraph cg = plan(*m->graphs()[0], recipe, GemmBackend::Generated);
    for (const GemmStep *g : gemms(cg.plan)) {
      Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(*g, cg.plan, 8192, hopper());
      ASSERT_TRUE(ks.hasValue()) << (ks ? "" : ks.error());
      std::set<std::pair<int, int>> tiles;
      bool pingPong = false;
      for (const GemmSm90Spec &k : *ks) {
        EXPECT_TRUE(checkGemmSm90Spec(k).isOk()) << k.name();
        tiles.insert({k.bm, k.bn});
        pingPong |= k.schedule == GemmSchedule::PingPong;
      }
      // The 1x128-block cast takes whole 128-column blocks per warpgroup: 64 x 256 for decode,
      // 128 x 128 above.
      EXPECT_TRUE(tiles.count({64, g->blockCast ? 256 : 128})) << recipe << " " << g->name;
      if (g->blockCast) {
        EXPECT_EQ(tiles, (std::set<std::pair<int, int>>{{64, 256}, {128, 128}}));
        EXPECT_FALSE(pingPong) << g->name;
      } else if (std::string(recipe) == "blockwise") {
        EXPECT_EQ(tiles, (std::set<std::pair<int, int>>{{64, 128}, {128, 128}, {128, 192}}));
        EXPECT_FALSE(pingPong) << g->name;
      } else if (g->k <= kGemmSm90PingPongMaxK) {
        EXPECT_TRUE(pingPong) << g->name;
      } else {
        EXPECT_TRUE(tiles.count({128, 256})) << g->name;
      }
      // Every M's choice is among the prepared ones.
      Expected<GemmSm90Spec> base = gemmSm90KernelOf(*g, cg.plan);
      ASSERT_TRUE(base.hasValue());
      for (int64_t mm : {1, 37, 64, 65, 100, 257, 1000, 4097, 8191, 8192}) {
        GemmSm90Spec k = chooseGemmSm90Tiles(*base, gemmSm90ProblemOf(*g, cg.plan, mm), hopper());
        bool found = false;
        for (const GemmSm90Spec &p : *ks)
          found |= p.name() == k.name();
        EXPECT_TRUE(found) << k.name() << " at M = " << mm << " was not prepared";
      }
      Expected<std::vector<GemmSm90Spec>> small = gemmSm90KernelsFor(*g, cg.plan, 16, hopper());
      ASSERT_TRUE(small.hasValue());
      EXPECT_EQ(small->size(), 1u) << "M <= 16: the 64-row tile only";
    }
  }
}

TEST(GemmBackend, Block128PitchesAtOddM) {
  std::unique_ptr<Module> m = parseExample("linear");
  ASSERT_TRUE(m);
  CompiledGraph cg = plan(*m->graphs()[0], "blockwise", GemmBackend::Generated);
  std::vector<const GemmStep *> gs = gemms(cg.plan);
  ASSERT_EQ(gs.size(), 1u);
  GemmSm90Problem p = gemmSm90ProblemOf(*gs[0], cg.plan, 37);
  EXPECT_EQ(p.m, 37);
  EXPECT_EQ(p.n, 14336);
  EXPECT_EQ(p.k, 4096);
  EXPECT_EQ(p.ldsa, 40) << "the A scales' pitch is M rounded up to 4";
  EXPECT_EQ(p.ldsb, 32) << "ceil(4096 / 128) = 32 K blocks";
  GemmSm90Spec k = chooseGemmSm90Tiles(*gemmSm90KernelOf(*gs[0], cg.plan), p, hopper());
  EXPECT_TRUE(checkGemmSm90(k, p).isOk()) << checkGemmSm90(k, p).message();
}

// A step the generated kernel cannot take names the GEMM and says why.
TEST(GemmBackend, UnsupportedDtypePairNamesTheGemm) {
  LaunchPlan p;
  auto buf = [&](const std::string &name, std::vector<int64_t> shape, DType t) {
    BufferDesc d;
    d.name = name;
    d.type = TensorType(shape, t);
    p.buffers.push_back(d);
    return static_cast<int>(p.buffers.size() - 1);
  };
  GemmStep g;
  g.name = "k0_gemm";
  g.description = "fp8.scaled_matmul %y";
  g.a = buf("a", {64, 128}, DType::F8E5M2);
  g.b = buf("b", {128, 128}, DType::F8E5M2);
  g.d = buf("y", {64, 128}, DType::BF16);
  g.invScaleA = buf("sa", {}, DType::F32);
  g.invScaleB = buf("sb", {}, DType::F32);
  g.m = {0, 64};
  g.n = 128;
  g.k = 128;
  Expected<GemmSm90Spec> k = gemmSm90KernelOf(g, p);
  ASSERT_FALSE(k.hasValue());
  EXPECT_EQ(k.error(), "GEMM 'k0_gemm' (fp8.scaled_matmul %y) cannot run on the generated sm90 "
                       "GEMM: e5m2 x e5m2 operands are not supported; quantize one side to e4m3");
  // An unpadded FP8 operand pitch (K = 100: not a multiple of 16 bytes) is refused too.
  p.buffers[g.a].type = TensorType({64, 100}, DType::F8E4M3FN);
  p.buffers[g.b].type = TensorType({128, 100}, DType::F8E4M3FN);
  g.k = 100;
  Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(g, p, 64, hopper());
  ASSERT_FALSE(ks.hasValue());
  EXPECT_NE(ks.error().find("GEMM 'k0_gemm'"), std::string::npos) << ks.error();
  EXPECT_NE(ks.error().find("multiples of 16 bytes"), std::string::npos) << ks.error();
}

} // namespace
} // namespace fp8c
