// Lowering of delayed scaling's state updates (codegen/Lowering.cpp): the histories are state
// buffers updated in place, by a state launch at the end of the run, or, where every amax comes
// from a one-pass rows launch, by those launches' last blocks (Lowerer::foldHistoryPushes).
// No GPU and no NVRTC needed.
#include "CodegenLoweringSupport.h"

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
  EXPECT_TRUE(p.buffers[gs[0]->amaxD].zeroInit);
  EXPECT_EQ(gs[0]->scaleD, find(p, "g_scale"));
  EXPECT_EQ(gs[0]->d, find(p, "g_fp8"));
  EXPECT_EQ(gs[1]->a, find(p, "g_fp8"));
  EXPECT_EQ(gs[1]->invScaleA, find(p, "g_scale.inv"));
  // The last step updates every history in place; the cuBLASLt amax is rounded to bf16 there.
  auto ls = launches(p.steps);
  const GeneratedLaunch &state = *ls.back();
  EXPECT_EQ(state.entry, "fp8c_mlp_k4_state");
  EXPECT_TRUE(std::holds_alternative<GeneratedLaunch>(p.steps.back()));
  EXPECT_NE(state.source.find("historyPushInPlace<16>"), std::string::npos);
  EXPECT_NE(state.source.find("roundTo<fp8c::Dt::BF16>"), std::string::npos);
  EXPECT_EQ(state.grid.work.eval(1000), 1);
  EXPECT_FALSE(state.grid.persistent);
}

// Delayed Linear: each cast that reduces an amax also pushes it into its history (its last
// block, kPush), so there is no state launch; the amaxes, read by no other step, are Scratch
// those launches put back to zero (no memset per run). The MLP's hidden amax comes from GEMM 1
// (above), so its plan keeps the state launch.
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
  Lowered mlp = lower(readExample("mlp"), pipeline("delayed"));
  EXPECT_EQ(launches(mlp.plan.steps).back()->entry, "fp8c_mlp_k4_state");
}

} // namespace
} // namespace fp8c
