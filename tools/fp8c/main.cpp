// fp8c: the command-line driver. Parses a graph file, verifies it, runs a pass pipeline
// (--passes / --recipe), prints the IR or the fusion plan, and runs it on the CPU interpreter. Only this file decides exit codes: 0 success, 1 user error (located
// diagnostics on stderr), 2 internal error.
#include "EmitBinary.h"
#include "EmitCuda.h"
#include "Options.h"
#include "OutputFile.h"
#include "RunCommand.h"

#include "passes/PassManager.h"
#include "passes/PassRegistry.h"
#include "passes/TrainingPipeline.h"
#include "ir/DType.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#ifdef FP8C_HAVE_MLIR
#include "dialects/fp8/MlirFrontend.h"
#endif

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>

namespace fp8c::cli {
namespace {

constexpr int kExitOk = 0, kExitUserError = 1, kExitInternalError = 2;

void printDTypeInfo(std::ostream &os) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %4s %14s %14s %14s %14s %12s\n", "dtype", "bits", "max",
                "min", "min normal", "min subnormal", "eps");
  os << line;
  for (DType t : kAllDTypes) {
    const DTypeInfo &i = dtypeInfo(t);
    std::snprintf(line, sizeof line, "%-10s %4d %14.8g %14.8g %14.8g %14.8g %12.8g\n",
                  std::string(i.name).c_str(), i.bits, i.max, i.lowest, i.minNormal,
                  i.minSubnormal, i.eps);
    os << line;
  }
}

// Parses (with fp8c's parser or MLIR's) and verifies one buffer; prints diagnostics. Null on
// error.
std::unique_ptr<Module> load(const Options &o, std::string_view text, const std::string &name,
                             uint32_t firstLine) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m;
  if (o.frontend == "mlir") {
#ifdef FP8C_HAVE_MLIR
    m = parseWithMlir(text, name, diag, firstLine);
#else
    std::cerr << "fp8c: error: --frontend=mlir: this fp8c was built without MLIR (install "
                 "libmlir-19-dev: scripts/setup, then rebuild)\n";
    return nullptr;
#endif
  } else {
    m = parseModule(text, name, diag, firstLine);
  }
  if (m && !verifyModule(*m, diag))
    m.reset();
  std::cerr << diag.str();
  return m;
}

// The target of --emit=cuda|ptx|cubin: --arch, else sm_90a (no device is asked).
std::string emitArch(const Options &o) { return o.arch ? o.arch->name : "sm_90a"; }

void printPassList(std::ostream &os) {
  for (const PassInfo &p : allPasses()) {
    os << p.name << ": " << p.description << "\n";
    for (const PassOptionInfo &opt : p.options)
      os << "    " << opt.name << "=" << opt.values
         << (opt.defaultValue.empty() ? "" : " (default " + opt.defaultValue + ")") << ": "
         << opt.description << "\n";
  }
}

// Handles one file or chunk: passes, then emit and/or run. Returns an exit status.
// --train: replaces each function F of `m` by F_fwd and F_bwd (TrainingPipeline.h).
int processTraining(const Options &o, Module &m, std::ostream &irOut) {
  TrainingPipelineOptions to;
  to.recipe = o.recipe;
  to.tokens = o.tokens;
  to.fuseOptions.gemmBackend = o.backend;
  to.verifyEach = true;
  to.printIrAfterAll = o.printIrAfterAll;
  to.dumpOut = &std::cerr;
  std::ostringstream plan;
  to.analysisOut = o.printFusionPlan ? &plan : nullptr;
  Module out;
  for (const auto &g : m.graphs()) {
    if (!o.funcName.empty() && g->name() != o.funcName)
      continue;
    DiagnosticEngine diag;
    Expected<TrainingGraphs> t = buildTrainingGraphs(*g, to, diag);
    std::cerr << diag.str();
    if (!t)
      return kExitUserError;
    out.add(std::move(t->forward));
    out.add(std::move(t->backward));
  }
  std::cout << plan.str();
  if (o.emit == "cuda")
    return emitCuda(out, emitArch(o), o.dynamicDim, irOut, std::cerr) ? kExitOk
                                                                               : kExitUserError;
  if (o.emit.has_value() || !o.printFusionPlan)
    printModule(out, irOut);
  return kExitOk;
}

// --func NAME must name a function of the file (or chunk): an error listing them otherwise.
bool checkFuncName(const Options &o, const Module &m, const std::string &name) {
  if (o.funcName.empty() || m.lookup(o.funcName))
    return true;
  std::string list;
  for (const auto &g : m.graphs())
    list += (list.empty() ? "@" : ", @") + g->name();
  std::cerr << "fp8c: error: --func " << o.funcName << ": " << name << " has no function '@"
            << o.funcName << "'; "
            << (list.empty() ? std::string("it has no functions") : "its functions: " + list)
            << "\n";
  return false;
}

// Without --recipe or --passes, what generates code or runs it (--emit=cuda|ptx|cubin,
// --run=gpu, --print-fusion-plan) and --compare, which compares the compiled graph with the
// graph as written, run the pipeline without a recipe; printing the IR and --run=cpu alone see
// the graph as written.
bool needsCompiledGraph(const Options &o) {
  return o.emit == "cuda" || o.emit == "ptx" || o.emit == "cubin" || o.run == "gpu" ||
         o.printFusionPlan || o.compareUnquantized;
}

