// Parser tests: what the parser builds (ops, names, locations, attributes, regions, modules),
// every kind of parse error with its exact message and line:col, splitInputFile and readSource.
// Round trips through the printer are in PrinterTest.cpp.
#include "ir/Parser.h"
#include "ir/Printer.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

namespace fp8c {
namespace {

std::unique_ptr<Module> parseOk(std::string_view text, uint32_t firstLine = 1) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "t.mlir", diag, firstLine);
  EXPECT_TRUE(m) << diag.str();
  EXPECT_FALSE(diag.hasErrors()) << diag.str();
  return m;
}

/// The first error of a failing parse, `t.mlir:line:col: error: message`.
std::string parseError(std::string_view text, uint32_t firstLine = 1) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "t.mlir", diag, firstLine);
  EXPECT_FALSE(m) << "parsed:\n" << (m ? toString(*m) : "");
  EXPECT_EQ(diag.numErrors(), 1u) << diag.str();
  return diag.firstError();
}

constexpr const char *kMlp = R"(// An MLP.
func.func @mlp(%x: tensor<?x64xbf16>, %w1: tensor<256x64xbf16>, %b1: tensor<256xbf16>)
    -> tensor<?x256xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<?x256xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x256xbf16>) -> tensor<?x256xbf16>
  return %g : tensor<?x256xbf16>
}
)";

TEST(IrParser, BuildsGraph) {
  auto m = parseOk(kMlp);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graphs().size(), 1u);
  const Graph &g = *m->graphs()[0];
  EXPECT_EQ(g.name(), "mlp");
  EXPECT_EQ(g.loc().str(), "t.mlir:2:1");
  ASSERT_EQ(g.numInputs(), 3u);
  EXPECT_EQ(g.input(0)->name(), "x");
  EXPECT_EQ(g.input(0)->type(), TensorType({kDynamic, 64}, DType::BF16));
  ASSERT_EQ(g.resultTypes().size(), 1u);
  EXPECT_EQ(g.resultTypes()[0].str(), "tensor<?x256xbf16>");

  std::vector<Op *> ops = g.body().opList();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0]->kind(), OpKind::Linear);
  EXPECT_EQ(ops[0]->numOperands(), 3u);
  EXPECT_EQ(ops[0]->operand(0), g.input(0));
  EXPECT_EQ(ops[0]->operand(2), g.input(2));
  EXPECT_EQ(ops[0]->result()->name(), "h");
  EXPECT_EQ(ops[0]->loc().str(), "t.mlir:4:3");
  EXPECT_EQ(ops[1]->kind(), OpKind::Gelu);
  EXPECT_EQ(ops[1]->operand(0), ops[0]->result());
  EXPECT_EQ(ops[1]->strAttr("approximate"), "tanh");
  EXPECT_EQ(ops[2]->kind(), OpKind::Return);
  EXPECT_EQ(ops[2]->loc().str(), "t.mlir:6:3");
  EXPECT_EQ(g.outputs(), std::vector<Value *>{ops[1]->result()});
  EXPECT_EQ(g.input(0)->numUses(), 1u);
}

TEST(IrParser, FirstLineOffsetsLocations) {
  auto m = parseOk(kMlp, 41);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graphs()[0]->loc().str(), "t.mlir:42:1");
  EXPECT_EQ(m->graphs()[0]->body().opList()[1]->loc().str(), "t.mlir:45:3");
}

TEST(IrParser, OpWithoutResultsIsLocatedAtItsName) {
  auto m = parseOk("func.func @f() {\n\t  func.return\n}");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graphs()[0]->body().opList()[0]->loc().str(), "t.mlir:2:4");
}

TEST(IrParser, EmptyInputIsEmptyModule) {
  for (const char *text : {"", "  \n\t\n", "// only a comment", "// a\n// b\n"}) {
    auto m = parseOk(text);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->graphs().empty());
  }
}

