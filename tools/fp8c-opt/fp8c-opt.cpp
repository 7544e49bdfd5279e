// fp8c-opt: mlir-opt for fp8c. MlirOptMain with the fp8, func (and, for --fp8c-import, linalg,
// arith, tensor) dialects, fp8c's passes as MLIR passes (dialects/fp8/Passes.h) and MLIR's
// generic transforms, printing in fp8c's text form:
//
//   fp8c-opt model.mlir                                  parse, verify, print (fp8c's text)
//   fp8c-opt model.mlir --fp8c-pipeline="recipe=tensorwise"
//   fp8c-opt model.mlir --fp8c-pipeline="passes=canonicalize,cse,dce"
//   fp8c-opt model.mlir --fp8c-verify                    fp8c's function-level rules too
//   fp8c-opt upstream.mlir --fp8c-import                 linalg.matmul etc. -> fp8 ops
//   fp8c-opt model.mlir --print-mlir                     MLIR's own output (`module`, %argN)
//
// Around MlirOptMain: fp8c-opt splits --split-input-file chunks itself, so that diagnostics
// carry the file's name and line numbers (as fp8c's do) rather than MLIR 19's
// "within split at FILE:N offset :L:C"; it records the names MLIR's parser drops before the
// user's passes and prints fp8c's text form after them (dialects/fp8/TextIO.h). Diagnostics do
// not dump the failing op (--mlir-print-op-on-diagnostic defaults to false here), as fp8c's
// do not. A chunk nested deeper than MLIR's parser can take (findExcessiveNesting) is an error
// before MLIR sees it.
#include "dialects/fp8/Fp8Dialect.h"
#include "dialects/fp8/Passes.h"
#include "dialects/fp8/TextIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>
#include <string>
#include <vector>

namespace {

llvm::cl::opt<bool> mlirOutput("print-mlir",
                               llvm::cl::desc("print MLIR's own output (a `module`, function "
                                              "arguments as %argN) instead of fp8c's text form"),
                               llvm::cl::init(false));

struct Chunk {
  llvm::StringRef text;
  unsigned firstLine;
};

/// Splits at lines that are exactly `marker` (trailing blanks aside), as fp8c's splitInputFile.
std::vector<Chunk> split(llvm::StringRef text, llvm::StringRef marker) {
  std::vector<Chunk> chunks;
  size_t chunkStart = 0, pos = 0;
  unsigned chunkLine = 1, line = 1;
  while (true) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == llvm::StringRef::npos ? text.size() : eol;
    if (text.slice(pos, end).rtrim(" \t\r") == marker) {
      chunks.push_back({text.slice(chunkStart, pos), chunkLine});
      chunkStart = eol == llvm::StringRef::npos ? text.size() : eol + 1;
      chunkLine = line + 1;
    }
    if (eol == llvm::StringRef::npos)
      break;
    pos = eol + 1;
    ++line;
  }
  chunks.push_back({text.substr(chunkStart), chunkLine});
  return chunks;
}

} // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fp8c::fp8::registerFp8cDialects(registry);
  fp8c::fp8::registerFp8cPasses();
  mlir::registerTransformsPasses();

  std::vector<char *> args(argv, argv + argc);
  std::string quietOps = "--mlir-print-op-on-diagnostic=false";
  args.insert(args.begin() + 1, quietOps.data()); // the user's own flag, later, wins
  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(static_cast<int>(args.size()), args.data(),
                                       "fp8c-opt: MLIR driver for fp8c's fp8 dialect\n", registry);
  const mlir::MlirOptMainConfig base = mlir::MlirOptMainConfig::createFromCLOptions();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "fp8c-opt: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "fp8c-opt: " << error << "\n";
    return 1;
  }

  const std::string bufferName = input->getBufferIdentifier().str();
  const std::string marker = base.inputSplitMarker().str();
  std::vector<Chunk> chunks = marker.empty() ? std::vector<Chunk>{{input->getBuffer(), 1}}
                                             : split(input->getBuffer(), marker);
  bool ok = true;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0)
      output->os() << (base.outputSplitMarker().empty() ? llvm::StringRef("// -----")
                                                        : base.outputSplitMarker())
                   << "\n";
    output->os().flush(); // keeps outputs and diagnostics in order on a terminal or a pipe
    // Blank lines in front keep the chunk's line numbers those of the file.
    std::string text(chunks[i].firstLine - 1, '\n');
    text += chunks[i].text.str();
    // MLIR's parser recurses per bracket level: text nested deeper than it can take is an
    // error here, in the form of MLIR's own diagnostics, before it could exhaust the stack.
    if (std::optional<fp8c::fp8::NestingError> deep = fp8c::fp8::findExcessiveNesting(text)) {
      llvm::errs() << bufferName << ":" << deep->line << ":" << deep->col
                   << ": error: " << deep->message << "\n";
      ok = false;
      continue;
    }
    std::string fp8cText, mlirText;
    llvm::raw_string_ostream fp8cOut(fp8cText), mlirOut(mlirText);
    mlir::MlirOptMainConfig config = base;
    config.splitInputFile("");
    config.setPassPipelineSetupFn([&](mlir::PassManager &pm) -> mlir::LogicalResult {
      pm.addPass(fp8c::fp8::createRecordNamesPass(text, bufferName));
      if (mlir::failed(base.setupPassPipeline(pm)))
        return mlir::failure();
      if (!mlirOutput)
        pm.addPass(fp8c::fp8::createPrintFp8cTextPass(fp8cOut));
      return mlir::success();
    });
    ok = mlir::succeeded(mlir::MlirOptMain(
             mlirOut, llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), registry, config)) &&
         ok;
    output->os() << (mlirOutput ? mlirText : fp8cText);
    output->os().flush();
  }
  if (ok)
    output->keep();
  return ok ? 0 : 1;
}
