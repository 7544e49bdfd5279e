// Unit tests of the lowering of fused graphs to LaunchPlans (codegen/Lowering.h): buffers and
// their roles, which steps run at load, the cuBLASLt steps and what their epilogues take,
// inverse-scale layouts, padded pitches for any K and N with a dynamic M, entry points and
// argument counts, and determinism (the delayed recipe's state updates: CodegenStateTest.cpp).
// No GPU and no NVRTC needed.
#include "codegen/Lowering.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

#include "unit/codegen/CodegenLoweringSupport.h"
#include "unit/runtime/TransposedOperands.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fp8c {
namespace {

using namespace loweringtest;

TEST(CodegenLowering, LinearTensorwiseBuffersAndSteps) {
  Lowered l = lower(readExample("linear"), pipeline("tensorwise"));
  const LaunchPlan &p = l.plan;
  EXPECT_EQ(p.graphName, "linear");
  EXPECT_EQ(p.buffers[find(p, "x")].role, BufferRole::Input);
  EXPECT_EQ(p.buffers[find(p, "w")].role, BufferRole::Input);
  EXPECT_EQ(p.buffers[find(p, "y")].role, BufferRole::Output);
  EXPECT_EQ(p.buffers[find(p, "y")].graphIndex, 0);
  EXPECT_TRUE(p.loadSteps.empty());
  auto ls = launches(p.steps);
  auto gs = gemms(p.steps);
  // amax + scale + cast of x, then of w: each one cooperative launch (a grid barrier between
  // the amax and the cast), so x is not read by a separate amax launch first.
  ASSERT_EQ(ls.size(), 2u);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(ls[0]->entry, "fp8c_linear_k0_quantize");
  EXPECT_EQ(ls[1]->entry, "fp8c_linear_k1_quantize");
  int scratch = 0;
  for (const BufferDesc &d : p.buffers) {
    EXPECT_FALSE(d.zeroInit) << "%" << d.name;
    scratch += d.role == BufferRole::Scratch;
  }
  EXPECT_EQ(scratch, 4); // per cast: its amax and its barrier's {arrived, left}
  for (const GeneratedLaunch *gl : ls) {
    EXPECT_TRUE(gl->grid.cooperative) << gl->entry;
    // The amax and the barrier's counters are Scratch the launch puts back to zero: no buffer
    // of the plan is cleared on every run.
    EXPECT_NE(gl->source.find("static constexpr bool kResetAmax = true;"), std::string::npos)
        << gl->source;
    EXPECT_EQ(std::count(gl->buffers.begin(), gl->buffers.end(), find(p, "x")),
              gl == ls[0] ? 1 : 0)
        << gl->entry;
  }
  const GemmStep &g = *gs[0];
  EXPECT_EQ(g.a, find(p, "x_fp8"));
  EXPECT_EQ(g.b, find(p, "w_fp8"));
  EXPECT_EQ(g.d, find(p, "y"));
  EXPECT_EQ(g.bias, find(p, "b"));
  EXPECT_EQ(g.invScaleA, find(p, "x_scale.inv"));
  EXPECT_EQ(g.invScaleB, find(p, "w_scale.inv"));
  EXPECT_EQ(g.scaleMode, GemmScaleMode::Tensor);
  EXPECT_EQ(g.epilogue, GemmEpilogue::Bias);
  EXPECT_TRUE(g.fastAccum);
  EXPECT_EQ(g.m.perM, 1);
  EXPECT_EQ(g.n, 14336);
  EXPECT_EQ(g.k, 4096);
  // Every launch takes {buffers[N], m} with N its buffer count, and needs --fmad=false.
  for (const GeneratedLaunch *gl : ls) {
    EXPECT_NE(gl->source.find("extern \"C\" __global__ void __launch_bounds__(256) " + gl->entry +
                              "(fp8c::Args<" + std::to_string(gl->buffers.size()) + "> args)"),
              std::string::npos)
        << gl->source;
    EXPECT_EQ(gl->nvrtcOptions, std::vector<std::string>{"--fmad=false"});
    EXPECT_EQ(gl->blockThreads, 256);
  }
}

TEST(CodegenLowering, StaticWeightsRunAtLoad) {
  Lowered l = lower(readExample("linear"), pipeline("tensorwise", "static"));
  const LaunchPlan &p = l.plan;
  EXPECT_EQ(p.buffers[find(p, "w")].role, BufferRole::Param);
  EXPECT_EQ(p.buffers[find(p, "w_fp8")].role, BufferRole::Constant);
  EXPECT_EQ(p.buffers[find(p, "w_scale.inv")].role, BufferRole::Constant);
  auto load = launches(p.loadSteps);
  ASSERT_EQ(load.size(), 1u);
  EXPECT_EQ(load[0]->entry, "fp8c_linear_k1_quantize");
  for (const GeneratedLaunch *gl : launches(p.steps))
    for (int b : gl->buffers)
      EXPECT_NE(b, find(p, "w")) << gl->entry << " reads the parameter on every call";
}

TEST(CodegenLowering, RowwiseOuterVectorScales) {
  Lowered l = lower(readExample("mlp"), pipeline("rowwise"));
  const LaunchPlan &p = l.plan;
  auto gs = gemms(p.steps);
  ASSERT_EQ(gs.size(), 2u);
  for (const GemmStep *g : gs) {
    EXPECT_EQ(g->scaleMode, GemmScaleMode::OuterVector);
    EXPECT_EQ(p.buffers[g->invScaleA].type.shape(), (std::vector<int64_t>{kDynamic}));
    EXPECT_EQ(p.buffers[g->invScaleB].type.rank(), 1);
  }
  // GEMM 1 takes GELU and the row amax of g in its epilogue, which only the generated GEMM
  // computes (cuBLASLt's outer-vector scales take nothing but a bias): that step runs on it.
  EXPECT_EQ(gs[0]->epilogue, GemmEpilogue::GeluBias);
  EXPECT_EQ(gs[0]->amaxD, find(p, "g_amax"));
  EXPECT_TRUE(gs[0]->amaxRows);
  EXPECT_TRUE(p.buffers[gs[0]->amaxD].zeroInit);
  EXPECT_EQ(gs[0]->backend, GemmBackend::Generated);
  EXPECT_EQ(gs[1]->epilogue, GemmEpilogue::Bias);
  EXPECT_EQ(gs[1]->amaxD, -1);
  EXPECT_EQ(gs[1]->backend, GemmBackend::Auto);
  for (const GeneratedLaunch *gl : launches(p.steps))
    EXPECT_NE(gl->entry, "fp8c_mlp_k3_epilogue");
  // Lowered for Ada (no generated GEMM), GELU and the row amax of g are the generated epilogue
  // launch after cuBLASLt's GEMM 1.
  Lowered ada = lower(readExample("mlp"), pipeline("rowwise"), "sm_89");
  auto ga = gemms(ada.plan.steps);
  ASSERT_EQ(ga.size(), 2u);
  EXPECT_EQ(ga[0]->epilogue, GemmEpilogue::Bias);
  EXPECT_EQ(ga[0]->amaxD, -1);
  bool found = false;
  for (const GeneratedLaunch *gl : launches(ada.plan.steps))
    if (gl->entry == "fp8c_mlp_k3_epilogue") {
      found = true;
      EXPECT_NE(gl->source.find("fp8c::op::geluTanh"), std::string::npos);
      EXPECT_NE(gl->source.find("fp8c::Gran::Row"), std::string::npos);
    }
  EXPECT_TRUE(found);
}

TEST(CodegenLowering, BlockwiseScaleLayouts) {
  Lowered l = lower(readExample("swiglu_mlp"), pipeline("blockwise"));
  const LaunchPlan &p = l.plan;
  auto gs = gemms(p.steps);
  ASSERT_EQ(gs.size(), 3u); // gate, up (dual GEMM), down
  for (const GemmStep *g : gs) {
    EXPECT_EQ(g->scaleMode, GemmScaleMode::Block128);
    EXPECT_FALSE(g->fastAccum);
    const BufferDesc &ia = p.buffers[g->invScaleA], &ib = p.buffers[g->invScaleB];
    EXPECT_EQ(ia.ldAlignM, 4); // [K/128, M], M contiguous, pitch roundup(M, 4)
    EXPECT_TRUE(ia.type.isDynamicDim(1));
    EXPECT_EQ(ib.ld % 4, 0); // [N/128, K/128], pitch roundup(K/128, 4)
  }
  EXPECT_EQ(p.buffers[gs[0]->invScaleA].pitch(5), 8);
  EXPECT_EQ(p.buffers[gs[0]->invScaleA].bytes(5), 32 * 8 * 4);
}

TEST(CodegenLowering, AnyKAndNWithDynamicM) {
  const std::string text =
      "func.func @odd(%x: tensor<?x100xbf16>, %w: tensor<100x100xbf16>, %b: tensor<100xbf16>) -> "
      "tensor<?x100xbf16> {\n"
      "  %y = fp8.linear %x, %w, %b : (tensor<?x100xbf16>, tensor<100x100xbf16>, tensor<100xbf16>) "
      "-> tensor<?x100xbf16>\n"
      "  return %y : tensor<?x100xbf16>\n}\n";
  for (std::string recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
    SCOPED_TRACE(recipe);
    Lowered l = lower(text, pipeline(recipe));
    const LaunchPlan &p = l.plan;
    auto gs = gemms(p.steps);
    ASSERT_EQ(gs.size(), 1u);
    const GemmStep &g = *gs[0];
    EXPECT_EQ(g.k, 100);
    EXPECT_FALSE(g.kPadsZero); // (FP8: K goes up to 16 at run time anyway)
    EXPECT_EQ(p.buffers[g.a].ld, 112); // FP8 rows padded to 16 bytes (zeros in the pad)
    EXPECT_EQ(p.buffers[g.b].ld, 112);
    EXPECT_EQ(p.buffers[g.d].ld, 104); // bf16 D rows padded to 16 bytes
    EXPECT_EQ(p.buffers[g.d].name, "y.padded");
    // 128-block scales: cuBLASLt runs at M rounded up to 4, so internal A and D have pad rows.
    const int64_t rows3 = recipe == "blockwise" ? 4 : 3;
    EXPECT_EQ(p.buffers[g.d].bytes(3), rows3 * 104 * 2);
    EXPECT_EQ(p.buffers[g.a].bytes(3), rows3 * 112);
    EXPECT_EQ(g.aPadded, -1); // A and D are internal here: no copies
    EXPECT_EQ(g.dPadded, -1);
    // rowwise + bias: a launch adds the bias where cuBLASLt has no outer-vector algorithm.
    ASSERT_EQ(g.biasFallback.size(), recipe == "rowwise" ? 1u : 0u);
    if (recipe == "rowwise") {
      EXPECT_EQ(g.biasFallback[0].buffers.size(), 2u); // D (in place) and the bias
      EXPECT_NE(g.biasFallback[0].source.find("fp8c::op::add(x[0], x[1])"), std::string::npos);
    }
    // ... and copied into the caller's compact output after the GEMM.
    const int y = find(p, "y");
    EXPECT_EQ(p.buffers[y].role, BufferRole::Output);
    EXPECT_EQ(p.buffers[y].ld, 0);
    bool copied = false;
    for (size_t s = 0; s < p.steps.size(); ++s)
      if (const auto *gl = std::get_if<GeneratedLaunch>(&p.steps[s]))
        if (gl->buffers.size() == 2 && gl->buffers[0] == g.d && gl->buffers[1] == y) {
          copied = true;
          // Rows of 200 bytes: the flat copy in 16-byte chunks.
          EXPECT_NE(gl->source.find("fp8c::compactCopyKernel<Spec>"), std::string::npos);
        }
    EXPECT_TRUE(copied);
  }
  // Unquantized: the bf16 operands are copied into padded temporaries first, whose zero pad
  // columns let cuBLASLt run K = 104, and the weight's and bias's copies have 104 rows
  // (elements), zeros after the 100th, so that it runs N = 104 too.
  Lowered l = lower(text, pipeline(""));
  auto gs = gemms(l.plan.steps);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(l.plan.buffers[gs[0]->a].name, "x.padded");
  EXPECT_EQ(l.plan.buffers[gs[0]->a].ld, 104);
  EXPECT_EQ(l.plan.buffers[gs[0]->b].ld, 104);
  EXPECT_EQ(gs[0]->invScaleA, -1);
  EXPECT_TRUE(gs[0]->kPadsZero);
  EXPECT_EQ(gs[0]->nPadded, 104);
  const BufferDesc &wp = l.plan.buffers[gs[0]->b];
  EXPECT_EQ(wp.name, "w.padded");
  EXPECT_EQ(wp.type.dim(0), 104);
  EXPECT_TRUE(wp.zeroInit) << "rows 100..103 of the weight's copy must be zero";
  EXPECT_EQ(l.plan.buffers[gs[0]->bias].name, "b.padded");
  EXPECT_EQ(l.plan.buffers[gs[0]->bias].type.dim(0), 104);
  EXPECT_GE(l.plan.buffers[gs[0]->d].ld, 104);
}

// FP8 with an N cuBLASLt refuses (not a multiple of 16): tensor scales and a plain epilogue copy
// the FP8 weight and the bias with N rounded up to 16 where D's pitch holds it; row and block
// scales do not.
TEST(CodegenLowering, Fp8OddNRoundsUpWithEveryScaleMode) {
  const std::string text =
      "func.func @f(%x: tensor<?x4101xbf16>, %w: tensor<3001x4101xbf16>, %b: tensor<3001xbf16>) "
      "-> tensor<?x3001xbf16> {\n"
      "  %y = fp8.linear %x, %w, %b : (tensor<?x4101xbf16>, tensor<3001x4101xbf16>, "
      "tensor<3001xbf16>) -> tensor<?x3001xbf16>\n"
      "  return %y : tensor<?x3001xbf16>\n}\n";
  for (std::string recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
    SCOPED_TRACE(recipe);
    Lowered l = lower(text, pipeline(recipe));
    auto gs = gemms(l.plan.steps);
    ASSERT_EQ(gs.size(), 1u);
    EXPECT_EQ(gs[0]->nPadded, 3008);
    EXPECT_FALSE(gs[0]->kPadsZero); // FP8: K goes up to 16 anyway
    const BufferDesc &wp = l.plan.buffers[gs[0]->b];
    EXPECT_EQ(wp.name, "w_fp8.padded");
    EXPECT_EQ(wp.type.dim(0), 3008);
    EXPECT_EQ(wp.ld, 4112);
    EXPECT_TRUE(wp.zeroInit);
    EXPECT_EQ(l.plan.buffers[gs[0]->bias].type.dim(0), 3008);
    EXPECT_EQ(l.plan.buffers[gs[0]->d].ld, 3008);
    const BufferDesc &sb = l.plan.buffers[gs[0]->invScaleB];
    if (recipe == "rowwise") {
      // cuBLASLt reads 3008 column scales: zeros after the 3001 the quantize launch writes.
      EXPECT_EQ(sb.type.dim(0), 3008);
      EXPECT_TRUE(sb.zeroInit);
    } else if (recipe == "blockwise") {
      EXPECT_EQ(sb.type.dim(0), 24); // ceil(3008 / 128) = ceil(3001 / 128) blocks of rows
    }
  }
  // Forced onto the generated GEMM (no cuBLASLt): nothing to pad.
  Lowered g = lower(text, pipeline("tensorwise"), "sm_90a", GemmBackend::Generated);
  ASSERT_EQ(gemms(g.plan.steps).size(), 1u);
  EXPECT_EQ(gemms(g.plan.steps)[0]->nPadded, 0);
}

// K rounded up only over pad columns known to be zero: K-major padded copies on both sides.
TEST(CodegenLowering, UnquantizedOddKRoundsUpOnlyOverPaddedCopies) {
  // K = 104 already a multiple of 8: nothing to round.
  Lowered aligned = lower(
      "func.func @f(%x: tensor<?x104xbf16>, %w: tensor<64x104xbf16>) -> tensor<?x64xbf16> {\n"
      "  %y = fp8.linear %x, %w : (tensor<?x104xbf16>, tensor<64x104xbf16>) -> tensor<?x64xbf16>\n"
      "  return %y : tensor<?x64xbf16>\n}\n",
      pipeline(""));
  ASSERT_EQ(gemms(aligned.plan.steps).size(), 1u);
  EXPECT_FALSE(gemms(aligned.plan.steps)[0]->kPadsZero);
  EXPECT_EQ(gemms(aligned.plan.steps)[0]->nPadded, 0); // N = 64
  // Operands read in place as transposes (K is not their contiguous dim), or written by a
  // transpose launch rather than copied (K = 300 and 96 here): no rounding.
  Lowered t = lower(testgraphs::kTransposedOperands, "shape-infer,fuse,dce");
  ASSERT_EQ(gemms(t.plan.steps).size(), 4u);
  for (const GemmStep *g : gemms(t.plan.steps))
    EXPECT_FALSE(g->kPadsZero) << g->name;
}

TEST(CodegenLowering, UnquantizedMlpTakesGeluInCublas) {
  Lowered l = lower(readExample("mlp"), pipeline(""));
  auto gs = gemms(l.plan.steps);
  ASSERT_EQ(gs.size(), 2u);
  EXPECT_TRUE(launches(l.plan.steps).empty());
  EXPECT_EQ(gs[0]->epilogue, GemmEpilogue::GeluBias);
  EXPECT_EQ(gs[1]->epilogue, GemmEpilogue::Bias);
  EXPECT_EQ(gs[1]->a, gs[0]->d);
}

TEST(CodegenLowering, Deterministic) {
  for (std::string recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
    Lowered a = lower(readExample("swiglu_mlp"), pipeline(recipe));
    Lowered b = lower(readExample("swiglu_mlp"), pipeline(recipe));
    EXPECT_EQ(planToCudaText(a.plan), planToCudaText(b.plan)) << recipe;
    // Entry names are fp8c_<graph>_k<kernel>_<kind> and unique.
    std::set<std::string> names;
    for (const GeneratedLaunch *gl : launches(a.plan.steps)) {
      EXPECT_TRUE(std::regex_match(gl->entry, std::regex("fp8c_swiglu_mlp_k[0-9]+_[a-z_0-9]+")))
          << gl->entry;
      EXPECT_TRUE(names.insert(gl->entry).second) << gl->entry;
      EXPECT_EQ(gl->kernelName, gl->entry);
    }
  }
}

TEST(CodegenLowering, NeedsAFusedGraph) {
  DiagnosticEngine diag;
  auto m = parseModule(readExample("linear"), "linear.mlir", diag);
  ASSERT_TRUE(m);
  Expected<LaunchPlan> p = lowerGraph(*m->graphs()[0], {});
  ASSERT_FALSE(p.hasValue());
  EXPECT_NE(p.error().find("linear.mlir:3:"), std::string::npos) << p.error();
  EXPECT_NE(p.error().find("run `fuse` first"), std::string::npos) << p.error();
  CodegenOptions bad;
  bad.arch = "sm_70";
  EXPECT_FALSE(lowerGraph(*m->graphs()[0], bad).hasValue());
}

TEST(CodegenLowering, BiasCublasCannotTakeIsALaunch) {
  const std::string text =
      "func.func @g(%a: tensor<?x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %sa: tensor<f32>, %sb: "
      "tensor<f32>, %bias: tensor<32xf32>) -> tensor<?x32xf32> {\n"
      "  %y = fp8.scaled_matmul %a, %b, %sa, %sb, %bias {out = f32} : (tensor<?x64xf8E4M3FN>, "
      "tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<32xf32>) -> tensor<?x32xf32>\n"
      "  return %y : tensor<?x32xf32>\n}\n";
  Lowered l = lower(text, "shape-infer,fuse,dce");
  const LaunchPlan &p = l.plan;
  auto gs = gemms(p.steps);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(gs[0]->bias, -1); // an f32 bias with f32 D: cuBLASLt wants bf16
  EXPECT_EQ(gs[0]->epilogue, GemmEpilogue::Default);
  EXPECT_EQ(gs[0]->d, find(p, "y.acc"));
  // The scales are graph inputs: launches invert them for cuBLASLt first.
  EXPECT_EQ(gs[0]->invScaleA, find(p, "sa.inv"));
  auto ls = launches(p.steps);
  ASSERT_FALSE(ls.empty());
  EXPECT_EQ(ls.back()->entry, "fp8c_g_k0_bias");
  EXPECT_EQ(ls.back()->buffers,
            (std::vector<int>{find(p, "y.acc"), find(p, "bias"), find(p, "y")}));
}

TEST(CodegenLowering, BlockGridOfDynamicRows) {
  const std::string text =
      "func.func @q(%x: tensor<?x200xbf16>) -> (tensor<?x2xf32>, tensor<?x200xf8E4M3FN>) {\n"
      "  %a = fp8.amax %x {granularity = \"block_128x128\"} : (tensor<?x200xbf16>) -> "
      "tensor<?x2xf32>\n"
      "  %s = fp8.scale %a {dtype = f8E4M3FN} : (tensor<?x2xf32>) -> tensor<?x2xf32>\n"
      "  %q = fp8.cast %x, %s {granularity = \"block_128x128\"} : (tensor<?x200xbf16>, "
      "tensor<?x2xf32>) -> tensor<?x200xf8E4M3FN>\n"
      "  return %s, %q : tensor<?x2xf32>, tensor<?x200xf8E4M3FN>\n}\n";
  Lowered l = lower(text, "shape-infer,fuse,dce");
  const BufferDesc &s = l.plan.buffers[find(l.plan, "s")];
  EXPECT_EQ(s.mDivisor, 128); // ceil(M/128) rows of scales
  EXPECT_EQ(s.bytes(300), 3 * 2 * 4);
  EXPECT_EQ(l.plan.buffers[find(l.plan, "q")].mDivisor, 1);
}

TEST(CodegenLowering, BufferBytes) {
  BufferDesc d;
  d.type = TensorType({kDynamic, 100}, DType::F8E4M3FN);
  EXPECT_EQ(d.bytes(7), 700);
  d.ld = 112;
  EXPECT_EQ(d.pitch(7), 112);
  EXPECT_EQ(d.bytes(7), 784);
  // Rank > 2: the [prod(leading dims), K] matrix of a GEMM operand, its rows at the pitch.
  BufferDesc d3;
  d3.type = TensorType({kDynamic, 3, 100}, DType::F8E4M3FN);
  EXPECT_EQ(d3.bytes(7), 2100);
  d3.ld = 112;
  EXPECT_EQ(d3.pitch(7), 112);
  EXPECT_EQ(d3.bytes(7), 7 * 3 * 112);
  BufferDesc t;
  t.type = TensorType({1000, kDynamic}, DType::BF16);
  EXPECT_EQ(t.bytes(3), 6000);
  t.ldAlignM = 16;
  EXPECT_EQ(t.bytes(3), 1000 * 16 * 2);
  BufferDesc s;
  s.type = TensorType({}, DType::F32);
  EXPECT_EQ(s.bytes(0), 4);
}

// cuBLASLt's 128-block scale mode needs M % 4 == 0 (fp8c-cublaslt-support on H200): a GEMM
// whose A and D the caller owns gets padded copies the runtime uses at other M.
TEST(CodegenLowering, BlockScaledGemmOnCallerBuffersGetsRowPaddedCopies) {
  const std::string text =
      "func.func @g(%a: tensor<?x256xf8E4M3FN>, %b: tensor<256x256xf8E4M3FN>, "
      "%sa: tensor<?x2xf32>, %sb: tensor<2x2xf32>) -> tensor<?x256xf32> {\n"
      "  %y = fp8.scaled_matmul %a, %b, %sa, %sb {out = f32} : (tensor<?x256xf8E4M3FN>, "
      "tensor<256x256xf8E4M3FN>, tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x256xf32>\n"
      "  return %y : tensor<?x256xf32>\n}\n";
  Lowered l = lower(text, "shape-infer,fuse,dce");
  auto gs = gemms(l.plan.steps);
  ASSERT_EQ(gs.size(), 1u);
  const GemmStep &g = *gs[0];
  EXPECT_EQ(g.scaleMode, GemmScaleMode::Block128);
  ASSERT_GE(g.aPadded, 0);
  ASSERT_GE(g.dPadded, 0);
  const BufferDesc &a = l.plan.buffers[g.aPadded], &d = l.plan.buffers[g.dPadded];
  EXPECT_EQ(a.role, BufferRole::Temp);
  EXPECT_EQ(a.bytes(37), 40 * 256);     // 37 rows rounded up to 40
  EXPECT_EQ(d.bytes(37), 40 * 256 * 4); // f32 D
  EXPECT_EQ(l.plan.buffers[g.a].role, BufferRole::Input);
  EXPECT_EQ(l.plan.buffers[g.d].bytes(37), 37 * 256 * 4); // the caller's D is not padded
  EXPECT_TRUE(g.biasFallback.empty());
}

TEST(CodegenLowering, UnquantizedGemmsReadTransposedOperandsInPlace) {
  // No CSE: %xt, %xt2 and %xt3 stay three transposes, one per use.
  Lowered l = lower(testgraphs::kTransposedOperands, "shape-infer,fuse,dce");
  auto gs = gemms(l.plan.steps);
  ASSERT_EQ(gs.size(), 4u);
  const int x = find(l.plan, "x"), d = find(l.plan, "d"), w = find(l.plan, "w");
  // y = x^T d: both operands read in place.
  EXPECT_EQ(gs[0]->a, x);
  EXPECT_EQ(gs[0]->b, d);
  EXPECT_FALSE(gs[0]->aKMajor);
  EXPECT_FALSE(gs[0]->bKMajor);
  EXPECT_EQ(gs[0]->m.fixed, 64);
  EXPECT_EQ(gs[0]->n, 96);
  EXPECT_EQ(gs[0]->k, 300);
  // z = x^T d as a matmul: B is [K, N] as given.
  EXPECT_EQ(gs[1]->a, x);
  EXPECT_FALSE(gs[1]->aKMajor);
  EXPECT_FALSE(gs[1]->bKMajor);
  EXPECT_EQ(gs[1]->n, 96);
  // u = z w^T: the transposed weight is K-major as stored.
  EXPECT_EQ(gs[2]->b, w);
  EXPECT_TRUE(gs[2]->aKMajor);
  EXPECT_TRUE(gs[2]->bKMajor);
  EXPECT_EQ(gs[2]->n, 300);
  EXPECT_EQ(gs[2]->k, 96);
  // %xt3 is also returned: one transpose launch writes it (300 bf16 columns: a pitch padded
  // to 304, copied out to the caller's buffer) and the GEMM reads that.
  EXPECT_EQ(gs[3]->a, find(l.plan, "xt3.padded"));
  EXPECT_TRUE(gs[3]->aKMajor);
  int transposes = 0;
  for (const GeneratedLaunch *g : launches(l.plan.steps))
    transposes += g->kernelName.find("transpose") != std::string::npos;
  EXPECT_EQ(transposes, 1);
}

// An FP8 GEMM never reads a transposed operand in place (Hopper's FP8 GEMMs are TN only): the
// quantized transposes stay cast-transposes.
TEST(CodegenLowering, Fp8GemmsKeepKMajorOperands) {
  Lowered l = lower(testgraphs::kTransposedOperands, pipeline("tensorwise"));
  for (const GemmStep *g : gemms(l.plan.steps)) {
    EXPECT_TRUE(g->aKMajor) << g->name;
    EXPECT_TRUE(g->bKMajor) << g->name;
  }
}

} // namespace
} // namespace fp8c