TEST(IrParser, SeveralFunctions) {
  auto m = parseOk("func.func @a() {\n return\n}\nfunc.func @b(%x: tensor<f32>) -> tensor<f32> "
                   "{\n return %x : tensor<f32>\n}\nfunc.func @a() {\n return\n}\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graphs().size(), 3u);
  EXPECT_EQ(m->graphs()[1]->name(), "b");
  EXPECT_EQ(m->lookup("b"), m->graphs()[1].get());
  // Duplicate function names are the verifier's to reject; SSA names are per function.
  EXPECT_EQ(m->graphs()[2]->name(), "a");
}

TEST(IrParser, ModuleWrapperAndQuotedSymbol) {
  auto m = parseOk("module {\n func.func @\"my fn\"() {\n return\n }\n}\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graphs().size(), 1u);
  EXPECT_EQ(m->graphs()[0]->name(), "my fn");
}

TEST(IrParser, Attributes) {
  auto m = parseOk(
      R"(func.func @f(%x: tensor<4xf32> {fp8.state = "h", "odd name" = "a\"b\\c\n\t\01\FF"}) -> (tensor<4xf32> {fp8.state = "h"}, tensor<4xf32>) {
  %y = fp8.relu %x {b = true, c = false, i = -9223372036854775808, j = 9223372036854775807, k = 7 : i64, t = f8E4M3FN, u = i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %x : tensor<4xf32>, tensor<4xf32>
})");
  ASSERT_TRUE(m);
  const Graph &g = *m->graphs()[0];
  EXPECT_EQ(g.inputAttrs(0).size(), 2u);
  EXPECT_EQ(g.inputAttrs(0).get("fp8.state")->asString(), "h");
  EXPECT_EQ(g.inputAttrs(0).get("odd name")->asString(), std::string("a\"b\\c\n\t\x01\xFF"));
  ASSERT_EQ(g.resultAttrs().size(), 2u);
  EXPECT_EQ(g.resultAttrs()[0].get("fp8.state")->asString(), "h");
  EXPECT_TRUE(g.resultAttrs()[1].empty());

  const Op &relu = *g.body().opList()[0];
  EXPECT_EQ(relu.attrs().size(), 7u);
  EXPECT_EQ(*relu.attr("b"), Attribute(true));
  EXPECT_EQ(*relu.attr("c"), Attribute(false));
  EXPECT_EQ(relu.attr("i")->asInt(), INT64_MIN);
  EXPECT_EQ(relu.attr("j")->asInt(), INT64_MAX);
  EXPECT_EQ(relu.attr("k")->asInt(), 7);
  EXPECT_EQ(relu.attr("t")->asDType(), DType::F8E4M3FN);
  EXPECT_EQ(relu.attr("u")->asDType(), DType::I32);
  EXPECT_EQ(relu.attr("u")->kind(), AttrKind::DType);
}

TEST(IrParser, AttributesAreNotCheckedAgainstTheOpTable) {
  auto m = parseOk("func.func @f(%x: tensor<4xf32>) {\n  %y = fp8.relu %x {nonsense = 3} : "
                   "(tensor<4xf32>) -> tensor<4xf32>\n  return\n}");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graphs()[0]->body().opList()[0]->attr("nonsense")->asInt(), 3);
}

TEST(IrParser, KernelRegion) {
  auto m = parseOk(R"(func.func @k(%a: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %y, %m = fp8.kernel "pointwise" (%a, %s) {extra = 1} : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  ^bb0(%a_1: tensor<4xf32>, %s_1: tensor<f32>):
    %r = fp8.mul %a_1, %s_1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %q = fp8.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    fp8.yield %r, %s_1 : tensor<4xf32>, tensor<f32>
  }
  return %y : tensor<4xf32>
})");
  ASSERT_TRUE(m);
  const Graph &g = *m->graphs()[0];
  const Op &k = *g.body().opList()[0];
  EXPECT_EQ(k.kind(), OpKind::Kernel);
  EXPECT_EQ(k.strAttr("kind"), "pointwise");
  EXPECT_EQ(k.attr("extra")->asInt(), 1);
  EXPECT_EQ(k.numResults(), 2u);
  EXPECT_EQ(k.result(1)->name(), "m");
  EXPECT_EQ(k.result(1)->type(), TensorType({}, DType::F32));
  ASSERT_TRUE(k.body());
  const Block &body = *k.body();
  ASSERT_EQ(body.numArguments(), 2u);
  EXPECT_EQ(body.argument(0)->name(), "a_1");
  EXPECT_EQ(body.parentOp(), &k);
  std::vector<Op *> inner = body.opList();
  ASSERT_EQ(inner.size(), 3u);
  EXPECT_EQ(inner[0]->operand(0), body.argument(0));
  EXPECT_EQ(inner[0]->parentOp(), &k);
  EXPECT_EQ(inner[0]->loc().str(), "t.mlir:4:5");
  // A value from outside the region parses (the verifier rejects it).
  EXPECT_EQ(inner[1]->operand(0), g.input(0));
  EXPECT_EQ(inner[2]->kind(), OpKind::Yield);
  EXPECT_EQ(body.terminator(), inner[2]);
  EXPECT_EQ(g.outputs()[0], k.result(0));
}

