// Printer tests: exact text of printed graphs (layout, signatures, kernels, attributes), name
// uniquing, and round trips: print(parse(text)) == text for printed text of every op kind, and a
// graph built with GraphBuilder printed, parsed back and printed again.
#include "ir/Printer.h"
#include "ir/Builder.h"
#include "ir/Parser.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

namespace fp8c {
namespace {

std::string roundTrip(std::string_view text) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "t.mlir", diag);
  if (!m)
    return "parse failed: " + diag.str();
  return toString(*m);
}

const TensorType kT4{{4}, DType::F32};
const TensorType kScalar{{}, DType::F32};

/// Appends a single-result op of type `t` named `name` to `block`.
Value *addOp(Block &block, OpKind kind, std::vector<Value *> operands, const TensorType &t,
             std::string name, AttrDict attrs = {}) {
  std::vector<TensorType> types{t};
  Op *op = block.append(Op::create(kind, operands, types, std::move(attrs), Location::unknown()));
  op->result()->setName(std::move(name));
  return op->result();
}

void addReturn(Block &block, std::vector<Value *> operands, OpKind kind = OpKind::Return) {
  block.append(Op::create(kind, operands, {}, {}, Location::unknown()));
}

TEST(IrPrinter, RoundTripsEveryOpKind) {
  // Printed text (so print(parse(x)) must give x back byte for byte).
  const std::string text =
      R"(func.func @all(%x: tensor<8x128xbf16>, %w: tensor<16x128xbf16>, %b: tensor<16xbf16>, %h: tensor<4xf32> {fp8.state = "h"}) -> (tensor<8x16xf32>, tensor<4xf32> {fp8.state = "h"}) {
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
  %15 = fp8.history_scale %h {algo = "most_recent", dtype = f8E5M2, margin = 3, pow2 = true} : (tensor<4xf32>) -> tensor<f32>
  %16 = fp8.amax %w : (tensor<16x128xbf16>) -> tensor<f32>
  %17 = fp8.history_push %h, %16 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = fp8.cast %w, %15 : (tensor<16x128xbf16>, tensor<f32>) -> tensor<16x128xf8E5M2>
  %y, %m = fp8.kernel "gemm" (%13, %18, %12, %15) {backend = "generated", gemm_backend = "auto"} : (tensor<8x128xf8E4M3FN>, tensor<16x128xf8E5M2>, tensor<8xf32>, tensor<f32>) -> (tensor<8x16xf32>, tensor<f32>) {
  ^bb0(%a: tensor<8x128xf8E4M3FN>, %bb: tensor<16x128xf8E5M2>, %sa: tensor<8xf32>, %sb: tensor<f32>):
    %mm = fp8.scaled_matmul %a, %bb, %sa, %sb {fast_accum = true, fp8.role = "main", out = f32} : (tensor<8x128xf8E4M3FN>, tensor<16x128xf8E5M2>, tensor<8xf32>, tensor<f32>) -> tensor<8x16xf32>
    %am = fp8.amax %mm {fp8.role = "epilogue"} : (tensor<8x16xf32>) -> tensor<f32>
    fp8.yield %mm, %am : tensor<8x16xf32>, tensor<f32>
  }
  return %y, %17 : tensor<8x16xf32>, tensor<4xf32>
}
)";
  EXPECT_EQ(roundTrip(text), text);

  // The text holds every op kind of Ops.def (a new row fails here until it is added above).
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "t.mlir", diag);
  ASSERT_TRUE(m) << diag.str();
  std::set<OpKind> seen;
  m->graphs()[0]->walk([&](const Op *op) { seen.insert(op->kind()); });
  for (const OpInfo &info : allOpInfos())
    EXPECT_TRUE(seen.count(info.kind)) << info.name << " is not covered";
}

TEST(IrPrinter, RoundTripsSignaturesAndModules) {
  // Zero results (no arrow), quoted symbols and attribute names, string escapes, several
  // results, nested and region-less kernels, a kernel whose kind is not a string, attributes on
  // a terminator, and two functions of one name (the verifier's business).
  const std::string text = R"(func.func @none() {
  return
}

