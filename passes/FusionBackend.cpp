// Backend choice per planned kernel (see FusionBackend.h).
#include "passes/FusionBackend.h"

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
    std::string why;
    if (role == OpRole::Prologue && op->kind() == OpKind::Cast)
      why = "casts A to FP8 in a prologue launch";
    else if (role == OpRole::Main && op->kind() == OpKind::ScaledMatmul &&
             op->operand(2)->type().rank() > 0 && k.ops.back() != op &&
             k.roles[k.ops.back()] == OpRole::Epilogue)
      why = "cuBLASLt's row and block scale modes allow no epilogue but bias";
    else if (role == OpRole::Epilogue && op->kind() == OpKind::Gelu &&
             op->strAttr("approximate") != "tanh")
      why = "cuBLASLt's GELU epilogue is the tanh form only";
    else if (role == OpRole::Epilogue && op->kind() == OpKind::Amax &&
             op->strAttr("granularity") != "tensor")
      why = "cuBLASLt reduces amax per tensor only";
    else if (role == OpRole::Epilogue && op->kind() == OpKind::Cast &&
             op->strAttr("granularity") != "tensor")
      why = "cuBLASLt writes FP8 with a per-tensor scale only";
    else if (role == OpRole::Epilogue &&
             (op->kind() == OpKind::GeluGrad || op->kind() == OpKind::ColSum))
      why = "gelu_grad reads the GELU's saved input in the generated GEMM's epilogue (after "
            "cuBLASLt, a cast-transpose launch from its bf16 result)";
    else if (role == OpRole::Prologue && op->kind() == OpKind::Convert &&
             isFloat8(op->operand(0)->type().dtype())) // the saved copy gelu_grad reads
      why = "gelu_grad reads the GELU's saved e4m3 copy in the generated GEMM's epilogue (after "
            "cuBLASLt, a cast-transpose launch from its bf16 result)";
    else if (role == OpRole::Epilogue && op->kind() == OpKind::Transpose)
      why = "the transposed FP8 output is written by the generated GEMM's epilogue (after "
            "cuBLASLt, by a transpose launch)";
    else if (role == OpRole::Epilogue &&
             (op->kind() == OpKind::Silu || op->kind() == OpKind::Swiglu ||
              op->kind() == OpKind::Add || op->kind() == OpKind::Mul ||
              op->kind() == OpKind::Convert || op->kind() == OpKind::Scale))
      why = "cuBLASLt has no " + std::string(op->name()) + " epilogue";
    // Generated only (no cuBLASLt form): this reason replaces one that has an "after cuBLASLt".
    const bool only = role == OpRole::Epilogue && op->kind() == OpKind::Convert &&
                      isFloat8(op->result()->type().dtype());
    if (only) {
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