TEST(IrParser, KernelWithoutPositionalKind) {
  auto m = parseOk("func.func @k() {\n  fp8.kernel () {kind = 3} : () -> () {\n  ^bb0():\n"
                   "    fp8.yield\n  }\n  fp8.kernel () : () -> ()\n  return\n}");
  ASSERT_TRUE(m);
  std::vector<Op *> ops = m->graphs()[0]->body().opList();
  EXPECT_EQ(ops[0]->attr("kind")->asInt(), 3);
  EXPECT_EQ(ops[0]->body()->numArguments(), 0u);
  EXPECT_FALSE(ops[1]->attr("kind"));
  EXPECT_FALSE(ops[1]->body());
}

// Builds `depth` kernels, each inside the previous one's region.
std::string nestedKernels(int depth) {
  std::string text = "func.func @deep() {\n";
  for (int i = 0; i < depth; ++i)
    text += "fp8.kernel \"gemm\" () : () -> () {\n^bb0:\n";
  for (int i = 0; i < depth; ++i)
    text += "fp8.yield\n}\n";
  return text + "return\n}\n";
}

TEST(IrParser, NestingUpToTheLimitParses) {
  auto m = parseOk(nestedKernels(32));
  ASSERT_TRUE(m);
  const Op *op = m->graphs()[0]->body().opList()[0];
  int depth = 1;
  while (op->body() && op->body()->opList()[0]->kind() == OpKind::Kernel) {
    op = op->body()->opList()[0];
    ++depth;
  }
  EXPECT_EQ(depth, 32);
}

TEST(IrParser, EveryOpKindParses) {
  // One op of every kind in Ops.def; a new row fails this test until it is covered here.
  auto m = parseOk(
      R"(func.func @all(%x: tensor<8x128xbf16>, %w: tensor<16x128xbf16>, %b: tensor<16xbf16>, %h: tensor<4xf32>) {
  %1 = fp8.linear %x, %w, %b : (tensor<8x128xbf16>, tensor<16x128xbf16>, tensor<16xbf16>) -> tensor<8x16xbf16>
  %2 = fp8.transpose %w : (tensor<16x128xbf16>) -> tensor<128x16xbf16>
  %3 = fp8.matmul %x, %2 : (tensor<8x128xbf16>, tensor<128x16xbf16>) -> tensor<8x16xbf16>
  %4 = fp8.add %1, %3 : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %5 = fp8.mul %4, %4 : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %6 = fp8.relu %5 : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %7 = fp8.gelu %6 {approximate = "none"} : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %8 = fp8.silu %7 : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %9 = fp8.swiglu %8, %7 : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g1 = fp8.relu_grad %6, %5 : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g2 = fp8.gelu_grad %g1, %6 {approximate = "tanh"} : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g3 = fp8.silu_grad %g2, %7 : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g4 = fp8.swiglu_grad %g3, %8, %7 {wrt = "gate"} : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %g5 = fp8.col_sum %g4 : (tensor<8x16xbf16>) -> tensor<16xbf16>
  %10 = fp8.convert %9 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
  %11 = fp8.amax %x {granularity = "row"} : (tensor<8x128xbf16>) -> tensor<8xf32>
  %12 = fp8.scale %11 {dtype = f8E4M3FN, margin = 0, pow2 = false} : (tensor<8xf32>) -> tensor<8xf32>
  %13 = fp8.cast %x, %12 {granularity = "row"} : (tensor<8x128xbf16>, tensor<8xf32>) -> tensor<8x128xf8E4M3FN>
  %14 = fp8.dequant %13, %12 {granularity = "row"} : (tensor<8x128xf8E4M3FN>, tensor<8xf32>) -> tensor<8x128xbf16>
  %15 = fp8.history_scale %h {algo = "most_recent"} : (tensor<4xf32>) -> tensor<f32>
  %16 = fp8.amax %w : (tensor<16x128xbf16>) -> tensor<f32>
  %17 = fp8.history_push %h, %16 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = fp8.cast %w, %15 : (tensor<16x128xbf16>, tensor<f32>) -> tensor<16x128xf8E5M2>
  %19 = fp8.kernel "gemm" (%13, %18, %12, %15) : (tensor<8x128xf8E4M3FN>, tensor<16x128xf8E5M2>, tensor<8xf32>, tensor<f32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x128xf8E4M3FN>, %bb: tensor<16x128xf8E5M2>, %sa: tensor<8xf32>, %sb: tensor<f32>):
    %y = fp8.scaled_matmul %a, %bb, %sa, %sb {fast_accum = true, out = f32} : (tensor<8x128xf8E4M3FN>, tensor<16x128xf8E5M2>, tensor<8xf32>, tensor<f32>) -> tensor<8x16xf32>
    fp8.yield %y : tensor<8x16xf32>
  }
  return
})");
  ASSERT_TRUE(m);
  std::set<OpKind> seen;
  m->graphs()[0]->walk([&](const Op *op) { seen.insert(op->kind()); });
  for (const OpInfo &info : allOpInfos())
    EXPECT_TRUE(seen.count(info.kind)) << info.name << " is not covered";
}

