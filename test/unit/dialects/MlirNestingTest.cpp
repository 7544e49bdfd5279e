// The nesting guard in front of MLIR's parser (dialects/fp8/TextIO.h, findExcessiveNesting):
// brackets of every kind count, comments, string literals and arrows do not, and the error
// points at the first bracket past the limit.
//
// Built only with MLIR, into fp8c-mlir-unittests; fp8c-unittests compiles this file to nothing.
#ifdef FP8C_MLIR_UNITTESTS

#include "dialects/fp8/TextIO.h"

#include <gtest/gtest.h>

#include <string>

namespace fp8c::fp8 {
namespace {

std::string nested(unsigned depth, char open, char close) {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(MlirNesting, EveryBracketKindCountsUpToTheLimit) {
  for (auto [open, close] : {std::pair{'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}}) {
    EXPECT_FALSE(findExcessiveNesting(nested(kMaxMlirNestingDepth, open, close))) << open;
    std::optional<NestingError> e =
        findExcessiveNesting("x\n  " + nested(kMaxMlirNestingDepth + 1, open, close));
    ASSERT_TRUE(e) << open;
    EXPECT_EQ(e->line, 2u);
    EXPECT_EQ(e->col, 3u + kMaxMlirNestingDepth);
    EXPECT_EQ(e->message, "brackets nested deeper than 256 levels");
  }
  // Kinds mix: tensor<...> inside (...) inside {...}.
  std::string mixed;
  for (unsigned i = 0; i <= kMaxMlirNestingDepth; ++i)
    mixed += "({<"[i % 3];
  EXPECT_TRUE(findExcessiveNesting(mixed));
}

TEST(MlirNesting, CommentsStringsAndArrowsDoNotCount) {
  const std::string deep = std::string(kMaxMlirNestingDepth + 1, '[');
  EXPECT_FALSE(findExcessiveNesting("// " + deep + "\nfunc.func @f() {}\n"));
  EXPECT_FALSE(findExcessiveNesting("{a = \"" + deep + "\"}"));
  EXPECT_FALSE(findExcessiveNesting("{a = \"\\\"" + deep + "\"}")); // an escaped quote
  // `->` closes no `<`: a function type inside tuple<...> nests one level per tuple.
  std::string tuples;
  for (unsigned i = 0; i < kMaxMlirNestingDepth / 2; ++i)
    tuples += "tuple<(i32) -> i32, ";
  tuples += std::string(kMaxMlirNestingDepth / 2, '>');
  EXPECT_FALSE(findExcessiveNesting(tuples));
  std::string deeper = "tuple<(i32) -> i32, " + tuples + ">";
  for (unsigned i = 0; i <= kMaxMlirNestingDepth / 2; ++i)
    deeper = "tuple<(i32) -> i32, " + deeper + ">";
  EXPECT_TRUE(findExcessiveNesting(deeper));
}

TEST(MlirNesting, UnclosedAngleBracketsDoNotAccumulate) {
  // A `<` that a custom syntax leaves open is dropped when its enclosing bracket closes, so
  // many of them in sequence never add up.
  std::string text;
  for (unsigned i = 0; i < 4 * kMaxMlirNestingDepth; ++i)
    text += "(a < b)\n";
  EXPECT_FALSE(findExcessiveNesting(text));
  // `>=` inside parentheses closes nothing.
  EXPECT_FALSE(findExcessiveNesting("affine_set<(d0) : (d0 >= 0)>"));
}

} // namespace
} // namespace fp8c::fp8

#endif // FP8C_MLIR_UNITTESTS
