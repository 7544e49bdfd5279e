// Side launches (GemmStep::side): a cast-transpose right after an FP8 GEMM step that shares
// no buffer with it moves into that step. On the generated GEMM the producer warpgroup's idle
// warps run it during the main loops (codegen/kernels/gemm_sm90_side.cuh), so its bytes move
// while the tensor cores work; on cuBLASLt it runs after the GEMM, where it ran before. The
// delayed MLP backward's gelu_grad cast-transpose (about 600 MB at 8192 tokens) so runs beside
// the second layer's weight-gradient GEMM, which neither reads nor writes what it does.
#include "codegen/LowerInternal.h"

#include <algorithm>
#include <set>

namespace fp8c::codegen {

namespace {

// A GEMM step that may carry a side launch: FP8, the generated GEMM allowed, and nothing the
// generated GEMM runs on its producer's warps or after it in its own launches.
bool mayCarrySide(const GemmStep &g, const std::vector<BufferDesc> &buffers) {
  if (g.backend == GemmBackend::CublasLt || !g.side.empty() || g.invScaleA < 0 || g.invScaleB < 0)
    return false;
  if (!isFloat8(buffers[static_cast<size_t>(g.a)].type.dtype()))
    return false;
  return g.aux < 0 && g.transD < 0 && g.epiIn < 0 && g.colSum < 0 && g.epiD < 0 && g.b2 < 0 &&
         !g.blockCast && g.aPadded < 0 && g.dPadded < 0 && g.biasFallback.empty() &&
         g.auxFallback.empty() && g.transFallback.empty();
}

} // namespace

void attachSideLaunches(std::vector<Step> &steps, const std::vector<BufferDesc> &buffers) {
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    auto *g = std::get_if<GemmStep>(&steps[i]);
    const auto *l = std::get_if<GeneratedLaunch>(&steps[i + 1]);
    if (!g || !l || l->sideSpec.empty() || l->buffers.size() > 32 || !mayCarrySide(*g, buffers))
      continue;
    const std::vector<int> mine = buffersOf(steps[i]);
    const std::set<int> gemmBuffers(mine.begin(), mine.end());
    if (std::any_of(l->buffers.begin(), l->buffers.end(),
                    [&](int b) { return gemmBuffers.count(b) > 0; }))
      continue;
    g->side.push_back(*l);
    g->description += "; beside it " + l->kernelName;
    steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(i + 1));
  }
}

} // namespace fp8c::codegen
