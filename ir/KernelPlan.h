// The fusion plan as the IR carries it (docs/architecture.md, "The fusion plan"): an
// `fp8.kernel` holds its `kind` (gemm, pointwise, reduce), its `backend` (generated, cublaslt)
// and, for a gemm kernel, `gemm_backend` (who runs its FP8 GEMMs, GemmBackend); each op of a
// kernel region holds its role, `fp8.role` (prologue, main, epilogue, body). `fuse` writes them
// from its plan (passes/FusionPlan.h), the verifiers check them (checkKernelPlan) and codegen
// reads them. The name <-> enum functions below are the only place the names are spelled.
#pragma once

#include "ir/Attribute.h"
#include "ir/GemmBackend.h"
#include "ir/OpKind.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

class Op;

enum class KernelKind { Gemm, Pointwise, Reduce };
/// "gemm", "pointwise" or "reduce".
std::string_view kernelKindName(KernelKind k);
/// The kind named `s`, or nothing for a name that is not one of kernelKindName's.
std::optional<KernelKind> parseKernelKind(std::string_view s);

/// Where an op sits in its kernel: before the GEMM (prologue), the GEMM itself (main), computed
/// from the GEMM's result (epilogue), or an op of a pointwise or reduce kernel (body).
enum class OpRole { Prologue, Main, Epilogue, Body };
/// "prologue", "main", "epilogue" or "body".
std::string_view opRoleName(OpRole r);
/// The role named `s`, or nothing for a name that is not one of opRoleName's.
std::optional<OpRole> parseOpRole(std::string_view s);

/// Where a kernel runs: a generated launch (or generated GEMM), or cuBLASLt.
enum class KernelBackend { Generated, CublasLt };
/// "generated" or "cublaslt".
std::string_view kernelBackendName(KernelBackend b);
/// The backend named `s`, or nothing for a name that is not one of kernelBackendName's.
std::optional<KernelBackend> parseKernelBackend(std::string_view s);

/// The attributes holding the plan: of fp8.kernel, and of each op of its region.
inline constexpr std::string_view kKernelKindAttr = "kind";
inline constexpr std::string_view kKernelBackendAttr = "backend";
inline constexpr std::string_view kKernelGemmBackendAttr = "gemm_backend";
inline constexpr std::string_view kOpRoleAttr = "fp8.role";

/// The ops that are the `main` of a gemm kernel: fp8.scaled_matmul, fp8.linear, fp8.matmul.
bool isGemmOp(OpKind k);

// Readers of a verified kernel (absent attributes: what a pointwise or reduce kernel written
// without them means).
/// Its kind; Pointwise where the attribute is absent or unknown.
KernelKind kernelKindOf(const Op &kernel);
/// The role of an op of a kernel region; Body where absent.
OpRole opRoleOf(const Op &op);
/// Its backend; Generated where absent.
KernelBackend kernelBackendOf(const Op &kernel);
/// Who runs its FP8 GEMMs; Auto where absent.
GemmBackend kernelGemmBackendOf(const Op &kernel);

/// One op of a kernel region, as checkKernelPlan sees it (the region's terminator excluded).
struct KernelPlanOp {
  OpKind kind;
  const Attribute *role = nullptr; ///< its fp8.role, null where absent
  std::vector<size_t> uses;        ///< the earlier region ops whose results it reads
  std::string name;                ///< `%y`, for messages
};

/// A violated rule: at ops[*op], or at the kernel where `op` is empty.
struct KernelPlanError {
  std::optional<size_t> op;
  std::string message;
};

/// The rules of the plan (ir/Verifier.h), shared by fp8c's verifier and the MLIR
/// dialect's: `backend`, `gemm_backend` and each `fp8.role` name a known value; a gemm kernel
/// has `backend`, `gemm_backend` and a role on every op; its GEMM ops, and only they, are
/// `main`; a `prologue` op does not depend on a `main` op, an `epilogue` op does; a gemm kernel
/// has no `body` op and a pointwise or reduce kernel no `main` one.
std::vector<KernelPlanError> checkKernelPlan(const AttrDict &kernelAttrs,
                                             const std::vector<KernelPlanOp> &ops);

} // namespace fp8c
