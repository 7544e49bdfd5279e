// The generated Hopper FP8 GEMM on the GPU, case by case (the harness, its reference and its
// checks: GemmSm90GpuCase.{h,cpp}): M in {1, 7, 100, 8191, 8192}, N and K not multiples of the
// tile, every scale mode, epilogue and tile shape, both consumer schedules, both epilogue store
// paths. Skips without an sm_90 GPU.
#include "unit/runtime/GemmSm90GpuCase.h"

#include <gtest/gtest.h>

namespace fp8c::sm90test {
namespace {

TEST(GemmSm90Gpu, TensorScalesEveryMAndTile) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(1);
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {tiles(256, 4), m, 333, 1000}, rng);
  for (int64_t m : {1, 100, 8192})
    runCase(*runner, {tiles(128, 6), m, 333, 1000}, rng);
  runCase(*runner, {tiles(256, 4, false), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(192, 5), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(64, 8), 100, 333, 1000}, rng);
  runCase(*runner, {tiles(256, 3), 300, 1000, 40}, rng);           // K < 128
  runCase(*runner, {tiles(256, 4), 1000, 700, 1500, 3}, rng);      // 3 persistent blocks
  runCase(*runner, {tiles(128, 6), 8192, 1000, 1000}, rng);        // ~4 tiles per block
  GemmSm90Spec m64 = tiles(128, 8);
  m64.bm = 64;
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {m64, m, 333, 1000}, rng);
  m64.bn = 256;
  m64.stages = 5;
  runCase(*runner, {m64, 16, 1000, 1000, 5}, rng);
}

// The TMA-store epilogue (D's width and pitch multiples of 16 bytes): column tails inside a
// chunk (N = 328 for a 16-bit D, 336 for an FP8 D) and chunks wholly past N, row tails, both
// schedules, one and two chunk buffers (with and without column inputs), FP8 D with amax,
// promotion, clusters, several tiles per block; the padding columns past N stay poisoned.
TEST(GemmSm90Gpu, TmaStoreEpilogueTails) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(9);
  auto run = [&](const GemmSm90Spec &k, int64_t m, int64_t n, int64_t kk, int blocks = 0) {
    const GemmSm90Problem prob{m, n, kk, kk, kk, lddFor(n)};
    ASSERT_GT(launchedGemmSm90Kernel(k, prob).epilogueBuffers(), 0) << k.name();
    runCase(*runner, {k, m, n, kk, blocks}, rng);
  };
  for (int64_t m : {1, 7, 100, 8191, 8192})
    run(tiles(256, 4), m, 328, 1000);
  run(tiles(128, 6), 100, 328, 1000);
  run(tiles(256, 4), 1000, 1000, 1500, 3); // several tiles per block: the buffers rotate
  for (int64_t m : {1, 100, 8191})
    run(pingPong(128, 128, 6), m, 328, 1000);
  run(pingPong(64, 256, 5), 100, 328, 1000);
  run(pingPong(128, 128, 6), 1000, 1000, 1500, 2);
  GemmSm90Spec k = tiles(128, 8);
  k.bm = 64;
  run(k, 7, 328, 1000);
  k = tiles(256, 4);
  k.dType = DType::F16;
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  ASSERT_EQ(k.epilogueBuffers(), 1);
  run(k, 8191, 328, 1000);
  k = tiles(128, 6, false);
  k.fastAccum = false;
  run(k, 100, 328, 1000);
  k.scaleMode = GemmScaleMode::Block128;
  run(k, 7, 328, 1000);
  k = pingPong(128, 128, 6);
  k.clusterM = 2;
  run(k, 300, 328, 1000);
  // FP8 D (128-column chunks) with amax, as the MLP's first GEMM writes it.
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E4M3FN;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  for (int64_t m : {1, 100, 8191})
    run(k, m, 336, 1000);
  k = tiles(256, 4);
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  run(k, 8192, 336, 1000);
  run(k, 1000, 1008, 1500, 3);
  // An FP8 D 8 bytes past a 16-byte unit: the register epilogue.
  EXPECT_EQ(launchedGemmSm90Kernel(k, {100, 328, 1000, 1000, 1000, 336}).epilogueBuffers(), 0);
  // D's pitch not a multiple of 16 bytes, or N not a multiple of 8: the register epilogue.
  EXPECT_EQ(launchedGemmSm90Kernel(tiles(256, 4), {100, 328, 1000, 1000, 1000, 331}).epilogueBuffers(), 0);
  EXPECT_EQ(launchedGemmSm90Kernel(tiles(256, 4), {100, 333, 1000, 1000, 1000, 336}).epilogueBuffers(), 0);
}

