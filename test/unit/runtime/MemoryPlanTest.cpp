// The memory plan: temps with disjoint live ranges share bytes, overlapping ones never do,
// persistent buffers (state, constants) never share, caller buffers take no arena bytes.
#include "runtime/MemoryPlan.h"

#include <gtest/gtest.h>

using namespace fp8c;

namespace {

BufferDesc buffer(std::string name, std::vector<int64_t> shape, DType t, BufferRole role) {
  BufferDesc b;
  b.name = std::move(name);
  b.type = TensorType(std::move(shape), t);
  b.role = role;
  return b;
}

GeneratedLaunch launch(std::vector<int> buffers) {
  GeneratedLaunch g;
  g.kernelName = g.entry = "k";
  g.buffers = std::move(buffers);
  return g;
}

bool overlaps(const BufferSlot &a, const BufferSlot &b) {
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

} // namespace

TEST(MemoryPlanTest, BytesFollowMAndPitch) {
  BufferDesc b = buffer("x", {kDynamic, 100}, DType::F8E4M3FN, BufferRole::Temp);
  EXPECT_EQ(b.bytes(3), 300);
  b.ld = 112;
  EXPECT_EQ(b.bytes(3), 336);
  EXPECT_EQ(buffer("s", {}, DType::F32, BufferRole::Temp).bytes(7), 4);
}

TEST(MemoryPlanTest, DisjointTempsShareOverlappingDoNot) {
  LaunchPlan p;
  p.buffers = {buffer("in", {kDynamic, 1024}, DType::BF16, BufferRole::Input),     // 0
               buffer("t1", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),      // 1
               buffer("t2", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),      // 2
               buffer("t3", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),      // 3
               buffer("out", {kDynamic, 1024}, DType::BF16, BufferRole::Output)};  // 4
  // in -> t1 -> t2 -> t3 -> out: t1 and t3 are never live together.
  p.steps = {launch({0, 1}), launch({1, 2}), launch({2, 3}), launch({3, 4})};
  MemoryPlan mp = planMemory(p, 16);
  EXPECT_FALSE(mp.slots[0].arena);
  EXPECT_FALSE(mp.slots[4].arena);
  ASSERT_TRUE(mp.slots[1].arena && mp.slots[2].arena && mp.slots[3].arena);
  EXPECT_FALSE(overlaps(mp.slots[1], mp.slots[2]));
  EXPECT_FALSE(overlaps(mp.slots[2], mp.slots[3]));
  EXPECT_EQ(mp.slots[1].offset, mp.slots[3].offset) << "t1 and t3 should reuse the same bytes";
  EXPECT_EQ(mp.arenaBytes, 2 * 16 * 1024 * 2);
  EXPECT_EQ(mp.naiveBytes, 3 * 16 * 1024 * 2);
}

TEST(MemoryPlanTest, PersistentBuffersNeverShare) {
  LaunchPlan p;
  p.buffers = {buffer("hist", {16}, DType::F32, BufferRole::State),
               buffer("w_fp8", {256, 256}, DType::F8E4M3FN, BufferRole::Constant),
               buffer("t", {kDynamic, 256}, DType::F32, BufferRole::Temp)};
  p.loadSteps = {launch({1})};
  p.steps = {launch({2}), launch({0, 2})};
  MemoryPlan mp = planMemory(p, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      EXPECT_FALSE(overlaps(mp.slots[i], mp.slots[j])) << i << " vs " << j;
  EXPECT_EQ(mp.slots[0].offset % 256, 0);
  EXPECT_EQ(mp.slots[1].offset % 256, 0);
  EXPECT_EQ(mp.slots[2].offset % 256, 0);
}

TEST(MemoryPlanTest, CublasStepsCountTheirOperands) {
  GemmStep g;
  g.a = 0;
  g.b = 1;
  g.d = 2;
  g.invScaleA = 3;
  g.bias = 5;
  std::vector<int> bufs = buffersOf(Step(g));
  EXPECT_EQ(bufs, (std::vector<int>{0, 1, 2, 3, 5}));
}

// The extra outputs and inputs of a fused epilogue, and the launches a step may run after its
// GEMM, are live at the step too: a temp written only there (the transposed FP8 gradient, the
// column partial sums) must not share bytes with a buffer live across it.
TEST(MemoryPlanTest, CublasStepsCountTheirEpilogueBuffersAndFallbacks) {
  GemmStep g;
  g.a = 0;
  g.b = 1;
  g.d = 2;
  g.aux = 6;
  g.transD = 7;
  g.epiIn = 8;
  g.colSum = 9;
  g.colPartials = 10;
  GeneratedLaunch fallback;
  fallback.buffers = {2, 11};
  g.transFallback.push_back(fallback);
  std::vector<int> bufs = buffersOf(Step(g));
  EXPECT_EQ(bufs, (std::vector<int>{0, 1, 2, 6, 7, 8, 9, 10, 2, 11}));
}

// What only a step's cuBLASLt form touches: its results for the epilogue launches and the
// fallback launches' buffers, less what the generated GEMM reads or writes (D, amax).
TEST(MemoryPlanTest, CublasOnlyBuffersLeaveOutTheGeneratedGemms) {
  GemmStep g;
  g.a = 0;
  g.b = 1;
  g.d = 2;
  g.amaxD = 3;
  g.b2 = 4;
  g.gateD = 5;
  g.upD = 6;
  GeneratedLaunch dual;
  dual.buffers = {5, 6, 2, 3, 7};
  g.dualFallback.push_back(dual);
  EXPECT_EQ(cublasOnlyBuffersOf(g), (std::vector<int>{5, 6, 7}));
}

// A row cap sizes a temp for fewer rows than maxM (the executable touches it only below a
// GEMM's measured bucket); uncapped and static buffers keep their sizes.
TEST(MemoryPlanTest, RowCapsSizeTempsForFewerRows) {
  LaunchPlan p;
  p.buffers = {buffer("a", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),
               buffer("b", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),
               buffer("s", {64}, DType::F32, BufferRole::Temp)};
  p.steps = {launch({0, 1, 2})};
  MemoryPlan full = planMemory(p, 16);
  MemoryPlan capped = planMemory(p, 16, {4, -1, 0});
  EXPECT_EQ(full.slots[0].bytes, 16 * 2048);
  EXPECT_EQ(capped.slots[0].bytes, 4 * 2048);
  EXPECT_EQ(capped.slots[1].bytes, 16 * 2048);
  EXPECT_EQ(capped.slots[2].bytes, 256);
  EXPECT_EQ(capped.arenaBytes, full.arenaBytes - 12 * 2048);
  EXPECT_FALSE(overlaps(capped.slots[0], capped.slots[1]));
}

// The small temps a run zeroes (zeroInit: atomic amaxes, counters) sit packed at the arena's
// start, live for the whole run, so one memset zeroes them all; a large zeroInit temp, a
// row-capped one and one the load steps touch keep their own memset and live range.
TEST(MemoryPlanTest, SmallZeroedTempsShareOneRegionAtTheStart) {
  LaunchPlan p;
  auto zeroed = [](BufferDesc b) {
    b.zeroInit = true;
    return b;
  };
  p.buffers = {buffer("in", {kDynamic, 1024}, DType::BF16, BufferRole::Input),           // 0
               zeroed(buffer("amax1", {}, DType::F32, BufferRole::Temp)),                // 1
               buffer("t", {kDynamic, 1024}, DType::BF16, BufferRole::Temp),             // 2
               zeroed(buffer("counter", {224}, DType::I32, BufferRole::Temp)),           // 3
               zeroed(buffer("padded", {kDynamic, 1024}, DType::F32, BufferRole::Temp)), // 4
               zeroed(buffer("amax2", {}, DType::F32, BufferRole::Temp)),                // 5
               zeroed(buffer("capped", {kDynamic}, DType::F32, BufferRole::Temp)),       // 6
               zeroed(buffer("atload", {16}, DType::F32, BufferRole::Temp)),             // 7
               buffer("w", {64, 64}, DType::BF16, BufferRole::Constant),                 // 8
               zeroed(buffer("unused", {}, DType::F32, BufferRole::Temp))};              // 9
  p.loadSteps = {launch({7, 8})};
  // amax2 is first touched by the last step, after t's and padded's bytes could be reused.
  p.steps = {launch({0, 1, 2}), launch({2, 3, 6, 7}), launch({4}), launch({4, 5})};
  MemoryPlan mp = planMemory(p, 512, {-1, -1, -1, -1, -1, -1, 256});
  EXPECT_EQ(mp.zeroRegionBytes, 256 + 1024 + 256) << "amax1, counter (896 bytes), amax2";
  EXPECT_EQ(mp.slots[1].offset, 0);
  EXPECT_EQ(mp.slots[3].offset, 256);
  EXPECT_EQ(mp.slots[5].offset, 256 + 1024);
  for (int b : {1, 3, 5}) {
    EXPECT_TRUE(mp.slots[b].zeroRegion) << b;
    EXPECT_EQ(mp.slots[b].firstStep, -1) << b;
    EXPECT_EQ(mp.slots[b].lastStep, 4) << b;
  }
  // 2 MiB at M 512: too large for the region; capped and load-time temps stay out too.
  for (int b : {2, 4, 6, 7, 8, 9})
    EXPECT_FALSE(mp.slots[b].zeroRegion) << b;
  EXPECT_EQ(mp.slots[4].firstStep, 2);
  // Everything else in the arena lies past the region.
  for (size_t i = 1; i < mp.slots.size(); ++i) {
    if (mp.slots[i].zeroRegion || !mp.slots[i].arena)
      continue;
    EXPECT_GE(mp.slots[i].offset, mp.zeroRegionBytes) << p.buffers[i].name << " inside the region";
    for (int b : {1, 3, 5})
      EXPECT_FALSE(overlaps(mp.slots[i], mp.slots[b])) << p.buffers[i].name;
  }
}
