// The verifier: structural and type rules of graphs. Each violated rule is one located
// diagnostic, `file:line:col: error: 'fp8.linear' op K mismatch: ...`.
//
// Rules: operand and result counts (Ops.def); attribute names, kinds and values; operand types
// and result types (TypeRules); operands defined before use; func.return last in the body,
// matching the signature; fp8.kernel has a region whose block arguments match its operands,
// which ends in fp8.yield matching its results, and which uses no value defined outside it;
// no region on other ops; no nested kernels; function inputs dynamic only in the leading dim;
// `fp8.state` keys paired between one input and one output of the same type; the fusion plan
// of each kernel (checkKernelPlan, ir/KernelPlan.h): a gemm kernel's backend, gemm_backend and
// op roles, GEMMs `main`, `prologue` ops not computed from one, `epilogue` ops computed from
// one; `fp8.role` only on ops of a kernel region.
#pragma once

#include "ir/Diagnostics.h"
#include "ir/IR.h"

namespace fp8c {

/// Verifies one graph; returns true when it is valid (diagnostics untouched then).
bool verifyGraph(const Graph &g, DiagnosticEngine &diag);
/// Verifies every graph of the module; also rejects two functions of the same name.
bool verifyModule(const Module &m, DiagnosticEngine &diag);

} // namespace fp8c