// The extra outputs of an FP8 D (the bf16 pre-activation, D transposed): the training MLP's
// first GEMM (ping-pong 128 x 128 x 5, bias + tanh GELU + amax), cooperative tiles, D^T alone,
// the pre-activation alone with ReLU on 64-row tiles, promotion on 128 x 192; row tails (M not
// a multiple of 16: D^T's pad columns), N a multiple of 16 but not of 64, several tiles per
// block.
TEST(GemmSm90Gpu, ExtraOutputsPreActivationAndTranspose) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(17);
  GemmSm90Spec mlp = sm90configs::withTrainingForwardEpilogue(pingPong(128, 128, 5));
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {mlp, m, 336, 1000}, rng);
  runCase(*runner, {mlp, 1000, 1024, 1000, 3}, rng); // several tiles per warpgroup
  GemmSm90Spec coop = mlp;
  coop.schedule = GemmSchedule::Cooperative;
  runCase(*runner, {coop, 300, 400, 520}, rng);
  GemmSm90Spec t = tiles(256, 3);
  t.dType = DType::F8E5M2;
  t.transD = true;
  runCase(*runner, {t, 333, 512, 700}, rng);
  GemmSm90Spec a = tiles(128, 8);
  a.bm = 64;
  a.dType = DType::F8E4M3FN;
  a.activation = Activation::Relu;
  a.auxOut = true;
  runCase(*runner, {a, 50, 208, 300}, rng);
  GemmSm90Spec pr = tiles(192, 4, false);
  pr.fastAccum = false;
  pr.dType = DType::F8E4M3FN;
  pr.biasType = DType::F32;
  pr.activation = Activation::GeluTanh;
  pr.amaxD = true;
  pr.auxOut = pr.transD = true;
  runCase(*runner, {pr, 257, 400, 1000}, rng);
  // The e4m3 copy of the pre-activation (gelu_saved=e4m3) instead of bf16.
  for (const GemmSm90Spec &k8 : sm90configs::auxFp8Configs()) {
    for (int64_t m : {1, 7, 100, 8191})
      runCase(*runner, {k8, m, 336, 1000}, rng);
    runCase(*runner, {k8, 1000, 1024, 1000, 3}, rng);
  }
  // A bf16 D = GELU with its amax beside the bf16 pre-activation (a current-scaling MLP).
  for (const GemmSm90Spec &kb : sm90configs::auxBf16DConfigs()) {
    for (int64_t m : {1, 7, 100, 8191})
      runCase(*runner, {kb, m, 336, 1000}, rng);
    runCase(*runner, {kb, 1000, 1024, 1000, 3}, rng);
  }
}

// The backward's gelu_grad in the epilogue (the MLP's second dgrad GEMM): D = cast(y * gelu'(x))
// with x the GELU's saved input read by the kernel, its amax, D^T and the column sums (the bias
// gradient): the heuristic's promoting 128 x 192 tiles (e5m2 dY) at M 1 to 8191 with a tile
// tail in N, ping-pong 128 x 128 with f32 sums and several tiles per warpgroup, 64-row tiles,
// and the offloaded-epilogue configs (gelu_grad over a bf16 saved input and over its e4m3 copy,
// the derivative from tables; the forward's GELU with bias, the pre-activation, amax and D^T).
TEST(GemmSm90Gpu, GeluGradEpilogueWithColumnSums) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(29);
  const std::vector<GemmSm90Spec> ks = sm90configs::geluGradConfigs();
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[0], m, 448, 1000}, rng);
  runCase(*runner, {ks[1], 1000, 1024, 700, 3}, rng);
  runCase(*runner, {ks[2], 50, 208, 300}, rng);
  // The offloaded epilogue: tile tails in N (448) and K, and with 3 and 5 blocks many tiles
  // per block, so both tile slots turn over several times and each epilogue warp gets units of
  // every position in the tile.
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[3], m, 448, 1000}, rng);
  runCase(*runner, {ks[3], 1000, 1024, 700, 3}, rng);
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[4], m, 448, 1000}, rng);
  runCase(*runner, {ks[4], 1000, 1024, 700, 3}, rng);
  runCase(*runner, {ks[5], 1000, 1024, 700, 5}, rng);
  runCase(*runner, {ks[5], 257, 400, 1000}, rng);
}

