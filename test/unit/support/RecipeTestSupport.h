// Recipes for tests: a recipe by name ("none": no recipe) with options in pipeline syntax,
// parsed as fp8c --recipe / --recipe-options parse them; a bad name or option fails the test.
#pragma once

#include "passes/Recipe.h"

#include <gtest/gtest.h>

#include <optional>
#include <string_view>

namespace fp8c {

inline std::optional<Recipe> testRecipe(std::string_view name, std::string_view options = "") {
  Expected<std::optional<Recipe>> r = parseRecipeSpec(name, options);
  EXPECT_TRUE(r.hasValue()) << name << " " << options << ": " << (r ? "" : r.error());
  return r ? r.take() : std::nullopt;
}

} // namespace fp8c