func.func @"two words"(%0: tensor<?x1x0xi32> {a = -9223372036854775808, "b c" = "\"\\\n\t\7F\FF"}) -> tensor<?x1x0xi32> {
  return %0 : tensor<?x1x0xi32>
}

func.func @pair(%x: tensor<f16>) -> (tensor<f16>, tensor<f16>) {
  %x.1 = fp8.relu %x {flag = true, kind = f8E4M3FN, zz = 0} : (tensor<f16>) -> tensor<f16>
  return %x.1, %x : tensor<f16>, tensor<f16>
}

func.func @none() {
  %0, %1 = fp8.relu : () -> (tensor<f32>, tensor<f32>)
  fp8.kernel "pointwise" () : () -> () {
  ^bb0:
    fp8.kernel (%0) {kind = 3} : (tensor<f32>) -> () {
    ^bb0:
      fp8.yield
    }
    fp8.yield
  }
  fp8.kernel () : () -> ()
  return {note = "terminator attributes print"}
}
)";
  EXPECT_EQ(roundTrip(text), text);
}

TEST(IrPrinter, EmptyModulePrintsNothing) {
  EXPECT_EQ(toString(Module()), "");
  EXPECT_EQ(roundTrip("// nothing\n"), "");
}

TEST(IrPrinter, NormalizesLayout) {
  EXPECT_EQ(roundTrip("func.func @f(%x: tensor<0004xf32>)->(tensor<4xf32>){%y=fp8.gelu %x{b=1,a=2,"
                      "approximate=\"tanh\"}:(tensor<4xf32>)->(tensor<4xf32>)\nfunc.return %y:"
                      "tensor<4xf32>}"),
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %y = fp8.gelu %x {a = 2, approximate = \"tanh\", b = 1} : (tensor<4xf32>) -> "
            "tensor<4xf32>\n"
            "  return %y : tensor<4xf32>\n"
            "}\n");
}

TEST(IrPrinter, UniquesNamesFunctionWide) {
  Graph g("names");
  Value *x = g.addInput(kT4, "x");
  Value *x1 = g.addInput(kT4, "x");
  g.addInput(kT4, "");
  g.addInput(kT4, "arg1");
  g.addInput(kT4, "");
  Block &b = g.body();
  Value *r = addOp(b, OpKind::Relu, {x}, kT4, "");
  r = addOp(b, OpKind::Relu, {r}, kT4, "0");
  r = addOp(b, OpKind::Relu, {r}, kT4, "");
  r = addOp(b, OpKind::Relu, {r}, kT4, "x");
  r = addOp(b, OpKind::Relu, {r}, kT4, "x_2");
  r = addOp(b, OpKind::Relu, {r}, kT4, "9lives");
  r = addOp(b, OpKind::Relu, {r}, kT4, "a b/c");
  r = addOp(b, OpKind::Relu, {r}, kT4, "h\xc3\xa9llo");
  r = addOp(b, OpKind::Relu, {r}, kT4, "-");
  r = addOp(b, OpKind::Add, {r, x1}, kT4, "007");
  addReturn(b, {r});
  g.addResultType(kT4);

  const std::string want =
      "func.func @names(%x: tensor<4xf32>, %x_1: tensor<4xf32>, %arg0: tensor<4xf32>, "
      "%arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %0 = fp8.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %1 = fp8.relu %0 : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %2 = fp8.relu %1 : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %x_2 = fp8.relu %2 : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %x_2_1 = fp8.relu %x_2 : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %_9lives = fp8.relu %x_2_1 : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %a_b_c = fp8.relu %_9lives : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %h__llo = fp8.relu %a_b_c : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %- = fp8.relu %h__llo : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %007 = fp8.add %-, %x_1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
      "  return %007 : tensor<4xf32>\n"
      "}\n";
  EXPECT_EQ(toString(g), want);
  EXPECT_EQ(roundTrip(want), want);
  // Printing does not change the hints.
  EXPECT_EQ(x1->name(), "x");
}

TEST(IrPrinter, RegionArgumentsGetFreshNames) {
  Graph g("k");
  Value *in = g.addInput(kT4, "g");
  Value *s = g.addInput(kScalar, "s");
  std::vector<Value *> operands{in, s};
  std::vector<TensorType> types{kT4};
  AttrDict attrs;
  attrs.set("kind", Attribute("pointwise"));
  Op *k = g.body().append(Op::create(OpKind::Kernel, operands, types, attrs, Location::unknown()));
  k->result()->setName("y");
  Block &body = k->createBody();
  Value *a0 = body.addArgument(kT4, "g");
  Value *a1 = body.addArgument(kScalar, "s");
  Value *r = addOp(body, OpKind::Mul, {a0, a1}, kT4, "");
  addReturn(body, {r}, OpKind::Yield);
  addReturn(g.body(), {k->result()});
  g.addResultType(kT4);

  const std::string want =
      "func.func @k(%g: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {\n"
      "  %y = fp8.kernel \"pointwise\" (%g, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> "
      "{\n"
      "  ^bb0(%g_1: tensor<4xf32>, %s_1: tensor<f32>):\n"
      "    %0 = fp8.mul %g_1, %s_1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n"
      "    fp8.yield %0 : tensor<4xf32>\n"
      "  }\n"
      "  return %y : tensor<4xf32>\n"
      "}\n";
  EXPECT_EQ(toString(g), want);
  EXPECT_EQ(roundTrip(want), want);
}

TEST(IrPrinter, UnnamedBlockArgumentsAndKernelWithoutKind) {
  Graph g("anon");
  Value *in = g.addInput(kT4, "");
  std::vector<Value *> operands{in};
  Op *k = g.body().append(Op::create(OpKind::Kernel, operands, {}, {}, Location::unknown()));
  Block &body = k->createBody();
  body.addArgument(kT4, "");
  addReturn(body, {}, OpKind::Yield);
  addReturn(g.body(), {});
  EXPECT_EQ(toString(g), "func.func @anon(%arg0: tensor<4xf32>) {\n"
                         "  fp8.kernel (%arg0) : (tensor<4xf32>) -> () {\n"
                         "  ^bb0(%arg1: tensor<4xf32>):\n"
                         "    fp8.yield\n"
                         "  }\n"
                         "  return\n"
                         "}\n");
  EXPECT_EQ(roundTrip(toString(g)), toString(g));
}

TEST(IrPrinter, BuilderGraphRoundTrips) {
  GraphBuilder b("mlp");
  Value *x = b.input("x", {{kDynamic, 64}, DType::BF16});
  Value *w1 = b.input("w1", {{256, 64}, DType::BF16});
  Value *b1 = b.input("b1", {{256}, DType::BF16});
  Value *hist = b.stateInput("amax", {{16}, DType::F32});
  Value *h = b.linear(x, w1, b1, "h");
  Value *g = b.gelu(h, "tanh");
  Value *a = b.amax(g);
  Value *s = b.historyScale(hist);
  Value *q = b.cast(g, s, DType::F8E5M2);
  Value *newHist = b.historyPush(hist, a, "amax");
  b.output(q);
  b.stateOutput("amax", newHist);
  Expected<std::unique_ptr<Graph>> graph = b.finish();
  ASSERT_TRUE(graph) << graph.error();

  const std::string want =
      "func.func @mlp(%x: tensor<?x64xbf16>, %w1: tensor<256x64xbf16>, %b1: tensor<256xbf16>, "
      "%amax: tensor<16xf32> {fp8.state = \"amax\"}) -> (tensor<?x256xf8E5M2>, tensor<16xf32> "
      "{fp8.state = \"amax\"}) {\n"
      "  %h = fp8.linear %x, %w1, %b1 : (tensor<?x64xbf16>, tensor<256x64xbf16>, "
      "tensor<256xbf16>) -> tensor<?x256xbf16>\n"
      "  %0 = fp8.gelu %h {approximate = \"tanh\"} : (tensor<?x256xbf16>) -> "
      "tensor<?x256xbf16>\n"
      "  %1 = fp8.amax %0 {granularity = \"tensor\"} : (tensor<?x256xbf16>) -> tensor<f32>\n"
      "  %2 = fp8.history_scale %amax {algo = \"max\", dtype = f8E4M3FN, margin = 0} : "
      "(tensor<16xf32>) -> tensor<f32>\n"
      "  %3 = fp8.cast %0, %2 {granularity = \"tensor\"} : (tensor<?x256xbf16>, tensor<f32>) -> "
      "tensor<?x256xf8E5M2>\n"
      "  %amax_1 = fp8.history_push %amax, %1 : (tensor<16xf32>, tensor<f32>) -> "
      "tensor<16xf32>\n"
      "  return %3, %amax_1 : tensor<?x256xf8E5M2>, tensor<16xf32>\n"
      "}\n";
  const std::string printed = toString(**graph);
  EXPECT_EQ(printed, want);

  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(printed, "printed.mlir", diag);
  ASSERT_TRUE(m) << diag.str();
  ASSERT_EQ(m->graphs().size(), 1u);
  const Graph &re = *m->graphs()[0];
  EXPECT_EQ(toString(re), printed);
  // Same structure: kinds, attributes, types, and the use-def edges.
  std::vector<Op *> a0 = (*graph)->body().opList(), a1 = re.body().opList();
  ASSERT_EQ(a0.size(), a1.size());
  for (size_t i = 0; i < a0.size(); ++i) {
    EXPECT_EQ(a0[i]->kind(), a1[i]->kind());
    EXPECT_EQ(a0[i]->attrs(), a1[i]->attrs());
    ASSERT_EQ(a0[i]->numOperands(), a1[i]->numOperands());
    for (unsigned j = 0; j < a0[i]->numOperands(); ++j) {
      const Value *v0 = a0[i]->operand(j), *v1 = a1[i]->operand(j);
      EXPECT_EQ(v0->type(), v1->type());
      EXPECT_EQ(v0->isBlockArgument(), v1->isBlockArgument());
      EXPECT_EQ(v0->index(), v1->index());
    }
  }
  EXPECT_EQ(re.inputAttrs(3), (*graph)->inputAttrs(3));
  EXPECT_EQ(re.resultAttrs(), (*graph)->resultAttrs());
  EXPECT_EQ(re.resultTypes(), (*graph)->resultTypes());
}

TEST(IrPrinter, ModuleSeparatesFunctionsWithABlankLine) {
  Module m;
  for (const char *name : {"a", "b"}) {
    auto g = std::make_unique<Graph>(name);
    addReturn(g->body(), {});
    m.add(std::move(g));
  }
  EXPECT_EQ(toString(m), "func.func @a() {\n  return\n}\n\nfunc.func @b() {\n  return\n}\n");
  std::ostringstream os;
  printGraph(*m.graphs()[1], os);
  EXPECT_EQ(os.str(), "func.func @b() {\n  return\n}\n");
}

TEST(IrPrinter, InconsistentIrStillPrints) {
  // Result attributes out of step with result types, a value from another graph: invalid IR
  // prints without crashing (the verifier reports it).
  Graph other("other");
  Value *foreign = other.addInput(kT4, "f");
  Graph g("bad");
  g.mutableResultTypes().push_back(kT4);
  g.mutableResultTypes().push_back(kT4);
  g.mutableResultAttrs().resize(1);
  addReturn(g.body(), {foreign, foreign});
  EXPECT_EQ(toString(g), "func.func @bad() -> (tensor<4xf32>, tensor<4xf32>) {\n"
                         "  return %f, %f : tensor<4xf32>, tensor<4xf32>\n"
                         "}\n");
}

} // namespace
} // namespace fp8c