// The dual GEMM of a SwiGLU MLP (gate and up weights in one kernel, the swiglu in the epilogue):
// each config the heuristic picks (GemmSm90Configs' swigluConfigs) at M 1 to 8191 with tile
// tails in N and K, several tiles per warpgroup, and 64-row tiles. The gate and up results are
// rounded to bf16 (the graph's roundings) from accumulators that carry the GEMM's own error, so
// an element may round one bf16 step away from the f64 reference's: 3e-3 beyond D's rounding.
TEST(GemmSm90Gpu, DualGemmSwigluEpilogue) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(31);
  const std::vector<GemmSm90Spec> ks = sm90configs::swigluConfigs();
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[0], m, 448, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[1], 1000, 328, 700, 3, 3e-3}, rng);
  runCase(*runner, {ks[2], 300, 200, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[3], 8192, 336, 1000, 0, 3e-3}, rng);
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {ks[4], m, 1000, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[5], 30, 1024, 4096, 0, 3e-3}, rng);
  // Blockwise scales: the gate and up halves start 0, 32, 64 or 96 columns into a scale block
  // (N 1000: tiles of 96 and 64 output columns at every offset), K with a partial last block.
  for (int64_t m : {1, 100, 8191})
    runCase(*runner, {ks[6], m, 1000, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[7], 300, 1000, 1500, 0, 3e-3}, rng);
  // Row scales (the rowwise recipe): each weight's column scales beside its half, the bf16 h
  // with its per-row amax through registers (ping-pong, 64 output columns, N 1000: a partial
  // last tile) and TMA stores (N 336), several tiles per warpgroup; decode into an FP8 h.
  for (int64_t m : {1, 100, 8191})
    runCase(*runner, {ks[8], m, 1000, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[9], 1000, 336, 700, 3, 3e-3}, rng);
  runCase(*runner, {ks[9], 300, 1000, 4096, 0, 3e-3}, rng);
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {ks[10], m, 1000, 1000, 0, 3e-3}, rng);
}

// The residual add in the epilogue (z = bf16(bf16(act(y)) + r), r read by the kernel): each
// config of GemmSm90Configs' residualConfigs at M 1 to 8191, tile tails in N and K, several
// tiles per warpgroup, both store paths (N 336: TMA stores; N 328 with an FP8 D, N 200 with
// 64-row tiles: registers). The activation's bf16 rounding happens on accumulators that carry
// the GEMM's own error, so an element may round one bf16 step away from the reference's: 3e-3
// beyond D's rounding, as for the dual GEMM.
TEST(GemmSm90Gpu, ResidualAddEpilogue) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(37);
  const std::vector<GemmSm90Spec> ks = sm90configs::residualConfigs();
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[0], m, 336, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[1], 1000, 1024, 700, 3, 3e-3}, rng);
  runCase(*runner, {ks[2], 777, 336, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[3], 300, 512, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[3], 300, 328, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[4], 8192, 336, 1000, 0, 3e-3}, rng);
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {ks[5], m, 200, 1000, 0, 3e-3}, rng);
}