int processModule(const Options &o, Module &m, std::string_view text, const std::string &name,
                  uint32_t firstLine, std::ostream &irOut) {
  if (!checkFuncName(o, m, name))
    return kExitUserError;
  if (o.train)
    return processTraining(o, m, irOut);
  std::unique_ptr<Module> reference;
  if (!o.passes.empty() || o.passesGiven) {
    if (o.passes.empty()) {
      std::cerr << "fp8c: error: --passes is empty; give a pipeline such as "
                   "'canonicalize,quantize{recipe=tensorwise},fuse,cse,dce'\n";
      return kExitUserError;
    }
  }
  for (const std::string &p : o.printIrAfter)
    if (!lookupPass(p)) {
      std::string known;
      for (const PassInfo &info : allPasses())
        known += (known.empty() ? "" : ", ") + info.name;
      std::cerr << "fp8c: error: --print-ir-after=" << p << ": unknown pass; known passes: "
                << known << "\n";
      return kExitUserError;
    }
  // The pipeline: --passes (its text parsed once, every fuse planning for --backend), else the
  // default pipeline of --recipe (or without one where a compiled graph is needed).
  PassManager pm;
  if (!o.passes.empty()) {
    if (Status s = pm.parsePipeline(o.passes, PipelineDefaults{o.backend}); !s) {
      std::cerr << "fp8c: error: " << s.message() << "\n";
      return kExitUserError;
    }
  } else if (o.recipeGiven || needsCompiledGraph(o)) {
    addDefaultPipeline(pm, o.recipe, FuseOptions{o.backend});
  }
  if (o.printFusionPlan && !pm.contains("fuse")) {
    std::cerr << "fp8c: error: --print-fusion-plan needs `fuse` in the pipeline (--recipe=R or "
                 "--passes=...,fuse)\n";
    return kExitUserError;
  }
  if (!pm.empty()) {
    if (o.compareUnquantized)
      reference = load(o, text, name, firstLine);
    pm.setVerifyEach(o.verifyEach);
    pm.setPrintIrAfterAll(o.printIrAfterAll);
    for (const std::string &p : o.printIrAfter)
      pm.addPrintIrAfter(p);
    pm.setDumpStream(&std::cerr);
    // The plan is printed only once the whole pipeline succeeded.
    std::ostringstream plan;
    if (o.printFusionPlan)
      pm.setAnalysisStream(&plan);
    DiagnosticEngine diag;
    bool ok = pm.run(m, diag) && verifyModule(m, diag);
    std::cerr << diag.str();
    if (!ok)
      return kExitUserError;
    std::cout << plan.str();
  }
  if (o.emit == "cuda")
    return emitCuda(m, emitArch(o), o.dynamicDim, irOut, std::cerr) ? kExitOk
                                                                               : kExitUserError;
  if (o.emit == "ptx" || o.emit == "cubin")
    return emitBinary(m, *o.emit, emitArch(o), o.dynamicDim, o.outputDir, irOut,
                      std::cerr)
               ? kExitOk
               : kExitUserError;
  bool emit = o.emit.has_value() || (!o.run.has_value() && !o.printFusionPlan);
  if (emit)
    printModule(m, irOut);
  if (o.run)
    return runOnCpu(o, m, reference.get(), std::cout) ? kExitOk : kExitUserError;
  return kExitOk;
}

int realMain(int argc, char **argv) {
  Options o;
  if (std::optional<std::string> err = parseOptions(argc, argv, o)) {
    std::cerr << "fp8c: error: " << *err << "\n";
    return kExitUserError;
  }
  if (o.help) {
    std::cout << usageText();
    return kExitOk;
  }
  if (o.dtypeInfo || o.listPasses) {
    if (o.dtypeInfo)
      printDTypeInfo(std::cout);
    if (o.listPasses)
      printPassList(std::cout);
    if (o.inputFile.empty())
      return kExitOk;
  }
  if (o.inputFile.empty()) {
    std::cerr << "fp8c: error: no input file (see --help)\n";
    return kExitUserError;
  }
  Expected<std::string> text = readSource(o.inputFile);
  if (!text) {
    std::cerr << "fp8c: error: " << text.error() << "\n";
    return kExitUserError;
  }
  std::string displayName = o.inputFile == "-" ? "<stdin>" : o.inputFile;

  std::unique_ptr<OutputFile> file;
  std::ostream *irOut = &std::cout;
  if (!o.outputFile.empty()) {
    Expected<std::unique_ptr<OutputFile>> f = OutputFile::open(o.outputFile);
    if (!f) {
      std::cerr << "fp8c: error: " << f.error() << "\n";
      return kExitUserError;
    }
    file = f.take();
    irOut = &file->stream();
  }

  std::vector<SourceChunk> chunks;
  if (o.splitInputFile)
    chunks = splitInputFile(*text);
  else
    chunks.push_back({*text, 1});
  int status = kExitOk;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0 && (o.emit || !o.run))
      *irOut << "// -----\n";
    std::unique_ptr<Module> m = load(o, chunks[i].text, displayName, chunks[i].firstLine);
    int s = m ? processModule(o, *m, chunks[i].text, displayName, chunks[i].firstLine, *irOut)
              : kExitUserError;
    if (s > status)
      status = s;
  }
  // An output that could not be written in full is an error, whatever else went right.
  for (Status written : {file ? file->close() : Status::ok(), flushStdout()})
    if (!written) {
      std::cerr << "fp8c: error: " << written.message() << "\n";
      status = std::max(status, kExitUserError);
    }
  return status;
}

} // namespace
} // namespace fp8c::cli

int main(int argc, char **argv) {
  try {
    return fp8c::cli::realMain(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << "fp8c: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "fp8c: internal error: unknown exception\n";
  }
  return fp8c::cli::kExitInternalError;
}