// --- errors ---------------------------------------------------------------------------------

struct ErrorCase {
  const char *name;
  const char *text;
  const char *error;
};

const ErrorCase kErrors[] = {
    {"undefined value",
     "func.func @f() {\n  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:2:17: error: use of undefined value '%x'"},
    {"use before definition",
     "func.func @f(%a: tensor<4xf32>) {\n  %y = fp8.relu %z : (tensor<4xf32>) -> tensor<4xf32>\n"
     "  %z = fp8.relu %a : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:2:17: error: use of undefined value '%z'"},
    {"redefinition of an input",
     "func.func @f(%x: tensor<4xf32>) {\n  %x = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:2:3: error: redefinition of value '%x' (first defined at t.mlir:1:14)"},
    {"redefinition in one result list",
     "func.func @f() {\n  %a, %a = fp8.kernel \"gemm\" () : () -> (tensor<f32>, tensor<f32>)\n}",
     "t.mlir:2:7: error: redefinition of value '%a' (first defined at t.mlir:2:3)"},
    {"redefinition by a region argument",
     "func.func @f(%x: tensor<f32>) {\n  fp8.kernel \"gemm\" (%x) : (tensor<f32>) -> () {\n"
     "  ^bb0(%x: tensor<f32>):\n    fp8.yield\n  }\n}",
     "t.mlir:3:8: error: redefinition of value '%x' (first defined at t.mlir:1:14)"},
    {"redefinition of an input name", "func.func @f(%x: tensor<f32>, %x: tensor<f32>) {\n}",
     "t.mlir:1:31: error: redefinition of value '%x' (first defined at t.mlir:1:14)"},
    {"use outside the defining region",
     "func.func @f(%x: tensor<4xf32>) {\n  fp8.kernel \"gemm\" () : () -> () {\n  ^bb0:\n"
     "    %in = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n    fp8.yield\n  }\n"
     "  %out = fp8.relu %in : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:7:19: error: use of value '%in' outside the kernel region that defines it (defined "
     "at t.mlir:4:5)"},
    {"use of a kernel's result in its own region",
     "func.func @f() {\n  %k = fp8.kernel \"gemm\" () : () -> tensor<f32> {\n  ^bb0:\n"
     "    fp8.yield %k : tensor<f32>\n  }\n}",
     "t.mlir:4:15: error: use of value '%k' inside the op that defines it"},
    {"operand type mismatch",
     "func.func @f(%x: tensor<4xbf16>) {\n  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:2:17: error: use of value '%x' expects type tensor<4xf32> but it has type "
     "tensor<4xbf16>"},
    {"return operand type mismatch",
     "func.func @f(%x: tensor<4xbf16>, %s: tensor<f32>) {\n  return %s, %x : tensor<f32>, "
     "tensor<4xf32>\n}",
     "t.mlir:2:14: error: use of value '%x' expects type tensor<4xf32> but it has type "
     "tensor<4xbf16>"},
    {"too many operand types",
     "func.func @f(%x: tensor<4xf32>) {\n  %y = fp8.relu %x : (tensor<4xf32>, tensor<4xf32>) -> "
     "tensor<4xf32>\n}",
     "t.mlir:2:22: error: operand type list has 2 types but 'fp8.relu' has 1 operand"},
    {"too few operand types",
     "func.func @f(%x: tensor<4xf32>) {\n  %y = fp8.add %x, %x : () -> tensor<4xf32>\n}",
     "t.mlir:2:25: error: operand type list has 0 types but 'fp8.add' has 2 operands"},
    {"too many result types",
     "func.func @f(%x: tensor<4xf32>) {\n  %y = fp8.relu %x : (tensor<4xf32>) -> (tensor<4xf32>, "
     "tensor<4xf32>)\n}",
     "t.mlir:2:41: error: result type list has 2 types but 'fp8.relu' defines 1 result"},
    {"result type without a result name",
     "func.func @f(%x: tensor<4xf32>) {\n  fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}",
     "t.mlir:2:36: error: result type list has 1 type but 'fp8.relu' defines 0 results"},
    {"return type list too short",
     "func.func @f(%x: tensor<4xf32>) {\n  return %x, %x : tensor<4xf32>\n}",
     "t.mlir:2:19: error: operand type list has 1 type but 'func.return' has 2 operands"},
    {"results on a terminator",
     "func.func @f(%x: tensor<4xf32>) {\n  %r = fp8.yield %x : tensor<4xf32>\n}",
     "t.mlir:2:3: error: 'fp8.yield' cannot define results"},
    {"unknown tensor dtype", "func.func @f(%x: tensor<4x?xq8>) {\n}",
     "t.mlir:1:18: error: invalid tensor type 'tensor<4x?xq8>' (expected tensor<DxDx...xdtype>, "
     "dims integers or '?', dtype f32, f16, bf16, f8E4M3FN, f8E5M2 or i32)"},
    {"malformed tensor type", "func.func @f(%x: tensor<4 x f32>) {\n}",
     "t.mlir:1:18: error: malformed tensor type: expected '>' after 'tensor<4'"},
    {"tensor dim overflow", "func.func @f(%x: tensor<99999999999999999999xf32>) {\n}",
     "t.mlir:1:18: error: invalid tensor type 'tensor<99999999999999999999xf32>' (expected "
     "tensor<DxDx...xdtype>, dims integers or '?', dtype f32, f16, bf16, f8E4M3FN, f8E5M2 or "
     "i32)"},
    {"tensor element count overflow", "func.func @f(%x: tensor<4294967296x4294967296xf32>) {\n}",
     "t.mlir:1:18: error: tensor type 'tensor<4294967296x4294967296xf32>' has too many "
     "elements"},
    {"not a type", "func.func @f(%x: f32) {\n}",
     "t.mlir:1:18: error: expected a tensor type, got 'f32'"},
    {"unterminated string", "func.func @f(%x: tensor<f32> {a = \"abc\n}) {\n}",
     "t.mlir:1:35: error: unterminated string literal"},
    {"unterminated string at end of file", "func.func @f(%x: tensor<f32> {a = \"abc\\\"",
     "t.mlir:1:35: error: unterminated string literal"},
    {"backslash at end of file", "func.func @f(%x: tensor<f32> {a = \"abc\\",
     "t.mlir:1:35: error: unterminated string literal"},
    {"bad escape", "func.func @f(%x: tensor<f32> {a = \"ab\\qc\"}) {\n}",
     "t.mlir:1:38: error: invalid escape sequence '\\q' in string literal"},
    {"missing } of a function",
     "func.func @f(%x: tensor<f32>) {\n  %y = fp8.relu %x : (tensor<f32>) -> tensor<f32>\n",
     "t.mlir:3:1: error: expected '}' to close the body of '@f', got end of file"},
    {"missing } of a region",
     "func.func @f() {\n  fp8.kernel \"gemm\" () : () -> () {\n  ^bb0:\n    fp8.yield\n",
     "t.mlir:5:1: error: expected '}' to close the region of 'fp8.kernel', got end of file"},
    {"missing } of a module", "module {\n",
     "t.mlir:2:1: error: expected '}' to close the module, got end of file"},
    {"missing block label",
     "func.func @f() {\n  fp8.kernel \"gemm\" () : () -> () {\n    fp8.yield\n  }\n}",
     "t.mlir:3:5: error: expected a block label ('^bb0') at the start of the region, got "
     "'fp8.yield'"},
    {"duplicate attribute",
     "func.func @f(%x: tensor<f32>) {\n  %y = fp8.gelu %x {approximate = \"tanh\", approximate = "
     "\"none\"} : (tensor<f32>) -> tensor<f32>\n}",
     "t.mlir:2:43: error: duplicate attribute 'approximate'"},
    {"duplicate quoted attribute", "func.func @f(%x: tensor<f32> {a = 1, \"a\" = 2}) {\n}",
     "t.mlir:1:38: error: duplicate attribute 'a'"},
    {"duplicate kernel kind",
     "func.func @f() {\n  fp8.kernel \"gemm\" () {kind = \"reduce\"} : () -> ()\n}",
     "t.mlir:2:14: error: duplicate attribute 'kind' (given as the kernel's string and in its "
     "attribute dictionary)"},
    {"integer overflow", "func.func @f(%x: tensor<f32> {m = 9223372036854775808}) {\n}",
     "t.mlir:1:35: error: integer '9223372036854775808' does not fit in 64 bits"},
    {"negative integer overflow", "func.func @f(%x: tensor<f32> {m = -9223372036854775809}) {\n}",
     "t.mlir:1:35: error: integer '-9223372036854775809' does not fit in 64 bits"},
    {"bad attribute value", "func.func @f(%x: tensor<f32> {m = tanh}) {\n}",
     "t.mlir:1:35: error: invalid attribute value 'tanh' (expected true, false, an integer, a "
     "string or a dtype name)"},
    {"attribute without value", "func.func @f(%x: tensor<f32> {unit}) {\n}",
     "t.mlir:1:35: error: expected '=' after the attribute name, got '}'"},
    {"bad integer type", "func.func @f(%x: tensor<f32> {m = 1 : f32}) {\n}",
     "t.mlir:1:39: error: expected 'i64' or 'i32' after ':' in an integer attribute, got 'f32'"},
    {"garbage bytes", "func.func @f() {\n  \x01\xff\n}", "t.mlir:2:3: error: unexpected byte 0x01"},
    {"stray character", "func.func @f() {\n  # comment\n}",
     "t.mlir:2:3: error: unexpected character '#'"},
    {"lone minus", "func.func @f() - {\n}", "t.mlir:1:16: error: unexpected character '-'"},
    {"percent without name", "func.func @f(% : tensor<f32>) {\n}",
     "t.mlir:1:14: error: expected a name after '%'"},
    {"top-level junk", "func.func @f() {\n}\nfoo",
     "t.mlir:3:1: error: expected 'func.func', got 'foo'"},
    {"function without @", "func.func f() {\n}",
     "t.mlir:1:11: error: expected a function name ('@name'), got 'f'"},
    {"missing =",
     "func.func @f(%x: tensor<f32>) {\n  %y fp8.relu %x : (tensor<f32>) -> tensor<f32>\n}",
     "t.mlir:2:6: error: expected '=' after the result names, got 'fp8.relu'"},
    {"missing colon", "func.func @f(%x: tensor<f32>) {\n  %y = fp8.relu %x\n}",
     "t.mlir:3:1: error: expected ':' and the op's function type, got '}'"},
    {"missing arrow",
     "func.func @f(%x: tensor<f32>) {\n  %y = fp8.relu %x : (tensor<f32>) tensor<f32>\n}",
     "t.mlir:2:36: error: expected '->' after the operand types, got 'tensor<f32>'"},
    {"op name expected", "func.func @f() {\n  %y = 42\n}",
     "t.mlir:2:8: error: expected an op name, got '42'"},
    {"deep nesting", nullptr, "t.mlir:66:33: error: regions nested deeper than 32 levels"},
};