// The 1x128-block FP8 cast of D (the blockwise MLP's hidden activation quantized in the first
// GEMM's epilogue): each config of GemmSm90Configs' blockCastConfigs at M 1 to 8191, N with a
// partial last block (1000) and in whole 16-byte units (384: TMA stores), K with a partial last
// block, several tiles per warpgroup; margins 0 and 1, scales plain and powers of two (varied
// with M, runCase). The bf16 roundings of y and act(y) happen on accumulators that carry the
// GEMM's own error, as for the dual GEMM: 3e-3 beyond D's rounding.
TEST(GemmSm90Gpu, BlockCastEpilogue) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(41);
  const std::vector<GemmSm90Spec> ks = sm90configs::blockCastConfigs();
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[0], m, 1000, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[0], 300, 384, 700, 3, 3e-3}, rng);
  runCase(*runner, {ks[1], 129, 1000, 520, 0, 3e-3}, rng);
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {ks[2], m, 1000, 1000, 0, 3e-3}, rng);
  runCase(*runner, {ks[3], 1000, 384, 700, 3, 3e-3}, rng);
  runCase(*runner, {ks[3], 200, 1000, 300, 0, 3e-3}, rng);
}

// Per-row amax of D (a rowwise recipe's current amax of the GEMM output, atomics per row):
// the rowwise MLP's first GEMM (row scales, bias, tanh GELU, bf16 D) in both schedules, both
// store paths (N = 336: TMA stores; N = 333: registers), an FP8 D, row tails, promotion.
TEST(GemmSm90Gpu, RowAmaxOfD) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(23);
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = k.amaxRows = true;
  for (int64_t m : {1, 100, 8191})
    runCase(*runner, {k, m, 336, 1000}, rng);
  runCase(*runner, {k, 300, 333, 700}, rng);
  GemmSm90Spec c = tiles(256, 4);
  c.scaleMode = GemmScaleMode::OuterVector;
  c.activation = Activation::Relu;
  c.amaxD = c.amaxRows = true;
  runCase(*runner, {c, 257, 1000, 520}, rng);
  c.dType = DType::F8E4M3FN;
  runCase(*runner, {c, 130, 512, 300}, rng);
  GemmSm90Spec pr = tiles(192, 5, false);
  pr.fastAccum = false;
  pr.amaxD = pr.amaxRows = true;
  runCase(*runner, {pr, 200, 400, 1000}, rng);
}

TEST(GemmSm90Gpu, PromotionWithoutFastAccumulation) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(5);
  GemmSm90Spec fast = tiles(128, 6);
  fast.dType = DType::F32;
  GemmSm90Spec precise = fast;
  precise.fastAccum = false;
  precise.overlap = false;
  // f32 D: the accumulation error alone. Fast accumulation was measured at 1.15e-3 here
  // (K = 4000), promotion at 1.07e-4: fast accumulation is held to 3e-3 at this K.
  runCase(*runner, {fast, 100, 333, 4000, 0, 3e-3}, rng);
  runCase(*runner, {precise, 100, 333, 4000}, rng);
  precise.dType = DType::BF16;
  for (int64_t m : {1, 7, 8191})
    runCase(*runner, {precise, m, 333, 1000}, rng);
  // 128 x 192 tiles: 96 + 96 accumulators per thread (register and TMA-store epilogues).
  GemmSm90Spec wide = tiles(192, 5, false);
  wide.fastAccum = false;
  runCase(*runner, {wide, 8191, 333, 1000}, rng);
  runCase(*runner, {wide, 100, 328, 4000}, rng);
  // 128 x 256 tiles: 128 accumulators of the result, each K block added in two 128-column
  // halves; f32 D at K 4000 (the accumulation error alone), several tiles per block, tails.
  GemmSm90Spec halves = tiles(256, 4, false);
  halves.fastAccum = false;
  halves.dType = DType::F32;
  runCase(*runner, {halves, 100, 333, 4000}, rng);
  halves.dType = DType::BF16;
  runCase(*runner, {halves, 8191, 1000, 1000}, rng);
  runCase(*runner, {halves, 300, 600, 520, 2}, rng);
  precise.bn = 64;
  precise.stages = 8;
  precise.scaleMode = GemmScaleMode::OuterVector;
  runCase(*runner, {precise, 8192, 333, 1000}, rng);
}

