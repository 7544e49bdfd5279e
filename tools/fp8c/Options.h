// Command-line options of the fp8c driver and their parser.
#pragma once

#include "TargetArch.h"

#include "passes/Recipe.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fp8c::cli {

struct Options {
  std::string inputFile;               ///< FILE, or "-" for stdin
  std::optional<std::string> emit;     ///< "ir"
  std::string outputFile;              ///< -o; "" = stdout
  std::optional<std::string> run;      ///< "cpu" or "gpu"
  bool check = false;                  ///< --check: fail on non-finite values; GPU vs interpreter
  bool bench = false;                  ///< --bench: time the GPU run
  bool profile = false;                ///< --profile: per-step times with --bench
  std::optional<TargetArch> arch;      ///< --arch: NVRTC target (none: the device's)
  /// --backend=auto|cublaslt|generated (FP8 GEMMs), as the arch allows it (gemmBackendFor).
  GemmBackend backend = GemmBackend::Auto;
  bool autotune = true;                ///< --autotune=on|off (LoadOptions::autotune)
  std::vector<std::pair<std::string, std::string>> inputs; ///< --input NAME=FILE.npy
  std::optional<uint64_t> randomSeed;  ///< --random-inputs=SEED
  int64_t dynamicDim = 4;              ///< size given to `?` dims of random inputs
  std::string outputDir;               ///< --output-dir
  std::string funcName;                ///< --func
  std::string passes;                  ///< --passes=PIPELINE
  bool passesGiven = false;            ///< --passes appeared (possibly empty)
  bool recipeGiven = false;            ///< --recipe appeared (or --train, which defaults it)
  /// --recipe=NAME (the default pipeline) with --recipe-options, parsed once; std::nullopt for
  /// --recipe=none.
  std::optional<Recipe> recipe;
  bool train = false;                  ///< --train: forward + backward graphs
  int64_t tokens = 0;                  ///< --tokens=N (with --train)
  bool printIrAfterAll = false;
  std::vector<std::string> printIrAfter; ///< --print-ir-after=PASS
  bool verifyEach = false;
  bool printFusionPlan = false;
  bool compareUnquantized = false;     ///< --compare: run the input graph too and report error
  bool listPasses = false;
  std::string frontend = "fp8c";       ///< --frontend=fp8c|mlir
  bool printOutputs = false;
  bool splitInputFile = false;
  bool dtypeInfo = false;
  bool help = false;
};

/// Parses argv; on a bad option returns an error message (the caller prints usage).
std::optional<std::string> parseOptions(int argc, char **argv, Options &out);

/// The --help text.
const char *usageText();

} // namespace fp8c::cli