class IrParserErrorCase : public testing::TestWithParam<ErrorCase> {};

TEST_P(IrParserErrorCase, ExactMessageAndLocation) {
  const ErrorCase &c = GetParam();
  std::string text = c.text ? std::string(c.text) : nestedKernels(33);
  EXPECT_EQ(parseError(text), c.error);
}

INSTANTIATE_TEST_SUITE_P(All, IrParserErrorCase, testing::ValuesIn(kErrors),
                         [](const testing::TestParamInfo<ErrorCase> &info) {
                           std::string name = info.param.name;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(IrParserErrors, UnknownOpListsKnownOps) {
  std::string e = parseError("func.func @f(%x: tensor<4xf32>) {\n  %y = fp8.sigmoid %x : "
                             "(tensor<4xf32>) -> tensor<4xf32>\n}");
  EXPECT_EQ(e.rfind("t.mlir:2:8: error: unknown op 'fp8.sigmoid' (known ops: fp8.linear, ", 0), 0u)
      << e;
  for (const OpInfo &info : allOpInfos())
    EXPECT_NE(e.find(std::string(info.name)), std::string::npos) << info.name;
  EXPECT_EQ(parseError("func.func @f() {\n  func.func @g() {\n}")
                .rfind("t.mlir:2:3: error: unknown op 'func.func'", 0),
            0u);
}

TEST(IrParserErrors, FirstLineOffsetsErrors) {
  EXPECT_EQ(parseError(
                "\nfunc.func @f() {\n  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}", 10),
            "t.mlir:12:17: error: use of undefined value '%x'");
}

TEST(IrParserErrors, GarbageNeverCrashes) {
  // Prefixes of a valid file, and a few hostile buffers: each parses or fails with one error.
  std::string text = kMlp;
  for (size_t n = 0; n <= text.size(); ++n) {
    DiagnosticEngine diag;
    std::unique_ptr<Module> m = parseModule(std::string_view(text).substr(0, n), "t", diag);
    EXPECT_EQ(m == nullptr, diag.hasErrors()) << n;
  }
  for (std::string bad :
       {std::string(100000, '{'), std::string(100000, '('),
        std::string("func.func @f() {") + std::string(50000, '}'), std::string(1 << 16, '\0'),
        std::string("\"") + std::string(1000, '\\')}) {
    DiagnosticEngine diag;
    EXPECT_FALSE(parseModule(bad, "t", diag));
    EXPECT_EQ(diag.numErrors(), 1u);
  }
}

// --- splitInputFile / readSource ------------------------------------------------------------

TEST(IrSplitInputFile, ChunksAndLineNumbers) {
  std::string text = "a\nb\n// -----\nc\n//   -----\n// -----   \r\nd\n// -----\n";
  std::vector<SourceChunk> chunks = splitInputFile(text);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].text, "a\nb\n");
  EXPECT_EQ(chunks[0].firstLine, 1u);
  EXPECT_EQ(chunks[1].text, "c\n//   -----\n");
  EXPECT_EQ(chunks[1].firstLine, 4u);
  EXPECT_EQ(chunks[2].text, "d\n");
  EXPECT_EQ(chunks[2].firstLine, 7u);
  EXPECT_EQ(chunks[3].text, "");
  EXPECT_EQ(chunks[3].firstLine, 9u);
}

