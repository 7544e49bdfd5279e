// Lowering of delayed scaling's state updates (codegen/Lowering.cpp): the histories are state
// buffers updated in place, by a state launch at the end of the run, or, where every amax comes
// from a one-pass rows launch or a GEMM's epilogue, by those steps (Lowerer::foldHistoryPushes).
// No GPU and no NVRTC needed.
#include "unit/codegen/CodegenLoweringSupport.h"

#include <gtest/gtest.h>

namespace fp8c {
namespace {

using namespace loweringtest;

TEST(CodegenLowering, DelayedMlpStateAndCublasEpilogue) {
  Lowered l = lower(readExample("mlp"), pipeline("delayed"));
  const LaunchPlan &p = l.plan;
  const int hx = find(p, "x_amax_history");
  EXPECT_EQ(p.buffers[hx].role, BufferRole::State);
  EXPECT_EQ(p.buffers[hx].graphIndex, 5);
  EXPECT_EQ(p.buffers[hx].outputIndex, 1);
  auto gs = gemms(p.steps);
  ASSERT_EQ(gs.size(), 2u);
  // GEMM 1 takes bias + GELU, the amax of g and its FP8 cast with the history's scale.
  EXPECT_EQ(gs[0]->epilogue, GemmEpilogue::GeluBias);
  EXPECT_EQ(gs[0]->amaxD, find(p, "g_amax"));
  EXPECT_EQ(gs[0]->scaleD, find(p, "g_scale"));
  EXPECT_EQ(gs[0]->d, find(p, "g_fp8"));
  EXPECT_EQ(gs[1]->a, find(p, "g_fp8"));
  EXPECT_EQ(gs[1]->invScaleA, find(p, "g_scale.inv"));
  // No state launch: GEMM 1 pushes g's amax into its history (the generated GEMM's last block;
  // after cuBLASLt, its pushFallback launch, which rounds cuBLASLt's amax to bf16 as the state
  // launch did), and the casts of x, w1 and w2 push theirs. g's amax is the GEMM's own, so it is
  // Scratch that the push puts back to zero (no memset per run).
  for (const GeneratedLaunch *gl : launches(p.steps))
    EXPECT_EQ(gl->entry.find("_state"), std::string::npos) << gl->entry;
  EXPECT_EQ(gs[0]->pushHistory, find(p, "g_amax_history"));
  EXPECT_EQ(gs[0]->pushRound, DType::BF16);
  EXPECT_TRUE(gs[0]->pushResetAmax);
  EXPECT_FALSE(gs[0]->pushInFallback);
  EXPECT_EQ(p.buffers[gs[0]->amaxD].role, BufferRole::Scratch);
  EXPECT_FALSE(p.buffers[gs[0]->amaxD].zeroInit);
  ASSERT_EQ(gs[0]->pushFallback.size(), 1u);
  const GeneratedLaunch &push = gs[0]->pushFallback.front();
  EXPECT_NE(push.source.find("historyPushInPlace<16>"), std::string::npos);
  EXPECT_NE(push.source.find("roundTo<fp8c::Dt::BF16>"), std::string::npos);
  EXPECT_EQ(push.grid.work.eval(1000), 1);
  EXPECT_FALSE(push.grid.persistent);
  EXPECT_EQ(gs[1]->pushHistory, -1);
  int pushing = 0;
  for (const GeneratedLaunch *gl : launches(p.steps))
    pushing += gl->source.find("fp8c::PushDesc::to(") != std::string::npos;
  EXPECT_EQ(pushing, 3) << "x, w1 and w2";
}

// Delayed Linear: each cast that reduces an amax also pushes it into its history (its last
// block, kPush), so there is no state launch; the amaxes, read by no other step, are Scratch
// those launches put back to zero (no memset per run), as GEMM 1's amax in the MLP (above).
TEST(CodegenLowering, DelayedLinearPushesHistoriesInItsCasts) {
  Lowered l = lower(readExample("linear"), pipeline("delayed"));
  const LaunchPlan &p = l.plan;
  auto ls = launches(p.steps);
  ASSERT_EQ(ls.size(), 2u);
  ASSERT_EQ(gemms(p.steps).size(), 1u);
  for (const GeneratedLaunch *gl : ls) {
    EXPECT_EQ(gl->entry.find("_state"), std::string::npos) << gl->entry;
    EXPECT_NE(gl->source.find("fp8c::PushDesc::to("), std::string::npos) << gl->entry;
    EXPECT_NE(gl->description.find("fp8.history_push"), std::string::npos) << gl->entry;
  }
  for (const char *h : {"x_amax_history", "w_amax_history"}) {
    const int b = find(p, h);
    EXPECT_EQ(p.buffers[b].role, BufferRole::State) << h;
    int touching = 0;
    for (const Step &s : p.steps)
      for (int x : buffersOf(s))
        touching += x == b;
    EXPECT_EQ(touching, 1) << h << ": its cast reads it (the scale) and pushes into it";
  }
  for (const char *a : {"x_amax", "w_amax"}) {
    const BufferDesc &d = p.buffers[find(p, a)];
    EXPECT_EQ(d.role, BufferRole::Scratch) << a;
    EXPECT_FALSE(d.zeroInit) << a << " would be cleared on every run";
  }
}

} // namespace
} // namespace fp8c
