// Which backend a planned kernel goes to: cuBLASLt where it can take the whole kernel (its
// epilogues: bias, GELU (tanh), ReLU, AMAX_D and an FP8 D with a per-tensor scale; row and
// 128-block scale modes with bias only), else a generated kernel, with the reason.
#pragma once

#include "passes/FusionPlan.h"

namespace fp8c {

/// Sets k.backend and k.backendReason.
void chooseBackend(PlannedKernel &k);

} // namespace fp8c
