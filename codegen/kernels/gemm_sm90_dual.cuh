// The dual GEMM's swiglu (gemm_sm90.cuh with Dual): the gate and up projections of a SwiGLU MLP
// share A, so one kernel computes both. Each stage's B tile holds BN / 2 rows of the gate weight
// (mapB) followed by the same BN / 2 rows of the up weight (mapB2), so a warpgroup's accumulators
// for columns c and c + WN / 2 are gate and up of the same output column, held by the same
// thread at indices i and i + WN / 4 of the wgmma accumulator layout (per 8 columns, four values:
// rows r and r + 8, two columns each). The epilogue reduces them to the WN / 2 output columns in
// that same layout, which the usual epilogues then amax, cast and store.
#pragma once

#include "fp8c/common.cuh"
#include "fp8c/gemm_sm90_defs.cuh"
#include "fp8c/ops.cuh"

namespace fp8c {
namespace sm90 {

/// h = bf16(swiglu(bf16(gate * sa * gateScale), bf16(up * sa * upScale))): the graph's
/// roundings (the two GEMM results and the swiglu are bf16 values), the swiglu as the generated
/// launches compute it (op::swiglu); A's inverse scale and the weight's multiply one at a time,
/// as finishPair's. `acc` holds a warpgroup's WN columns (gate half, then up half). sa is A's
/// scale of the thread's two rows (Scale::Row) or of the tensor (Scale::Tensor; gateScale and
/// upScale are then the weights' tensor scales). With row scales each weight's column scale
/// comes from the pairs EpilogueInputs<..., Dual> staged in `cols` (gate pairs, then up pairs,
/// in the accumulator layout: value i sits in pair 4 (i / 4) + lane % 4, row half (i / 2) % 2,
/// element i % 2), as the plain row-scaled epilogue multiplies them.
template <int WN, Scale S>
__device__ __forceinline__ void swigluHalves(const float (&acc)[WN / 2], float (&h)[WN / 4],
                                             float gateScale, float upScale, const float (&sa)[2],
                                             const float4 *cols) {
  static_assert(WN % 16 == 0, "whole 8-column groups in each half");
  const int q = threadIdx.x % 4;
#pragma unroll
  for (int i = 0; i < WN / 4; ++i) {
    float gs = gateScale, us = upScale;
    const float rs = sa[(i / 2) % 2];
    if constexpr (S == Scale::Row) {
      const float4 cg = cols[4 * (i / 4) + q], cu = cols[WN / 4 + 4 * (i / 4) + q];
      gs = i % 2 ? cg.y : cg.x;
      us = i % 2 ? cu.y : cu.x;
    }
    const float gate = roundTo<Dt::BF16>(acc[i] * rs * gs);
    const float up = roundTo<Dt::BF16>(acc[i + WN / 4] * rs * us);
    h[i] = roundTo<Dt::BF16>(op::swiglu(gate, up));
  }
}

} // namespace sm90
} // namespace fp8c
