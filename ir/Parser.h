// Parser for fp8c's text format, which is MLIR syntax:
//
//   module  ::= func* | `module` `{` func* `}`
//   func    ::= `func.func` symbol `(` (arg (`,` arg)*)? `)` (`->` results)? `{` op* `}`
//   symbol  ::= `@`bare-id | `@`string
//   arg     ::= `%`name `:` type attr-dict?
//   results ::= type | `(` (type attr-dict? (`,` type attr-dict?)*)? `)`
//   op      ::= (`%`name (`,` `%`name)* `=`)? op-name operand-list attr-dict? `:` fn-type region?
//             | `fp8.kernel` string? `(` operand-list `)` attr-dict? `:` fn-type region?
//             | (`return` | `func.return` | `fp8.yield`) operand-list attr-dict? (`:` type-list)?
//   fn-type ::= `(` type-list? `)` `->` (type | `(` type-list? `)`)
//   region  ::= `{` `^`label (`(` (arg (`,` arg)*)? `)`)? `:` op* `}`    (args take no attr-dict)
//   type    ::= `tensor<` (dim `x`)* dtype `>`,  dim ::= integer | `?`
//   attr-dict ::= `{` (attr-name `=` value (`,` attr-name `=` value)*)? `}`
//   attr-name ::= bare-id | string
//   value   ::= `true` | `false` | integer (`:` (`i64` | `i32`))? | string | dtype
// The kernel's string is its `kind` attribute. A terminator lists types exactly when it has
// operands. Regions on ops other than fp8.kernel, a kernel without a region or kind, attributes
// on terminators and nesting are accepted here and rejected by the verifier (nesting deeper than
// 32 regions is a parse error). The `module` wrapper and `: i64` are MLIR spellings that are
// accepted but never printed.
// Comments run from `//` to the end of the line. SSA names are unique within a function
// (kernel regions included); a value is used after its definition, and a value defined in a
// kernel region only inside that region. An op's location is its first token, as in MLIR.
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

/// Reads a whole file; "-" reads standard input. A file or stream longer than 1 GiB is an
/// error (so is a directory), as is one that cannot be opened (with the system's reason).
Expected<std::string> readSource(const std::string &path);

/// One chunk of a file split at lines `// -----` (mlir-opt's --split-input-file).
struct SourceChunk {
  std::string_view text;
  uint32_t firstLine; ///< line number of the chunk's first line in the file
};
std::vector<SourceChunk> splitInputFile(std::string_view text);

} // namespace fp8c
