// Parsing of fp8c's command line. Options take `--name=value` or `--name value`.
#include "Options.h"

#include "codegen/LaunchPlan.h"

#include <charconv>
#include <string_view>

namespace fp8c::cli {
namespace {

bool parseInt(std::string_view s, int64_t &out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parseU64(std::string_view s, uint64_t &out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

const char *usageText() {
  return R"(usage: fp8c FILE [options]
       fp8c --dtype-info

Reads an fp8c graph (MLIR syntax; FILE '-' reads stdin), verifies it, and emits or runs it.

options:
  --emit=ir|cuda|ptx|cubin  print the (verified) IR (the default when nothing else is asked), the
                            generated CUDA C++, its PTX, or write each kernel's CUBIN to
                            --output-dir (NVRTC; no GPU needed); with the generated Hopper
                            GEMM kernels of the GEMM steps it runs (their tile heuristic at
                            M = --dynamic-dim, 132 SMs)
  -o OUT                    write the emitted IR to OUT instead of stdout
  --run=cpu|gpu             run the graph on the CPU interpreter or on GPU 0 (JIT through NVRTC)
  --check                   fail (exit 1) when an output holds NaN / inf or an amax history
                            skipped a non-finite amax (warnings name them); with --run=gpu also
                            compare every output with the interpreter
  --bench                   with --run=gpu: median time of many runs (CUDA events, warm-up excluded)
  --profile                 with --bench: also each kernel's / GEMM's median time (an event after
                            every step)
  --arch=sm_XX              NVRTC target (default: the device's; sm_90a on Hopper). The
                            generated GEMM (wgmma) needs sm_90a: with another arch, --backend=auto
                            plans cuBLASLt only, and --backend=generated is an error
  --backend=auto|cublaslt|generated
                            who runs the FP8 GEMMs (--run=gpu, --emit=cuda, --print-fusion-plan):
                            auto (default) cuBLASLt, and the generated Hopper GEMM where cuBLASLt
                            refuses the configuration or (--autotune) measured faster; cublaslt
                            only; or generated for every FP8 GEMM (bf16 GEMMs stay on cuBLASLt).
                            --run=gpu prints which ran
  --autotune=on|off         with --run=gpu on a Hopper GPU (default on): time a few tile configs
                            of the generated GEMM per FP8 GEMM of >= 256 rows at compile time
                            (the winner cached on disk with the kernels) and, with
                            --backend=auto, run each such GEMM on whichever of cuBLASLt and the
                            generated GEMM measured faster; off: the heuristics alone
  --input NAME=FILE.npy     value of input NAME (repeatable); .npy of <f4, or <f2 / raw bits
                            (<u2 for bf16, |u1 for FP8) matching the input's dtype
  --random-inputs=SEED      seeded random values for every input not given with --input
  --dynamic-dim=M           size of dynamic (?) dims for random inputs and of the generated
                            GEMMs that --emit shows (default 4)
  --output-dir DIR          write each output as DIR/NAME.npy (<f4)
  --passes=PIPELINE         run a pass pipeline, e.g. 'canonicalize,quantize{recipe=tensorwise},fuse,cse,dce'
  --recipe=NAME             the default pipeline with a recipe: tensorwise, delayed, rowwise, blockwise,
                            or none (no quantize: GEMMs and pointwise ops in the graph's own
                            precision; with --train the unquantized training step). Without
                            --recipe and --passes, --emit=cuda|ptx|cubin, --run=gpu,
                            --print-fusion-plan and --compare use the pipeline of none; --train
                            uses tensorwise
  --train                   print the training graphs: autodiff, the recipe's quantization of the
                            backward (e5m2 / blockwise gradients), split into @F_fwd (returning
                            the saved tensors, {fp8.saved}) and @F_bwd, each fused (with
                            --emit=cuda: their generated kernels)
  --tokens=N                with --train: the token count of a dynamic leading dim
  --recipe-options='K=V ..' with --train: more options of the recipe's quantization, e.g.
                            'bwd_fast_accum=true history_len=4' (the quantize pass's options)
  --print-ir-after-all      print the IR after every pass (to stderr)
  --print-ir-after=PASS     print the IR after each run of PASS (repeatable; to stderr)
  --verify-each             verify the IR after every pass
  --print-fusion-plan       print each kernel of `fuse`: its ops, backend, and what was not fused and why
  --compare                 with --run: also run the graph as written (before the passes) and print
                            the relative Frobenius error of each output against it
  --list-passes             list the passes and their options
  --print-outputs           print every output value (default: statistics per output)
  --func NAME               the function to run when the file holds several
  --split-input-file        treat each `// -----` chunk as a separate file
  --frontend=fp8c|mlir      parse with fp8c's own parser (default) or with MLIR and the fp8 dialect
                            (also imports linalg.matmul, arith.addf of a broadcast bias)
  --dtype-info              print bits, max, min, smallest normal and eps of each dtype
  --help                    this text

exit status: 0 success, 1 error in the input or its use, 2 internal error
)";
}

std::optional<std::string> parseOptions(int argc, char **argv, Options &o) {
  std::string recipeText, recipeOptions; // --recipe, --recipe-options: parsed at the end
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    }
    auto needValue = [&]() -> std::optional<std::string> {
      if (hasValue)
        return std::nullopt;
      if (i + 1 >= argc)
        return name + " needs a value";
      value = argv[++i];
      hasValue = true;
      return std::nullopt;
    };
    auto noValue = [&]() -> std::optional<std::string> {
      if (hasValue)
        return name + " takes no value";
      return std::nullopt;
    };

    if (name == "--help" || name == "-h") {
      o.help = true;
    } else if (name == "--dtype-info") {
      if (auto e = noValue())
        return e;
      o.dtypeInfo = true;
    } else if (name == "--emit") {
      if (auto e = needValue())
        return e;
      if (value != "ir" && value != "cuda" && value != "ptx" && value != "cubin")
        return "--emit=" + value + ": unknown; supported: ir, cuda, ptx, cubin";
      o.emit = value;
    } else if (name == "-o") {
      if (i + 1 >= argc)
        return std::string("-o needs a file name");
      o.outputFile = argv[++i];
    } else if (name == "--run") {
      if (auto e = needValue())
        return e;
      if (value != "cpu" && value != "gpu")
        return "--run=" + value + " is not supported; supported: cpu, gpu";
      o.run = value;
    } else if (name == "--input") {
      if (auto e = needValue())
        return e;
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return "--input expects NAME=FILE.npy, got '" + value + "'";
      o.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (name == "--random-inputs") {
      if (auto e = needValue())
        return e;
      uint64_t seed = 0;
      if (!parseU64(value, seed))
        return "--random-inputs expects a non-negative integer seed, got '" + value + "'";
      o.randomSeed = seed;
    } else if (name == "--dynamic-dim") {
      if (auto e = needValue())
        return e;
      if (!parseInt(value, o.dynamicDim) || o.dynamicDim < 1 || o.dynamicDim > (1 << 20))
        return "--dynamic-dim expects an integer in [1, 1048576], got '" + value + "'";
    } else if (name == "--output-dir") {
      if (auto e = needValue())
        return e;
      o.outputDir = value;
    } else if (name == "--func") {
      if (auto e = needValue())
        return e;
      o.funcName = value;
    } else if (name == "--passes") {
      if (auto e = needValue())
        return e;
      o.passes = value;
      o.passesGiven = true;
    } else if (name == "--recipe") {
      if (auto e = needValue())
        return e;
      if (value != "none" && !recipeKindNamed(value))
        return "--recipe=" + value +
               ": unknown recipe; recipes: tensorwise, delayed, rowwise, blockwise, none";
      recipeText = value;
      o.recipeGiven = true;
    } else if (name == "--recipe-options") {
      if (auto e = needValue())
        return e;
      recipeOptions = value;
    } else if (name == "--train") {
      if (auto e = noValue())
        return e;
      o.train = true;
    } else if (name == "--tokens") {
      if (auto e = needValue())
        return e;
      if (!parseInt(value, o.tokens) || o.tokens < 1 || o.tokens > (1 << 24))
        return "--tokens expects an integer in [1, 16777216], got '" + value + "'";
    } else if (name == "--print-ir-after-all") {
      if (auto e = noValue())
        return e;
      o.printIrAfterAll = true;
    } else if (name == "--print-ir-after") {
      if (auto e = needValue())
        return e;
      o.printIrAfter.push_back(value);
    } else if (name == "--verify-each") {
      if (auto e = noValue())
        return e;
      o.verifyEach = true;
    } else if (name == "--print-fusion-plan") {
      if (auto e = noValue())
        return e;
      o.printFusionPlan = true;
    } else if (name == "--compare") {
      if (auto e = noValue())
        return e;
      o.compareUnquantized = true;
    } else if (name == "--frontend") {
      if (auto e = needValue())
        return e;
      if (value != "fp8c" && value != "mlir")
        return "--frontend=" + value + ": unknown; frontends: fp8c (default), mlir";
      o.frontend = value;
    } else if (name == "--check") {
      if (auto e = noValue())
        return e;
      o.check = true;
    } else if (name == "--bench") {
      if (auto e = noValue())
        return e;
      o.bench = true;
    } else if (name == "--profile") {
      if (auto e = noValue())
        return e;
      o.profile = true;
    } else if (name == "--arch") {
      if (auto e = needValue())
        return e;
      Expected<TargetArch> arch = parseTargetArch(value);
      if (!arch)
        return arch.error();
      o.arch = arch.take();
    } else if (name == "--backend") {
      if (auto e = needValue())
        return e;
      std::optional<GemmBackend> backend = parseGemmBackend(value);
      if (!backend)
        return "--backend=" + value + ": unknown GEMM backend; backends: auto, cublaslt, generated";
      o.backend = *backend;
    } else if (name == "--autotune") {
      if (auto e = needValue())
        return e;
      if (value != "on" && value != "off")
        return "--autotune=" + value + ": expected on or off";
      o.autotune = value == "on";
    } else if (name == "--list-passes") {
      if (auto e = noValue())
        return e;
      o.listPasses = true;
    } else if (name == "--print-outputs") {
      if (auto e = noValue())
        return e;
      o.printOutputs = true;
    } else if (name == "--split-input-file") {
      if (auto e = noValue())
        return e;
      o.splitInputFile = true;
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      return "unknown option '" + arg + "' (see --help)";
    } else {
      if (!o.inputFile.empty())
        return "more than one input file: '" + o.inputFile + "' and '" + arg + "'";
      o.inputFile = arg;
    }
  }
  if (!recipeOptions.empty() && !o.train)
    return std::string("--recipe-options applies to --train; give the options in --passes "
                       "(quantize{...}) otherwise");
  if (!o.passes.empty() && o.recipeGiven)
    return std::string("give --passes or --recipe, not both");
  if (o.train && (o.run || !o.passes.empty()))
    return std::string("--train takes --recipe (and --tokens), not --run or --passes");
  if (o.train && o.emit && *o.emit != "ir" && *o.emit != "cuda")
    return std::string("--train emits IR or CUDA only (--emit=ir|cuda)");
  if (o.compareUnquantized && !o.run)
    return std::string("--compare needs --run");
  if (o.profile && !o.bench)
    return std::string("--profile needs --bench (it breaks a timed run down by step)");
  if (o.check && !o.run)
    return std::string("--check needs --run=cpu|gpu");
  if (o.bench && o.run != "gpu")
    return std::string("--bench needs --run=gpu");
  // --train without --recipe: tensorwise.
  if (o.train && !o.recipeGiven) {
    recipeText = recipeName(RecipeKind::Tensorwise);
    o.recipeGiven = true;
  }
  if (o.recipeGiven) {
    Expected<std::optional<Recipe>> recipe = parseRecipeSpec(recipeText, recipeOptions);
    if (!recipe)
      return (recipeOptions.empty() ? "--recipe=" + recipeText
                                    : "--recipe-options='" + recipeOptions + "'") +
             ": " + recipe.error();
    o.recipe = recipe.take();
  }
  // The arch decides, once, whether the generated GEMM may be planned.
  Expected<GemmBackend> backend = gemmBackendFor(o.arch, o.backend);
  if (!backend)
    return backend.error();
  o.backend = *backend;
  return std::nullopt;
}

} // namespace fp8c::cli
