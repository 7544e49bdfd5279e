// The `fp8` MLIR dialect (Fp8Ops.td): op classes, the hooks their generated code calls, and
// the conversions between MLIR's and fp8c's types, attributes and locations that the verifier
// and the translation (Translate.h) share.
//
// SSA names. fp8c keeps the names of the source (`%h`, `%x`); MLIR renames values when it
// prints. The dialect keeps a value's name in the location of its definition, as a NameLoc
// (the convention of MLIR 20's --mlir-use-nameloc-as-prefix):
//   - an op result: the op's location is NameLoc("h", <file:line:col>); an op with several
//     results has FusedLoc<["a", "b"]>[<file:line:col>] (one name per result, "" = unnamed);
//   - a block argument (function input, kernel region argument): NameLoc("x", <file:line:col>).
// The fp8 ops' parsers record result names this way; getAsmResultNames and
// getAsmBlockArgumentNames print them back. Names of func.func arguments are recorded from the
// source by recordNamesFromSource (TextIO.h); printing them needs printFp8cText (MLIR 19's
// func.func has no naming hook).
#pragma once

#include "ir/Attribute.h"
#include "ir/Location.h"
#include "ir/OpKind.h"
#include "ir/Status.h"
#include "ir/Type.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <string>
#include <vector>

namespace fp8c::fp8 {

// --- hooks of the generated op classes (Fp8Ops.td) -----------------------------------------

mlir::ParseResult parseFp8Op(mlir::OpAsmParser &parser, mlir::OperationState &result);
void printFp8Op(mlir::Operation *op, mlir::OpAsmPrinter &printer);
/// fp8c's verifier rules for one op (ir/Verifier.h, same messages): counts, attributes, type
/// rules; for fp8.kernel its region (arguments, fp8.yield, values from outside); a non-final
/// fp8.yield or func.return; a function body that does not end in func.return.
mlir::LogicalResult verifyFp8Op(mlir::Operation *op);
void setResultNamesFromLoc(mlir::Operation *op, mlir::OpAsmSetValueNameFn setNameFn);
void setBlockArgNamesFromLoc(mlir::Region &region, mlir::OpAsmSetValueNameFn setNameFn);

} // namespace fp8c::fp8

#include "dialects/fp8/Fp8OpsDialect.h.inc"
#define GET_OP_CLASSES
#include "dialects/fp8/Fp8Ops.h.inc"

namespace fp8c::fp8 {

/// Adds the dialects an fp8c module is made of (fp8, func) and those the import of upstream
/// ops reads (linalg, arith, tensor).
void registerFp8cDialects(mlir::DialectRegistry &registry);

/// The fp8c op kind of an fp8 op or func.return; nullopt for anything else.
std::optional<OpKind> opKindOf(mlir::Operation *op);

// --- SSA names kept in locations (see the file comment) ------------------------------------

/// The recorded name of a value ("" when none).
std::string getValueName(mlir::Value value);
/// Records `name` for `value` (replacing any recorded name; "" removes it).
void setValueName(mlir::Value value, llvm::StringRef name);
/// `base` carrying one name per result of an op with `names.size()` results.
mlir::Location withResultNames(mlir::Location base, llvm::ArrayRef<std::string> names);
/// The location without the names recorded in it.
mlir::Location stripNames(mlir::Location loc);

// --- MLIR <-> fp8c conversions -------------------------------------------------------------

/// `tensor<...xDT>` with an fp8c dtype and static or dynamic dims; nullopt for any other type.
std::optional<TensorType> toTensorType(mlir::Type type);
mlir::RankedTensorType toMlirType(const TensorType &type, mlir::MLIRContext *ctx);
std::optional<DType> toDType(mlir::Type elementType);
mlir::Type toMlirElementType(DType dtype, mlir::MLIRContext *ctx);

/// An attribute value fp8c can hold (bool, integer, string, dtype), or an error message.
Expected<Attribute> toFp8cAttribute(mlir::Attribute attr);
mlir::Attribute toMlirAttribute(const Attribute &attr, mlir::MLIRContext *ctx);
/// A whole dictionary; the error names the offending attribute.
Expected<AttrDict> toAttrDict(mlir::DictionaryAttr dict);
mlir::DictionaryAttr toMlirDict(const AttrDict &dict, mlir::MLIRContext *ctx);

/// The file:line:col a location points at (through names, fusions and call sites), or
/// unknown.
Location toFp8cLocation(mlir::Location loc);
mlir::Location toMlirLocation(const Location &loc, mlir::MLIRContext *ctx);
/// `file:line:col`, or `<unknown>`, as fp8c prints a location.
std::string locationStr(mlir::Location loc);
/// A type as fp8c prints it (`tensor<4xf32>`); MLIR's spelling for any other type.
std::string typeStr(mlir::Type type);

} // namespace fp8c::fp8
