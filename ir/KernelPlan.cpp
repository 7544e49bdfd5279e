// The names of the plan's enums, the readers of a kernel's plan and its rules (KernelPlan.h).
#include "ir/KernelPlan.h"

#include "ir/IR.h"

#include <fmt/format.h>

namespace fp8c {

std::string_view kernelKindName(KernelKind k) {
  switch (k) {
  case KernelKind::Gemm:
    return "gemm";
  case KernelKind::Pointwise:
    return "pointwise";
  case KernelKind::Reduce:
    return "reduce";
  }
  return "?";
}

std::optional<KernelKind> parseKernelKind(std::string_view s) {
  for (KernelKind k : {KernelKind::Gemm, KernelKind::Pointwise, KernelKind::Reduce})
    if (s == kernelKindName(k))
      return k;
  return std::nullopt;
}

std::string_view opRoleName(OpRole r) {
  switch (r) {
  case OpRole::Prologue:
    return "prologue";
  case OpRole::Main:
    return "main";
  case OpRole::Epilogue:
    return "epilogue";
  case OpRole::Body:
    return "body";
  }
  return "?";
}

std::optional<OpRole> parseOpRole(std::string_view s) {
  for (OpRole r : {OpRole::Prologue, OpRole::Main, OpRole::Epilogue, OpRole::Body})
    if (s == opRoleName(r))
      return r;
  return std::nullopt;
}

std::string_view kernelBackendName(KernelBackend b) {
  switch (b) {
  case KernelBackend::Generated:
    return "generated";
  case KernelBackend::CublasLt:
    return "cublaslt";
  }
  return "?";
}

std::optional<KernelBackend> parseKernelBackend(std::string_view s) {
  for (KernelBackend b : {KernelBackend::Generated, KernelBackend::CublasLt})
    if (s == kernelBackendName(b))
      return b;
  return std::nullopt;
}

bool isGemmOp(OpKind k) {
  return k == OpKind::ScaledMatmul || k == OpKind::Linear || k == OpKind::Matmul;
}

namespace {

/// The string value of attribute `name`, or nothing.
std::optional<std::string_view> stringAttr(const AttrDict &attrs, std::string_view name) {
  const Attribute *a = attrs.get(name);
  if (!a || a->kind() != AttrKind::String)
    return std::nullopt;
  return std::string_view(a->asString());
}

} // namespace

KernelKind kernelKindOf(const Op &kernel) {
  auto s = stringAttr(kernel.attrs(), kKernelKindAttr);
  return s ? parseKernelKind(*s).value_or(KernelKind::Pointwise) : KernelKind::Pointwise;
}

OpRole opRoleOf(const Op &op) {
  auto s = stringAttr(op.attrs(), kOpRoleAttr);
  return s ? parseOpRole(*s).value_or(OpRole::Body) : OpRole::Body;
}

KernelBackend kernelBackendOf(const Op &kernel) {
  auto s = stringAttr(kernel.attrs(), kKernelBackendAttr);
  return s ? parseKernelBackend(*s).value_or(KernelBackend::Generated) : KernelBackend::Generated;
}

GemmBackend kernelGemmBackendOf(const Op &kernel) {
  auto s = stringAttr(kernel.attrs(), kKernelGemmBackendAttr);
  return s ? parseGemmBackend(*s).value_or(GemmBackend::Auto) : GemmBackend::Auto;
}

std::vector<KernelPlanError> checkKernelPlan(const AttrDict &kernelAttrs,
                                             const std::vector<KernelPlanOp> &ops) {
  std::vector<KernelPlanError> errors;
  auto kernelError = [&](std::string m) { errors.push_back({std::nullopt, std::move(m)}); };
  auto opError = [&](size_t i, std::string m) { errors.push_back({i, std::move(m)}); };
  auto s = stringAttr(kernelAttrs, kKernelKindAttr);
  const std::optional<KernelKind> kind = s ? parseKernelKind(*s) : std::nullopt;
  if (!kind)
    return errors; // an unknown or missing kind is checkAttributes' error
  const bool gemm = *kind == KernelKind::Gemm;
  const char *planNote = "(a gemm kernel carries its fusion plan: backend, gemm_backend and "
                         "each op's fp8.role; `fuse` writes them)";

  // The kernel's attributes (their kinds are checkAttributes'; Ops.def).
  auto checkName = [&](std::string_view attr, auto parse, std::string_view known) {
    const Attribute *a = kernelAttrs.get(attr);
    if (!a) {
      if (gemm)
        kernelError(fmt::format("requires attribute '{}' {}", attr, planNote));
      return;
    }
    if (a->kind() == AttrKind::String && !parse(a->asString()))
      kernelError(fmt::format("attribute '{}' has value {}; expected one of: {}", attr, a->str(),
                              known));
  };
  checkName(kKernelBackendAttr, parseKernelBackend, "generated, cublaslt");
  checkName(kKernelGemmBackendAttr, parseGemmBackend, gemmBackendNames());

  // Roles, then what they say about dependences: mainOf[i] is a main op that ops[i] is
  // computed from (within the region), if any.
  std::vector<std::optional<OpRole>> roles(ops.size());
  std::vector<std::optional<size_t>> mainOf(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const KernelPlanOp &op = ops[i];
    if (!op.role) {
      if (gemm)
        opError(i, fmt::format("requires attribute '{}' inside a gemm kernel {}", kOpRoleAttr,
                               planNote));
    } else if (op.role->kind() != AttrKind::String) {
      opError(i, fmt::format("attribute '{}' must be a string, got {}", kOpRoleAttr,
                             op.role->str()));
    } else if (!(roles[i] = parseOpRole(op.role->asString()))) {
      opError(i, fmt::format("attribute '{}' has value {}; expected one of: prologue, main, "
                             "epilogue, body",
                             kOpRoleAttr, op.role->str()));
    }
    for (size_t u : op.uses)
      if (u < i && !mainOf[i])
        mainOf[i] = roles[u] == OpRole::Main ? std::optional<size_t>(u) : mainOf[u];
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!roles[i])
      continue;
    const KernelPlanOp &op = ops[i];
    const OpRole r = *roles[i];
    const std::string_view name = opRoleName(r);
    if (gemm && isGemmOp(op.kind) && r != OpRole::Main)
      opError(i, fmt::format("is a GEMM of a gemm kernel, so its role is 'main', not '{}'", name));
    else if (r == OpRole::Main && !gemm)
      opError(i, fmt::format("has role 'main' in a {} kernel; only the GEMMs of a gemm kernel "
                             "are 'main'",
                             kernelKindName(*kind)));
    else if (r == OpRole::Main && !isGemmOp(op.kind))
      opError(i, "has role 'main' but is not a GEMM (fp8.scaled_matmul, fp8.linear, fp8.matmul)");
    else if (r == OpRole::Body && gemm)
      opError(i, "has role 'body' in a gemm kernel, whose ops are 'prologue', 'main' or "
                 "'epilogue'");
    else if (r == OpRole::Prologue && mainOf[i])
      opError(i, fmt::format("has role 'prologue' but is computed from the GEMM {} (role 'main'); "
                             "an op after the GEMM is 'epilogue'",
                             ops[*mainOf[i]].name));
    else if (r == OpRole::Epilogue && !mainOf[i])
      opError(i, "has role 'epilogue' but is not computed from a GEMM of the kernel; an op "
                 "before the GEMM is 'prologue'");
  }
  return errors;
}

} // namespace fp8c
