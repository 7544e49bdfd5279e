// fp8c's text form through MLIR: the names MLIR's parser does not keep, and a printer whose
// output is exactly what fp8c's printer (ir/Printer.cpp) prints for the same graph.
//
// MLIR 19 keeps the names of the fp8 ops' results (the ops' parsers record them, Fp8Dialect.h)
// but not those of func.func's arguments, and its printer has no hook to name them (MLIR 20's
// --mlir-use-nameloc-as-prefix is that hook). So:
//   - recordNamesFromSource reads the missing names back from the source text, at the
//     locations MLIR's parser gave the values;
//   - printFp8cText prints every func.func with MLIR's printer (the fp8 ops' custom syntax,
//     func.func's own), after which each SSA name is set to the one fp8c's printer chooses for
//     the same value: MLIR prints function arguments as %argN and numbers unnamed values in
//     its own order (the whole block before nested regions), fp8c in text order. It also
//     prints the `^bb0:` header MLIR leaves out of a kernel region without arguments, and no
//     `module { }` wrapper. Everything else is MLIR's printer's output, unchanged.
// And a guard for MLIR's recursive-descent parser: findExcessiveNesting rejects text nested
// deeper than it can parse without exhausting the stack, as fp8c's parser limits its regions.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <string_view>

namespace fp8c::fp8 {

/// The deepest nesting of brackets ( (), [], {}, <> ) in text handed to MLIR's parser, which
/// recurses once or more per level: a few thousand levels exhaust the stack. fp8c's own text
/// stays far below it (its parser allows 32 nested regions, each a few brackets deep).
constexpr unsigned kMaxMlirNestingDepth = 256;

/// Where text nests brackets deeper than kMaxMlirNestingDepth, and the error to report there.
struct NestingError {
  unsigned line = 0, col = 0; ///< 1-based, of the first bracket past the limit
  std::string message;        ///< "brackets nested deeper than 256 levels"
};

/// Scans `text` as MLIR's lexer would (`//` comments, string literals, `->`) and counts the
/// nesting of its brackets, before MLIR's parser sees it. A `>` closes only a `<`.
std::optional<NestingError> findExcessiveNesting(std::string_view text);

/// Records (as NameLoc, see Fp8Dialect.h) the names of the block arguments under `root` and of
/// single results that have none (upstream ops, fp8 ops in MLIR's generic form), reading
/// `text` (the buffer called `bufferName` in locations) at each value's location. Values
/// without a location in that buffer are left alone.
void recordNamesFromSource(mlir::Operation *root, llvm::StringRef text, llvm::StringRef bufferName);

/// Prints `module`'s ops in fp8c's text form: functions separated by a blank line, each
/// ending in a newline. Ops other than func.func, and functions that hold ops other than fp8
/// ops and func.return (upstream ops before import), print as MLIR prints them.
void printFp8cText(mlir::ModuleOp module, llvm::raw_ostream &os);
std::string toFp8cText(mlir::ModuleOp module);

} // namespace fp8c::fp8
