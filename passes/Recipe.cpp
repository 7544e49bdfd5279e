// Recipe options: parsing, defaults and the granularities each recipe uses.
#include "passes/Recipe.h"

#include "passes/PassManager.h"

#include <charconv>

namespace fp8c {
namespace {

Expected<bool> parseBool(const std::string &key, const std::string &v) {
  if (v == "true" || v == "1")
    return true;
  if (v == "false" || v == "0")
    return false;
  return Error("quantize: option " + key + " must be true or false, got '" + v + "'");
}

Expected<int64_t> parseIntIn(const std::string &key, const std::string &v, int64_t lo,
                             int64_t hi) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi)
    return Error("quantize: option " + key + " must be an integer in [" + std::to_string(lo) +
                 ", " + std::to_string(hi) + "], got '" + v + "'");
  return out;
}

Expected<DType> parseFp8(const std::string &key, const std::string &v) {
  if (v == "e4m3" || v == "f8E4M3FN")
    return DType::F8E4M3FN;
  if (v == "e5m2" || v == "f8E5M2")
    return DType::F8E5M2;
  return Error("quantize: option " + key + " must be e4m3 or e5m2, got '" + v + "'");
}

} // namespace

std::string_view recipeName(RecipeKind k) {
  switch (k) {
  case RecipeKind::Tensorwise:
    return "tensorwise";
  case RecipeKind::Delayed:
    return "delayed";
  case RecipeKind::Rowwise:
    return "rowwise";
  case RecipeKind::Blockwise:
    return "blockwise";
  }
  return "?";
}

std::optional<RecipeKind> recipeKindNamed(std::string_view name) {
  for (RecipeKind k :
       {RecipeKind::Tensorwise, RecipeKind::Delayed, RecipeKind::Rowwise, RecipeKind::Blockwise})
    if (recipeName(k) == name)
      return k;
  return std::nullopt;
}

std::string_view Recipe::name() const { return recipeName(kind); }

Granularity Recipe::actGranularity() const {
  switch (kind) {
  case RecipeKind::Rowwise:
    return Granularity::Row;
  case RecipeKind::Blockwise:
    return Granularity::Block1x128;
  default:
    return Granularity::Tensor;
  }
}

Granularity Recipe::weightGranularity() const {
  switch (kind) {
  case RecipeKind::Rowwise:
    return Granularity::Row;
  case RecipeKind::Blockwise:
    return Granularity::Block128x128;
  default:
    return Granularity::Tensor;
  }
}

std::string Recipe::str() const {
  std::string s = "recipe=" + std::string(name());
  if (kind == RecipeKind::Delayed)
    s += " history_len=" + std::to_string(historyLen) + " algo=" + algo;
  s += " margin=" + std::to_string(margin);
  s += std::string(" pow2=") + (pow2 ? "true" : "false");
  s += std::string(" fast_accum=") + (fastAccum ? "true" : "false");
  s += std::string(" weights=") + (staticWeights ? "static" : "dynamic");
  if (actDType != DType::F8E4M3FN)
    s += " act_dtype=e5m2";
  if (weightDType != DType::F8E4M3FN)
    s += " weight_dtype=e5m2";
  DType defaultGrad = kind == RecipeKind::Blockwise ? DType::F8E4M3FN : DType::F8E5M2;
  if (gradDType != defaultGrad)
    s += gradDType == DType::F8E5M2 ? " grad_dtype=e5m2" : " grad_dtype=e4m3";
  if (bwdFastAccum)
    s += " bwd_fast_accum=true";
  if (geluSavedE4m3 != (kind == RecipeKind::Delayed))
    s += geluSavedE4m3 ? " gelu_saved=e4m3" : " gelu_saved=input";
  return s;
}

Recipe recipeDefaults(RecipeKind kind) {
  Recipe r;
  r.kind = kind;
  // Blockwise defaults to power-of-two scales, as DeepSeek-V3 / TE Float8BlockScaling do.
  if (kind == RecipeKind::Blockwise) {
    r.pow2 = true;
    r.gradDType = DType::F8E4M3FN;
  }
  r.geluSavedE4m3 = kind == RecipeKind::Delayed;
  return r;
}

Expected<Recipe> parseRecipe(const PassOptions &opts) {
  auto it = opts.find("recipe");
  if (it == opts.end())
    return Error("quantize: option recipe is required (tensorwise|delayed|rowwise|blockwise)");
  const std::string &name = it->second;
  std::optional<RecipeKind> kind = recipeKindNamed(name);
  if (!kind)
    return Error("quantize: unknown recipe '" + name +
                 "'; recipes: tensorwise, delayed, rowwise, blockwise");
  Recipe r = recipeDefaults(*kind);
  for (const auto &[key, v] : opts) {
    if (key == "recipe")
      continue;
    if (key == "pow2") {
      Expected<bool> b = parseBool(key, v);
      if (!b)
        return Error(b.error());
      r.pow2 = *b;
    } else if (key == "fast_accum") {
      Expected<bool> b = parseBool(key, v);
      if (!b)
        return Error(b.error());
      r.fastAccum = *b;
    } else if (key == "bwd_fast_accum") {
      Expected<bool> b = parseBool(key, v);
      if (!b)
        return Error(b.error());
      r.bwdFastAccum = *b;
    } else if (key == "gelu_saved") {
      if (v != "e4m3" && v != "input")
        return Error("quantize: option gelu_saved must be e4m3 or input, got '" + v + "'");
      r.geluSavedE4m3 = v == "e4m3";
    } else if (key == "margin") {
      Expected<int64_t> m = parseIntIn(key, v, 0, 64);
      if (!m)
        return Error(m.error());
      r.margin = *m;
    } else if (key == "weights") {
      if (v != "dynamic" && v != "static")
        return Error("quantize: option weights must be dynamic or static, got '" + v + "'");
      r.staticWeights = v == "static";
    } else if (key == "history_len" || key == "algo") {
      if (r.kind != RecipeKind::Delayed)
        return Error("quantize: option " + key + " applies to recipe=delayed only");
      if (key == "algo") {
        if (v != "max" && v != "most_recent")
          return Error("quantize: option algo must be max or most_recent, got '" + v + "'");
        r.algo = v;
      } else {
        Expected<int64_t> n = parseIntIn(key, v, 1, 4096);
        if (!n)
          return Error(n.error());
        r.historyLen = *n;
      }
    } else if (key == "act_dtype" || key == "weight_dtype" || key == "grad_dtype") {
      Expected<DType> t = parseFp8(key, v);
      if (!t)
        return Error(t.error());
      (key == "act_dtype" ? r.actDType : key == "weight_dtype" ? r.weightDType : r.gradDType) = *t;
    } else {
      return Error("quantize: unknown option '" + key + "'");
    }
  }
  if (r.actDType == DType::F8E5M2 && r.weightDType == DType::F8E5M2)
    return Error("quantize: act_dtype and weight_dtype cannot both be e5m2 (no e5m2 x e5m2 "
                 "FP8 GEMM)");
  return r;
}

Expected<std::optional<Recipe>> parseRecipeSpec(std::string_view name, std::string_view options) {
  if (name == "none")
    return std::optional<Recipe>();
  Expected<PassOptions> opts = parsePassOptionList("quantize", options);
  if (!opts)
    return Error(opts.error());
  if (opts->count("recipe"))
    return Error("quantize: the recipe is '" + std::string(name) + "'; give no recipe= option");
  (*opts)["recipe"] = std::string(name);
  Expected<Recipe> r = parseRecipe(*opts);
  if (!r)
    return Error(r.error());
  return std::optional<Recipe>(r.take());
}

} // namespace fp8c
