// Parser for fp8c's text format, which is MLIR syntax (DESIGN.md section 3):
//
//   module  ::= func*
//   func    ::= `func.func` `@`name `(` (arg (`,` arg)*)? `)` (`->` results)? `{` op* `}`
//   arg     ::= `%`name `:` type attr-dict?
//   results ::= type | `(` (type attr-dict? (`,` type attr-dict?)*)? `)`
//   op      ::= (`%`name (`,` `%`name)* `=`)? op-name operand-list attr-dict? `:` fn-type
//             | `fp8.kernel` string `(` operand-list `)` attr-dict? `:` fn-type region
//             | (`return` | `func.return` | `fp8.yield`) (operand-list `:` type-list)?
//   fn-type ::= `(` type-list? `)` `->` (type | `(` type-list? `)`)
//   region  ::= `{` `^bb0` (`(` arg (`,` arg)* `)`)? `:` op* `}`
//   type    ::= `tensor<` (dim `x`)* dtype `>`,  dim ::= integer | `?`
//   attr-dict ::= `{` (name `=` value (`,` name `=` value)*)? `}`
//   value   ::= `true` | `false` | integer | string | dtype
// Comments run from `//` to the end of the line. SSA names are unique within a function.
// An op's location is its first token, as in MLIR.
#pragma once

#include "ir/Diagnostics.h"
#include "ir/IR.h"
#include "ir/Status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

/// Parses `text` (named `filename` in diagnostics; its first line is numbered `firstLine`).
/// Returns null after emitting at least one located error. Never crashes on malformed input.
/// Does not run the verifier.
std::unique_ptr<Module> parseModule(std::string_view text, const std::string &filename,
                                    DiagnosticEngine &diag, uint32_t firstLine = 1);

/// Reads a whole file; "-" reads standard input.
Expected<std::string> readSource(const std::string &path);

/// One chunk of a file split at lines `// -----` (mlir-opt's --split-input-file).
struct SourceChunk {
  std::string_view text;
  uint32_t firstLine; ///< line number of the chunk's first line in the file
};
std::vector<SourceChunk> splitInputFile(std::string_view text);

} // namespace fp8c