namespace fp8c {
namespace {

// A blockwise two-layer MLP whose hidden activation is `act` (an op line, or "" for none), and
// that also returns it when `returnHidden`.
std::string blockMlp(const std::string &act, bool returnHidden) {
  std::string t = "func.func @f(%x: tensor<?x256xbf16>, %w1: tensor<384x256xbf16>, "
                  "%w2: tensor<256x384xbf16>) -> ";
  t += returnHidden ? "(tensor<?x256xbf16>, tensor<?x384xbf16>) {\n" : "tensor<?x256xbf16> {\n";
  t += "  %h = fp8.linear %x, %w1 : (tensor<?x256xbf16>, tensor<384x256xbf16>) -> "
       "tensor<?x384xbf16>\n";
  const std::string a = act.empty() ? "%h" : "%a";
  if (!act.empty())
    t += "  %a = " + act + " %h : (tensor<?x384xbf16>) -> tensor<?x384xbf16>\n";
  t += "  %y = fp8.linear " + a + ", %w2 : (tensor<?x384xbf16>, tensor<256x384xbf16>) -> "
       "tensor<?x256xbf16>\n";
  t += returnHidden ? "  return %y, " + a + " : tensor<?x256xbf16>, tensor<?x384xbf16>\n}\n"
                    : "  return %y : tensor<?x256xbf16>\n}\n";
  return t;
}

// The 1x128-block cast of a blockwise GEMM's (activated) result joins the GEMM step for the
// generated GEMM (sm_90a, backend auto or generated) with any epilogue activation, or none;
// not on another arch, with --backend=cublaslt, or where the activation is also returned (it is
// then written in bf16 anyway, and the launch that writes it casts it).
TEST(CodegenLowering, BlockwiseHiddenCastJoinsTheGemmStep) {
  const std::vector<std::pair<std::string, Activation>> acts{
      {"", Activation::None},
      {"fp8.relu", Activation::Relu},
      {"fp8.silu", Activation::Silu},
      {"fp8.gelu", Activation::GeluErf},
  };
  for (const auto &[act, want] : acts) {
    SCOPED_TRACE(act.empty() ? "no activation" : act);
    Lowered l = lower(blockMlp(act, false), pipeline("blockwise"));
    std::vector<const GemmStep *> gs = gemms(l.plan.steps);
    ASSERT_EQ(gs.size(), 2u);
    EXPECT_TRUE(gs[0]->blockCast);
    EXPECT_EQ(gs[0]->blockAct, want);
    EXPECT_EQ(gs[0]->epilogue, GemmEpilogue::Default);
    EXPECT_TRUE(isFloat8(l.plan.buffers[gs[0]->d].type.dtype()));
    EXPECT_EQ(gs[0]->blockInvOut, gs[1]->invScaleA);
    EXPECT_GE(gs[0]->epiD, 0);
    EXPECT_FALSE(gs[0]->epiFallback.empty());
    EXPECT_FALSE(gs[1]->blockCast);
    // No launch between the two GEMMs: the cast is the step's.
    size_t first = 0, second = 0;
    for (size_t i = 0; i < l.plan.steps.size(); ++i)
      if (std::holds_alternative<GemmStep>(l.plan.steps[i]))
        (first ? second : first) = i + 1;
    EXPECT_EQ(second, first + 1);
    Lowered lt = lower(blockMlp(act, false), pipeline("blockwise"), "sm_90a", GemmBackend::CublasLt);
    for (const GemmStep *g : gemms(lt.plan.steps))
      EXPECT_FALSE(g->blockCast);
    Lowered ada = lower(blockMlp(act, false), pipeline("blockwise"), "sm_89");
    for (const GemmStep *g : gemms(ada.plan.steps))
      EXPECT_FALSE(g->blockCast);
    Lowered returned = lower(blockMlp(act, true), pipeline("blockwise"));
    for (const GemmStep *g : gemms(returned.plan.steps))
      EXPECT_FALSE(g->blockCast);
  }
}

} // namespace
} // namespace fp8c