// A given MN-major (aTransposed: A^T [K, M] read with transposing shared-memory loads into
// wgmma's register operand): each config of GemmSm90Configs' aTransposedConfigs at M 1 to 8191
// (row tails inside a warp's 16 rows, whose order the epilogue undoes), N with a partial last
// tile, K with a partial last block, several tiles per block. Besides the f64 reference, D must
// equal the same config's D on the K-major A bit for bit (runCase).
TEST(GemmSm90Gpu, ATransposedReadsItsTranspose) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(43);
  const std::vector<GemmSm90Spec> ks = sm90configs::aTransposedConfigs();
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {ks[0], m, 336, 1000}, rng);
  runCase(*runner, {ks[0], 1000, 1024, 1500, 3}, rng);
  runCase(*runner, {ks[1], 8191, 1000, 1000}, rng);
  runCase(*runner, {ks[1], 300, 600, 520, 2}, rng);
  runCase(*runner, {ks[2], 100, 336, 4000}, rng);
  runCase(*runner, {ks[3], 8192, 1000, 1000}, rng);
  runCase(*runner, {ks[3], 1000, 1024, 1500, 3}, rng);
  runCase(*runner, {ks[4], 257, 336, 1000}, rng);
  runCase(*runner, {ks[5], 7, 328, 300}, rng);
}

TEST(GemmSm90Gpu, DtypesAndOutputs) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(2);
  GemmSm90Spec k = tiles(128, 6);
  k.aType = DType::F8E5M2;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = tiles(256, 4);
  k.bType = DType::F8E5M2;
  k.dType = DType::F16;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  k = tiles(256, 4);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  k.activation = Activation::Relu;
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  k.dType = DType::F8E5M2;
  k.amaxD = true;
  k.activation = Activation::None;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, RowScalesBiasActivations) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(3);
  GemmSm90Spec k = tiles(256, 4);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  k.activation = Activation::GeluErf;
  k.biasType = DType::F32;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = tiles(128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.activation = Activation::Silu;
  k.biasType = DType::F16;
  k.amaxD = true;
  runCase(*runner, {k, 1, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, BlockScalesPromotedPerKBlock) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(4);
  // 128 x 192 tiles span two B scale blocks, split at column 128 or 64 (N = 333 and 200 end
  // inside the second); K = 1000 and 1500 end inside a box of four K blocks' B scales.
  GemmSm90Spec k = tiles(192, 5, false);
  k.scaleMode = GemmScaleMode::Block128;
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {k, m, 333, 1000}, rng);
  runCase(*runner, {k, 300, 200, 1500}, rng);
  k = tiles(128, 6, false);
  k.scaleMode = GemmScaleMode::Block128;
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {k, m, 333, 1000}, rng);
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  k.amaxD = true;
  runCase(*runner, {k, 100, 333, 1000, 2}, rng);
  k = tiles(128, 8, false);
  k.bm = 64;
  k.scaleMode = GemmScaleMode::Block128;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  k.bn = 256;
  k.stages = 5;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

TEST(GemmSm90Gpu, PingPongTensorScalesEveryMAndTile) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(6);
  for (int64_t m : {1, 7, 100, 8191, 8192})
    runCase(*runner, {pingPong(128, 128, 6), m, 333, 1000}, rng);
  for (int64_t m : {1, 100, 8192})
    runCase(*runner, {pingPong(128, 128, 7), m, 333, 1000}, rng);
  runCase(*runner, {pingPong(128, 128, 6, false), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 256, 5), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 128, 8), 7, 333, 1000}, rng);
  runCase(*runner, {pingPong(64, 64, 8), 100, 333, 1000}, rng);
  runCase(*runner, {pingPong(128, 64, 8), 100, 333, 1000}, rng);
  // Many tiles per warpgroup: the ring positions skip the other warpgroup's stages (kBlocks 8
  // vs 6 and 7 stages; 1 stage per tile at K < 128; 12 with 5 stages), odd and even counts.
  runCase(*runner, {pingPong(128, 128, 6), 8192, 1000, 1000}, rng);
  runCase(*runner, {pingPong(128, 128, 7), 1000, 700, 1000, 3}, rng);
  runCase(*runner, {pingPong(128, 128, 7), 1000, 700, 40, 2}, rng);
  runCase(*runner, {pingPong(128, 128, 6), 1000, 1000, 1500, 1}, rng);
  runCase(*runner, {pingPong(64, 256, 5), 300, 1000, 1500, 5}, rng);
}

