// bytesTouched (codegen/LaunchPlan.h): the bytes of a launch's buffers, which
// fp8c-train-bench --profile prints beside each launch and sums into the step's copy-speed floor.
// A buffer listed twice counts once; padded pitches count; and the delayed Linear's three
// cast-transposes at 8192 tokens take exactly their bf16 input and two FP8 copies (plus a few
// KiB of scales, histories and column-sum partials): the 839 MB that bench/README.md's floor is
// computed from.
#include "unit/training/TrainingTestSupport.h"

#include "codegen/LaunchPlan.h"

#include <gtest/gtest.h>

using namespace fp8c;
using namespace fp8c::trainingtest;

namespace {

BufferDesc buffer(std::vector<int64_t> shape, DType dt, int64_t ld = 0) {
  BufferDesc d;
  d.type = TensorType(std::move(shape), dt);
  d.ld = ld;
  return d;
}

TEST(LaunchBytes, CountsEachBufferOnceWithItsPadding) {
  const std::vector<BufferDesc> bufs = {
      buffer({kDynamic, 100}, DType::BF16),          // 200 bytes a row
      buffer({kDynamic, 100}, DType::F8E4M3FN, 112), // padded to 112 bytes a row
      buffer({}, DType::F32),                        // a scalar: 4 bytes
  };
  GeneratedLaunch l;
  l.buffers = {0, 1, 2, 0, 1};
  EXPECT_EQ(bytesTouched(bufs, l, 10), 10 * 200 + 10 * 112 + 4);
  EXPECT_EQ(bytesTouched(bufs, l, 0), 4);
  l.buffers = {};
  EXPECT_EQ(bytesTouched(bufs, l, 10), 0);
}

TEST(LaunchBytes, TheDelayedLinearsCastsTakeTheirInputAndTwoCopies) {
  const int64_t tokens = 8192, k = 4096, n = 14336;
  std::optional<LoweredTraining> l = lowerTraining("linear.mlir", "delayed", tokens);
  ASSERT_TRUE(l.has_value());
  // Each tensor: a bf16 read, an FP8 copy and its FP8 transpose written.
  const int64_t x = tokens * k * 4, w = n * k * 4, dy = tokens * n * 4;
  std::vector<int64_t> expected = {x, w, dy}, seen;
  int64_t total = 0;
  for (const CompiledGraph *half : {&l->forward, &l->backward})
    for (const Step &s : half->plan.steps) {
      const auto *g = std::get_if<GeneratedLaunch>(&s);
      if (!g)
        continue;
      const int64_t b = bytesTouched(half->plan.buffers, *g, tokens);
      total += b;
      if (g->kernelName.find("cast_transpose") != std::string::npos)
        seen.push_back(b);
    }
  ASSERT_EQ(seen.size(), expected.size()) << "x, w and dY, one cast-transpose each";
  std::sort(seen.begin(), seen.end());
  std::sort(expected.begin(), expected.end());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_GE(seen[i], expected[i]);
    // Scales, histories and dY's column-sum partials (f32 per chunk of rows and column: 1.1 MB).
    EXPECT_LT(seen[i], expected[i] + (int64_t(2) << 20)) << "launch " << i;
  }
  // Every launch besides the GEMMs: the three casts and nothing of size.
  EXPECT_GE(total, x + w + dy);
  EXPECT_LT(total, x + w + dy + (int64_t(4) << 20));
  EXPECT_NEAR(double(total) / 1e6, 839.0, 4.0);
}

} // namespace
