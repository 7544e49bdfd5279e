// Backend choice per planned kernel (see FusionBackend.h); what cuBLASLt takes is
// GemmCapabilities'.
#include "passes/FusionBackend.h"

#include "passes/GemmCapabilities.h"

#include <algorithm>

namespace fp8c {

void chooseBackend(PlannedKernel &k) {
  if (k.kind != KernelKind::Gemm) {
    k.backend = KernelBackend::Generated;
    const bool pushesOnly =
        !k.ops.empty() && std::all_of(k.ops.begin(), k.ops.end(), [](const Op *op) {
          return op->kind() == OpKind::HistoryPush;
        });
    if (pushesOnly) // codegen/Lowering.cpp, Lowerer::foldHistoryPushes
      k.backendReason = "the state update: each push joins the launch or GEMM that reduced its "
                        "amax where all can, else one launch at the end";
    return;
  }
  k.backend = KernelBackend::CublasLt;
  int mains = 0;
  for (Op *op : k.ops) {
    OpRole role = k.roles[op];
    mains += role == OpRole::Main;
    const std::string why = GemmCapabilities::cublasLtRefusal(k, op);
    // Generated only (no cuBLASLt form): this reason replaces one that has an "after cuBLASLt".
    if (GemmCapabilities::generatedOnly(k, op)) {
      k.backend = KernelBackend::Generated;
      k.backendReason = "the generated GEMM's epilogue writes the e4m3 copy %" +
                        op->result()->name() + " of its pre-activation (gelu_saved=e4m3)";
      continue;
    }
    if (!why.empty() && k.backend == KernelBackend::CublasLt) {
      k.backend = KernelBackend::Generated;
      k.backendReason = why;
    }
  }
  // The GELU beside its pre-activation (written out: the training step saves it) with the
  // GELU's amax and no cast in the kernel (current scaling): only the generated GEMM takes the
  // amax of its bf16 D.
  bool auxGelu = false, cast = false, amax = false;
  for (Op *op : k.ops) {
    if (k.roles[op] != OpRole::Epilogue)
      continue;
    cast |= op->kind() == OpKind::Cast;
    amax |= op->kind() == OpKind::Amax;
    if (op->kind() == OpKind::Gelu)
      for (Op *u : op->operand(0)->users())
        auxGelu |= !k.roles.count(u);
  }
  if (auxGelu && amax && !cast) {
    k.backend = KernelBackend::Generated;
    k.backendReason = "the generated GEMM writes the bf16 GELU, its amax and its input (cuBLASLt "
                      "takes the amax of an FP8 D only)";
  }
  if (mains > 1) {
    k.backend = KernelBackend::Generated;
    k.backendReason = "dual GEMM (gate and up share A) with a swiglu epilogue";
  }
}

} // namespace fp8c