TEST(GemmSm90Gpu, PingPongEpiloguesAndDtypes) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(7);
  GemmSm90Spec k = pingPong(128, 128, 6);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  runCase(*runner, {k, 7, 333, 1000}, rng);
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  runCase(*runner, {k, 1000, 700, 1000, 3}, rng);
  k.activation = Activation::GeluErf;
  k.biasType = DType::F32;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(64, 256, 5);
  k.scaleMode = GemmScaleMode::OuterVector;
  k.activation = Activation::Silu;
  k.biasType = DType::F16;
  k.amaxD = true;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  runCase(*runner, {k, 8191, 333, 1000}, rng);
  runCase(*runner, {k, 1000, 700, 1000, 3}, rng);
  k.activation = Activation::Relu;
  k.dType = DType::F8E5M2;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.aType = DType::F8E5M2;
  k.dType = DType::F16;
  runCase(*runner, {k, 100, 333, 1000}, rng);
  k = pingPong(128, 128, 6);
  k.bType = DType::F8E5M2;
  k.dType = DType::F32;
  runCase(*runner, {k, 100, 333, 1000}, rng);
}

// Clusters of two blocks along M sharing the B tile (TMA multicast, stages released in both
// blocks): odd tile-row counts (the second block of the last pair loads rows past M as zeros and
// stores nothing), few persistent clusters so that each runs many pairs, both schedules, the
// decode tile, epilogues with column inputs, FP8 D, promotion and blockwise scales.
TEST(GemmSm90Gpu, ClustersOfTwoShareB) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(8);
  auto c2 = [](GemmSm90Spec k) {
    k.clusterM = 2;
    return k;
  };
  for (int64_t m : {1, 100, 300, 8191})
    runCase(*runner, {c2(pingPong(128, 128, 6)), m, 333, 1000}, rng);
  for (int64_t m : {7, 300, 8192})
    runCase(*runner, {c2(tiles(256, 4)), m, 333, 1000}, rng);
  runCase(*runner, {c2(pingPong(128, 128, 6)), 1000, 700, 1000, 4}, rng); // 2 clusters
  runCase(*runner, {c2(tiles(256, 4)), 1000, 1000, 1500, 2}, rng);        // 1 cluster
  runCase(*runner, {c2(pingPong(128, 128, 6)), 1000, 700, 40, 6}, rng);   // K < 128
  GemmSm90Spec m64 = tiles(128, 8);
  m64.bm = 64;
  runCase(*runner, {c2(m64), 16, 1000, 1000}, rng);
  GemmSm90Spec k = c2(pingPong(128, 128, 6));
  k.scaleMode = GemmScaleMode::OuterVector;
  k.biasType = DType::BF16;
  k.activation = Activation::GeluTanh;
  runCase(*runner, {k, 300, 333, 1000}, rng);
  k = c2(tiles(256, 4));
  k.dType = DType::F8E4M3FN;
  k.amaxD = true;
  runCase(*runner, {k, 1000, 700, 1000}, rng);
  k = c2(tiles(128, 6, false));
  k.scaleMode = GemmScaleMode::Block128;
  runCase(*runner, {k, 300, 333, 1000}, rng);
  k = c2(tiles(128, 6, false));
  k.fastAccum = false;
  runCase(*runner, {k, 100, 333, 4000}, rng);
  // The training MLP's first GEMM as the autotuner may pair it: FP8 D with bias, tanh GELU,
  // amax, the pre-activation and D^T (N a multiple of 16), ping-pong and cooperative; odd
  // tile-row counts and row tails.
  for (const GemmSm90Spec &x : {c2(pingPong(128, 128, 4)), c2(tiles(256, 3))})
    for (int64_t m : {100, 300, 1000})
      runCase(*runner, {sm90configs::withTrainingForwardEpilogue(x), m, 448, 1000}, rng);
}

