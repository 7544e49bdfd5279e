// The table of passes: names, descriptions, options and factories.
#include "passes/PassRegistry.h"

#include "passes/Passes.h"

namespace fp8c {
namespace {

template <typename F> auto noOptions(F factory) {
  return [factory](const PassOptions &,
                   const PipelineDefaults &) -> Expected<std::unique_ptr<Pass>> {
    return factory();
  };
}

// A factory that parses the text options into the pass's typed options once (`parse`), then
// creates the pass from them (`create`).
template <typename P, typename F> auto parsedOptions(P parse, F create) {
  return [parse, create](const PassOptions &text,
                         const PipelineDefaults &) -> Expected<std::unique_ptr<Pass>> {
    auto typed = parse(text);
    if (!typed)
      return Error(typed.error());
    return std::unique_ptr<Pass>(create(*typed));
  };
}

std::vector<PassInfo> buildRegistry() {
  std::vector<PassInfo> r;
  r.push_back({"verify", "check the graph against the IR's rules", {}, noOptions(createVerifyPass)});
  r.push_back({"shape-infer",
               "recompute result types from the inputs (dynamic leading dim kept)",
               {{"tokens", "N", "", "specialize every dynamic leading dim to N first"}},
               parsedOptions(parseShapeInferTokens, createShapeInferPass)});
  r.push_back({"canonicalize",
               "fold convert chains, cast-of-dequant and identity ops",
               {},
               noOptions(createCanonicalizePass)});
  r.push_back({"cse", "eliminate common subexpressions", {}, noOptions(createCsePass)});
  r.push_back({"dce", "remove ops whose results are unused", {}, noOptions(createDcePass)});
  r.push_back({"autodiff",
               "append the backward graph: gradient inputs of the outputs, gradient results of "
               "the inputs (dgrad, wgrad, dbias, activation derivatives)",
               {},
               noOptions(createAutodiffPass)});
  r.push_back({"quantize",
               "rewrite linear/matmul into FP8 ops with a scaling recipe",
               {{"recipe", "tensorwise|delayed|rowwise|blockwise", "", "the scaling recipe"},
                {"pow2", "true|false", "false (true for blockwise)", "power-of-two scales"},
                {"margin", "0..64", "0", "s = fmax / amax / 2^margin"},
                {"fast_accum", "true|false", "true", "GEMMs skip periodic promotion"},
                {"weights", "dynamic|static", "dynamic", "static: weights quantized once at load"},
                {"history_len", "1..4096", "16", "delayed: amax history length"},
                {"algo", "max|most_recent", "max", "delayed: amax from the history"},
                {"act_dtype", "e4m3|e5m2", "e4m3", "FP8 type of activations"},
                {"weight_dtype", "e4m3|e5m2", "e4m3", "FP8 type of weights"},
                {"grad_dtype", "e4m3|e5m2", "e5m2 (e4m3 for blockwise)",
                 "training: FP8 type of gradients"},
                {"bwd_fast_accum", "true|false", "false", "training: dgrad/wgrad GEMMs skip "
                 "periodic promotion"},
                {"gelu_saved", "e4m3|input", "e4m3 for delayed, else input",
                 "training: what the forward saves for the GELU's derivative (an unscaled e4m3 "
                 "copy of its input, or the input)"}},
               parsedOptions(parseRecipe, createQuantizePass)});
  r.push_back({"fuse",
               "group ops into fp8.kernel regions: FP8 bookkeeping into GEMM prologues and "
               "epilogues, pointwise chains, amax + scale + cast",
               {{"gemm-backend", "auto|cublaslt|generated", "auto",
                 "who runs the FP8 GEMMs (fp8c --backend): each gemm kernel's gemm_backend, "
                 "which codegen reads"},
                {"grad-epilogue", "on|off", "on",
                 "the backward's gelu_grad in the dgrad GEMM's epilogue (off: a cast-transpose "
                 "launch, which side launches can run beside another GEMM)"}},
               [](const PassOptions &text,
                  const PipelineDefaults &defaults) -> Expected<std::unique_ptr<Pass>> {
                 Expected<FuseOptions> o = parseFuseOptions(text, defaults);
                 if (!o)
                   return Error(o.error());
                 return createFusePass(*o);
               }});
  return r;
}

const std::vector<PassInfo> &registry() {
  static const std::vector<PassInfo> r = buildRegistry();
  return r;
}

} // namespace

std::span<const PassInfo> allPasses() { return registry(); }

const PassInfo *lookupPass(std::string_view name) {
  for (const PassInfo &p : registry())
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string checkPassOptionNames(const PassInfo &info, const PassOptions &opts) {
  for (const auto &[key, value] : opts) {
    bool known = false;
    for (const PassOptionInfo &o : info.options)
      known |= o.name == key;
    if (known)
      continue;
    std::string list;
    for (const PassOptionInfo &o : info.options)
      list += (list.empty() ? "" : ", ") + o.name + "=" + o.values;
    return "pass '" + info.name + "' has no option '" + key + "'" +
           (list.empty() ? std::string("; it takes none") : "; its options: " + list);
  }
  return "";
}

} // namespace fp8c
