// fp8c as MLIR passes, on a module of func.func + fp8 ops:
//   --fp8c-verify                        translate to fp8c's IR and run fp8c's verifier
//                                        (the function-level rules: fp8.state pairs, dynamic
//                                        dims of inputs, ...), messages as fp8c words them
//   --fp8c-pipeline="recipe=tensorwise"  translate, verify, run fp8c's default pipeline for a
//   --fp8c-pipeline="passes=cse,dce"     recipe or any fp8c pipeline (passes/PassManager.h),
//                                        and translate back
//   --fp8c-roundtrip                     translate to fp8c's IR and back, nothing else
//   --fp8c-import                        import upstream ops (Import.h)
// fp8c's diagnostics become MLIR diagnostics at the same locations.
#pragma once

#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace fp8c::fp8 {

/// Registers the passes above (for mlir-opt-style tools' command lines).
void registerFp8cPasses();

std::unique_ptr<mlir::Pass> createVerifyPass();
/// `pipeline` is an fp8c pipeline string; empty = the default pipeline for `recipe`.
std::unique_ptr<mlir::Pass> createPipelinePass(std::string recipe, std::string pipeline);
std::unique_ptr<mlir::Pass> createRoundTripPass();
std::unique_ptr<mlir::Pass> createImportPass();

// Passes fp8c-opt puts around the user's pipeline (not registered):
/// Records the names the source gives values MLIR's parser keeps no name for (TextIO.h).
std::unique_ptr<mlir::Pass> createRecordNamesPass(std::string text, std::string bufferName);
/// Prints the module in fp8c's text form to `os` (TextIO.h); changes nothing.
std::unique_ptr<mlir::Pass> createPrintFp8cTextPass(llvm::raw_ostream &os);

} // namespace fp8c::fp8