// The bf16-A prologue: A read as bf16 and cast in the kernel (tensor and row quantization
// scales, saturation, amax of A), bit for bit the FP8-A kernel's D on the host-quantized A:
// M tails, K tails (K < 128, K not a multiple of 64), the configs the heuristic gives it
// (stages cut for the staging slots), few persistent blocks, promotion, e5m2 A, three slots.
TEST(GemmSm90Gpu, CastsBf16AInThePrologue) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(9);
  auto cast = [](GemmSm90Spec k) {
    k.castA = true;
    return k;
  };
  GemmSm90Spec pp = cast(pingPong(128, 128, 4));
  pp.amaxA = true;
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {pp, m, 333, 1000}, rng);
  runCase(*runner, {pp, 1000, 700, 40, 6}, rng);   // K < 128: one stage, one half box empty
  runCase(*runner, {pp, 300, 1000, 1000, 3}, rng); // few blocks: many tiles each
  GemmSm90Spec row = cast(pingPong(128, 128, 4));
  row.scaleMode = GemmScaleMode::OuterVector;
  row.biasType = DType::BF16;
  row.activation = Activation::GeluTanh;
  runCase(*runner, {row, 8192, 333, 1000}, rng);
  GemmSm90Spec wide = cast(tiles(256, 3));
  wide.dType = DType::F8E4M3FN;
  wide.amaxD = true;
  wide.amaxA = true;
  runCase(*runner, {wide, 300, 1000, 1500}, rng);
  GemmSm90Spec m64 = cast(tiles(128, 7));
  m64.bm = 64;
  m64.amaxA = true;
  for (int64_t m : {1, 16, 64})
    runCase(*runner, {m64, m, 1000, 1000}, rng);
  GemmSm90Spec precise = cast(tiles(128, 4, false));
  precise.fastAccum = false;
  precise.aType = DType::F8E5M2;
  runCase(*runner, {precise, 100, 333, 2000}, rng);
  GemmSm90Spec three = cast(pingPong(128, 128, 3));
  three.castSlots = 3;
  runCase(*runner, {three, 1000, 333, 1000}, rng);
}

// Cast-ahead A: A read as bf16 and cast by the kernel's own warps into an FP8 copy (the first
// wave's rows at entry, the rest beside the main loops), bit for bit the FP8-A kernel's D on
// the host-quantized A, the copy equal to the host quantization with nothing written past K or
// M, the counters zero after every run (runCase runs each config twice or more): M tails, K
// tails (K < 128, K % 8 != 0), few persistent blocks, tensor and row scales, an FP8 D, 64-row
// tiles, promotion with e5m2 A.
TEST(GemmSm90Gpu, CastsAAheadOfTheMainLoop) {
  FP8C_REQUIRE_SM90(runner);
  std::mt19937 rng(10);
  auto ahead = [](GemmSm90Spec k) {
    k.castAhead = true;
    return k;
  };
  GemmSm90Spec pp = ahead(pingPong(128, 128, 6));
  pp.amaxA = true;
  for (int64_t m : {1, 7, 100, 8191})
    runCase(*runner, {pp, m, 333, 1000}, rng);
  runCase(*runner, {pp, 1000, 700, 40, 6}, rng);   // K < 128
  runCase(*runner, {pp, 300, 1000, 1003, 3}, rng); // few blocks; three trailing elements per row
  GemmSm90Spec row = ahead(tiles(256, 4));
  row.scaleMode = GemmScaleMode::OuterVector;
  row.biasType = DType::BF16;
  row.activation = Activation::GeluTanh;
  runCase(*runner, {row, 8192, 333, 1000}, rng);
  GemmSm90Spec fp8d = ahead(pingPong(128, 128, 5));
  fp8d.dType = DType::F8E4M3FN;
  fp8d.amaxD = true;
  runCase(*runner, {fp8d, 300, 1000, 1500}, rng);
  GemmSm90Spec m64 = ahead(tiles(128, 8));
  m64.bm = 64;
  m64.amaxA = true;
  for (int64_t m : {1, 16, 64, 1000})
    runCase(*runner, {m64, m, 1000, 1000}, rng);
  GemmSm90Spec precise = ahead(tiles(128, 6, false));
  precise.fastAccum = false;
  precise.aType = DType::F8E5M2;
  runCase(*runner, {precise, 100, 333, 2000}, rng);
}

} // namespace
} // namespace fp8c::sm90test
