// The GPU test harness of the generated Hopper FP8 GEMM (GemmSm90GpuTest.cpp): one case run
// against an f64 reference of the dequantized operands, with poisoned padding (see
// GemmSm90GpuCase.cpp), and the tile-config shorthands the tests use.
#pragma once

#include "unit/runtime/GemmSm90Configs.h"
#include "unit/runtime/GpuTestSupport.h"
#include "runtime/gpu/GemmSm90.h"

#include <memory>
#include <random>

namespace fp8c::sm90test {

struct Case {
  GemmSm90Spec k;
  int64_t m, n, kk;
  int maxBlocks = 0;
  double tol = 1e-3; ///< beyond the rounding of the exact result to D's dtype
};

/// D's row pitch for N columns. N % 8 != 0: N + 3, even for odd N, odd for even N (both
/// register store paths). Otherwise a pitch of whole 16-byte units with 8 or 16 padding columns
/// (N % 16 == 0): the TMA-store epilogue for a 16-bit D (N % 8 == 0) or an FP8 D (N % 16 == 0).
int64_t lddFor(int64_t n);

/// Runs case `c` on `runner` and checks it (gtest expectations): D against the f64 reference
/// within the case's tolerance, padding and the spare row untouched, amax, the bf16-A prologue's
/// D bit for bit against the FP8-A kernel's, the TMA-store epilogue's against the register one's.
void runCase(GemmSm90Runner &runner, const Case &c, std::mt19937 &rng);

/// The default kernel with a cooperative bn x stages tile (GemmSm90Configs.h's kernel()).
inline GemmSm90Spec tiles(int bn, int stages, bool overlap = true) {
  return sm90configs::kernel(bn, stages, overlap);
}
/// The default kernel with a ping-pong bm x bn x stages tile.
using sm90configs::pingPong;
/// A runner on device 0, or null without an sm_90 GPU.
std::unique_ptr<GemmSm90Runner> makeRunner();

} // namespace fp8c::sm90test

#define FP8C_REQUIRE_SM90(runner)                                                                 \
  FP8C_REQUIRE_GPU();                                                                             \
  std::unique_ptr<GemmSm90Runner> runner = makeRunner();                                          \
  if (!runner)                                                                                    \
  GTEST_SKIP() << "needs an sm_90 GPU"