TEST(IrSplitInputFile, NoSeparator) {
  for (std::string_view text : {std::string_view(""), std::string_view("x\ny")}) {
    std::vector<SourceChunk> chunks = splitInputFile(text);
    ASSERT_EQ(chunks.size(), 1u);
    EXPECT_EQ(chunks[0].text, text);
    EXPECT_EQ(chunks[0].firstLine, 1u);
  }
  // A separator on the last line without a newline.
  std::vector<SourceChunk> chunks = splitInputFile("x\n// -----");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].text, "x\n");
  EXPECT_EQ(chunks[1].text, "");
  EXPECT_EQ(chunks[1].firstLine, 3u);
}

TEST(IrSplitInputFile, ErrorsCarryFileLines) {
  std::string text = "func.func @a() {\n  return\n}\n// -----\n\nfunc.func @b() {\n"
                     "  %y = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n}\n";
  std::vector<SourceChunk> chunks = splitInputFile(text);
  ASSERT_EQ(chunks.size(), 2u);
  parseOk(chunks[0].text, chunks[0].firstLine);
  EXPECT_EQ(parseError(chunks[1].text, chunks[1].firstLine),
            "t.mlir:7:17: error: use of undefined value '%x'");
}

TEST(IrReadSource, FileAndErrors) {
  std::filesystem::path dir = std::filesystem::temp_directory_path();
  std::filesystem::path p = dir / ("fp8c-parser-test-" + std::to_string(::getpid()) + ".mlir");
  {
    std::ofstream out(p, std::ios::binary);
    out << std::string("a\0b\n", 4);
  }
  Expected<std::string> text = readSource(p.string());
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(*text, std::string("a\0b\n", 4));
  std::filesystem::remove(p);

  Expected<std::string> missing = readSource(p.string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "cannot open '" + p.string() + "': No such file or directory");
  Expected<std::string> isDir = readSource(dir.string());
  ASSERT_FALSE(isDir);
  EXPECT_EQ(isDir.error(), "cannot read '" + dir.string() + "': it is a directory");
}

} // namespace
} // namespace fp8c
