// Translation between an MLIR module of func.func + fp8 ops and an fp8c Module (ir/IR.h), both
// ways. What fp8c's IR holds survives a round trip: functions, their inputs (names, types,
// `fp8.state` and other attributes) and results (types, attributes), ops with their
// attributes, kernel regions, SSA names (NameLoc, see Fp8Dialect.h) and op locations
// (FileLineColLoc <-> fp8c::Location). Function inputs have no location of their own in fp8c:
// back in MLIR they are located at their function.
#pragma once

#include "ir/Diagnostics.h"
#include "ir/IR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>

namespace fp8c::fp8 {

/// Translates every func.func of `module` into a Graph. Anything fp8c's IR cannot hold (an op
/// that is neither an fp8 op nor func.return, a type that is not an fp8c tensor type, an
/// attribute value that is not a bool, integer, string or dtype) is an error located at the
/// op and naming it. Does not verify: like fp8c's parser, it returns what it read, and
/// verifyModule (ir/Verifier.h) judges it. Null after at least one error.
std::unique_ptr<Module> translateToFp8c(mlir::ModuleOp module, DiagnosticEngine &diag);

/// Builds a module of func.func + fp8 ops from `m`. The fp8 and func dialects are loaded into
/// `ctx`. Never fails on a verified module; an operand used before its definition (possible
/// only in an unverified one) is an error, and the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> translateFromFp8c(const Module &m, mlir::MLIRContext *ctx,
                                                    DiagnosticEngine &diag);

} // namespace fp8c::fp8
