// `fp8c --frontend=mlir`: read fp8c's text format with MLIR's parser instead of fp8c's own.
#pragma once

#include "ir/Diagnostics.h"
#include "ir/IR.h"

#include <memory>
#include <string>
#include <string_view>

namespace fp8c {

/// Parses `text` (named `filename` in diagnostics; its first line is numbered `firstLine`, as
/// in parseModule) with MLIR's parser and the fp8 dialect, imports the upstream ops fp8c maps
/// exactly (dialects/fp8/Import.h), and translates the result into fp8c's IR, names and
/// locations kept. Returns null after emitting at least one located error: MLIR's parse
/// errors, import errors, and anything fp8c's IR cannot hold.
///
/// Like parseModule it does not verify: the caller runs fp8c's verifier, which then reports
/// every rule with fp8c's own message. (MLIR's verifier runs only where the file holds
/// upstream ops, which the import needs verified.)
std::unique_ptr<Module> parseWithMlir(std::string_view text, const std::string &filename,
                                      DiagnosticEngine &diag, uint32_t firstLine = 1);

} // namespace fp8c
