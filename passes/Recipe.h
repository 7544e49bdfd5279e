// FP8 scaling recipes (docs/numerics.md) and the options every recipe takes. `quantize`
// reads them from its pass options; later the training and runtime layers reuse them.
#pragma once

#include "passes/Pass.h"
#include "ir/Status.h"
#include "ir/TypeRules.h"

#include <optional>
#include <string>
#include <string_view>

namespace fp8c {

enum class RecipeKind { Tensorwise, Delayed, Rowwise, Blockwise };

struct Recipe {
  RecipeKind kind = RecipeKind::Tensorwise;
  bool pow2 = false;       ///< scales rounded down to powers of two
  int64_t margin = 0;      ///< s = fmax / amax / 2^margin
  bool fastAccum = true;   ///< forward GEMMs may skip periodic promotion
  bool staticWeights = false; ///< weights=static: weights are parameters, quantized at load
  int64_t historyLen = 16; ///< delayed: amax history length
  std::string algo = "max"; ///< delayed: max | most_recent
  DType actDType = DType::F8E4M3FN;
  DType weightDType = DType::F8E4M3FN;
  /// Training: FP8 type of gradients (dY): e5m2, except blockwise (e4m3 with 1x128 blocks).
  DType gradDType = DType::F8E5M2;
  /// Training: backward GEMMs (dgrad, wgrad) may skip periodic promotion (default off).
  bool bwdFastAccum = false;
  /// Training: the backward's GELU derivative reads an unscaled e4m3 copy of the GELU's input
  /// that the forward saves (`gelu_saved=e4m3`; the default of delayed, whose forward GEMM
  /// writes that copy in its epilogue) instead of the input itself (`gelu_saved=input`).
  bool geluSavedE4m3 = false;

  /// Granularity of activation (A operand) and weight (B operand) scales.
  Granularity actGranularity() const;
  Granularity weightGranularity() const;
  std::string_view name() const;
  /// Options in pipeline syntax, canonical order (`recipe=delayed history_len=16 ...`).
  std::string str() const;
};

std::string_view recipeName(RecipeKind k);
/// The recipe named `name` (tensorwise, delayed, rowwise, blockwise); std::nullopt otherwise.
std::optional<RecipeKind> recipeKindNamed(std::string_view name);
/// The recipe `kind` with its defaults (blockwise: power-of-two scales and e4m3 gradients;
/// delayed: gelu_saved=e4m3).
Recipe recipeDefaults(RecipeKind kind);
/// Parses `recipe=... pow2=... margin=... fast_accum=... weights=dynamic|static
/// history_len=... algo=... act_dtype=e4m3|e5m2 weight_dtype=e4m3|e5m2 grad_dtype=e4m3|e5m2
/// bwd_fast_accum=... gelu_saved=e4m3|input`.
Expected<Recipe> parseRecipe(const PassOptions &opts);
/// A recipe given by name and its other options in pipeline syntax (`history_len=4 margin=1`),
/// as fp8c --recipe / --recipe-options give it; "none": no recipe (std::nullopt).
Expected<std::optional<Recipe>> parseRecipeSpec(std::string_view name,
                                                std::string_view options = "");

} // namespace fp8c
