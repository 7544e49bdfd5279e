// The verifier (ir/Verifier.h): one test per rule, each building the bad graph directly with
// Op::create / Block / Graph / OpBuilder (so graphs the parser cannot produce are covered too),
// and checking the exact diagnostic text and its location; plus valid graphs of every op, a
// kernel with a region and a state pair, which must verify clean.
#include "ir/Verifier.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fp8c {
namespace {

const char *const kFile = "v.mlir";

Location at(uint32_t line, uint32_t col = 3) { return Location::make(kFile, line, col); }

TensorType T(std::vector<int64_t> shape, DType d = DType::F32) {
  return TensorType(std::move(shape), d);
}

AttrDict attrs(std::initializer_list<std::pair<std::string, Attribute>> list) {
  AttrDict d;
  for (const auto &[k, v] : list)
    d.set(k, v);
  return d;
}

/// A graph under construction: `@f` at v.mlir:1:1, ops appended to its body (or a kernel's).
struct TestGraph {
  std::unique_ptr<Graph> g = std::make_unique<Graph>("f", at(1, 1));
  OpBuilder b{g->body()};

  Value *in(std::string name, TensorType t, AttrDict a = {}) {
    return g->addInput(std::move(t), std::move(name), std::move(a));
  }
  Op *op(OpKind k, std::vector<Value *> operands, std::vector<TensorType> results, uint32_t line,
         AttrDict a = {}) {
    return b.create(k, operands, results, std::move(a), at(line));
  }
  /// A single-result op; the result gets `name` as its name hint.
  Value *val(OpKind k, std::vector<Value *> operands, TensorType result, uint32_t line,
             AttrDict a = {}, std::string name = "") {
    Value *v = op(k, std::move(operands), {std::move(result)}, line, std::move(a))->result();
    v->setName(std::move(name));
    return v;
  }
  /// func.return of `vs`, and the signature's result types set to theirs.
  Op *ret(std::vector<Value *> vs, uint32_t line) {
    for (Value *v : vs)
      g->addResultType(v->type());
    return op(OpKind::Return, std::move(vs), {}, line);
  }
  /// A kernel of `kind` whose region has one argument per operand, of the operand's type.
  Op *kernel(std::vector<Value *> operands, std::vector<TensorType> results, uint32_t line,
             std::string kind = "pointwise") {
    Op *k = op(OpKind::Kernel, operands, std::move(results), line,
               attrs({{"kind", Attribute(std::move(kind))}}));
    Block &body = k->createBody();
    for (Value *v : operands)
      body.addArgument(v->type());
    return k;
  }
};

/// Verifies `g` and returns its diagnostics, one `file:line:col: error: msg` string each.
std::vector<std::string> verify(const Graph &g) {
  DiagnosticEngine diag;
  bool ok = verifyGraph(g, diag);
  EXPECT_EQ(ok, !diag.hasErrors());
  std::vector<std::string> out;
  for (const Diagnostic &d : diag.diagnostics())
    out.push_back(d.str());
  return out;
}

using Errors = std::vector<std::string>;

std::string err(uint32_t line, const std::string &msg, uint32_t col = 3) {
  return at(line, col).str() + ": error: " + msg;
}

// --- valid graphs ---------------------------------------------------------------------------

TEST(VerifierValidTest, EveryModelOpFromTheBuilder) {
  GraphBuilder b("model");
  Value *x = b.input("x", T({kDynamic, 64}, DType::BF16));
  Value *w = b.input("w", T({32, 64}, DType::BF16));
  Value *bias = b.input("b", T({32}, DType::BF16));
  Value *s = b.input("s", T({}, DType::BF16));
  Value *m = b.input("m", T({64, 16}));
  Value *h = b.linear(x, w, bias, "h");
  Value *h2 = b.linear(x, w);
  Value *a = b.add(h, h2);
  Value *p = b.mul(s, a); // rank-0 broadcast
  Value *g = b.gelu(b.relu(p), "tanh");
  Value *y = b.swiglu(b.silu(g), g);
  Value *c = b.convert(y, DType::F32);
  Value *t = b.transpose(c);
  b.output(t);
  b.output(b.matmul(b.convert(x, DType::F32), m));
  Expected<std::unique_ptr<Graph>> graph = b.finish();
  ASSERT_TRUE(graph) << graph.error();
  EXPECT_EQ(verify(**graph), Errors{});
}

TEST(VerifierValidTest, EveryQuantOpAndAStatePairFromTheBuilder) {
  GraphBuilder b("quant");
  Value *x = b.input("x", T({256, 256}, DType::BF16));
  Value *w = b.input("w", T({128, 256}, DType::BF16));
  Value *hist = b.stateInput("hist", T({16}));
  Value *bias = b.input("bias", T({128}, DType::BF16));
  for (Granularity g : {Granularity::Tensor, Granularity::Row, Granularity::Col,
                        Granularity::Block1x128, Granularity::Block128x128}) {
    Value *sx = b.scale(b.amax(x, g), DType::F8E4M3FN, 1, true);
    Value *q = b.cast(x, sx, DType::F8E4M3FN, g);
    b.output(b.dequant(q, sx, DType::F32, g));
  }
  // Tensorwise, rowwise and blockwise scaled_matmul.
  Value *ax = b.amax(x), *aw = b.amax(w);
  Value *sx = b.historyScale(hist, "most_recent", DType::F8E4M3FN, 0);
  Value *sw = b.scale(aw, DType::F8E5M2);
  Value *x8 = b.cast(x, sx), *w8 = b.cast(w, sw, DType::F8E5M2);
  b.output(b.scaledMatmul(x8, w8, sx, sw, bias, DType::BF16, true));
  Value *rx = b.scale(b.amax(x, Granularity::Row)), *rw = b.scale(b.amax(w, Granularity::Row));
  b.output(b.scaledMatmul(b.cast(x, rx, DType::F8E4M3FN, Granularity::Row),
                          b.cast(w, rw, DType::F8E4M3FN, Granularity::Row), rx, rw, nullptr,
                          DType::F32));
  Value *bx = b.scale(b.amax(x, Granularity::Block1x128));
  Value *bw = b.scale(b.amax(w, Granularity::Block128x128));
  b.output(b.scaledMatmul(b.cast(x, bx, DType::F8E4M3FN, Granularity::Block1x128),
                          b.cast(w, bw, DType::F8E4M3FN, Granularity::Block128x128), bx, bw,
                          nullptr, DType::F8E4M3FN));
  b.stateOutput("hist", b.historyPush(hist, ax));
  Expected<std::unique_ptr<Graph>> graph = b.finish();
  ASSERT_TRUE(graph) << graph.error();
  EXPECT_EQ(verify(**graph), Errors{});
}

TEST(VerifierValidTest, KernelWithRegion) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Value *w = t.in("w", T({16, 8}));
  Op *k = t.kernel({x, w}, {T({4, 16}), T({4, 16})}, 2, "gemm");
  // The fusion plan a gemm kernel carries (ir/KernelPlan.h).
  k->setAttr("backend", Attribute("cublaslt"));
  k->setAttr("gemm_backend", Attribute("auto"));
  OpBuilder rb(*k->body());
  Value *h = rb.create(OpKind::Linear, k->body()->arguments(), std::vector{T({4, 16})},
                       attrs({{"fp8.role", Attribute("main")}}), at(3))
                 ->result();
  Value *r = rb.create(OpKind::Relu, std::vector{h}, std::vector{T({4, 16})},
                       attrs({{"fp8.role", Attribute("epilogue")}}), at(4))
                 ->result();
  rb.create(OpKind::Yield, std::vector{h, r}, {}, {}, at(5));
  Value *y = t.val(OpKind::Add, {k->result(0), k->result(1)}, T({4, 16}), 6);
  t.ret({y}, 7);
  EXPECT_EQ(verify(*t.g), Errors{});
}

TEST(VerifierValidTest, NonFp8InputAndResultAttributesAreAllowed) {
  TestGraph t;
  Value *x = t.in("x", T({4}), attrs({{"my.note", Attribute("keep")}}));
  t.op(OpKind::Return, {x}, {}, 2);
  t.g->addResultType(x->type(), attrs({{"other", Attribute(int64_t(3))}}));
  EXPECT_EQ(verify(*t.g), Errors{});
}

// --- rule 1: operand and result counts ------------------------------------------------------

TEST(VerifierCountsTest, OperandCount) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Value *a = t.val(OpKind::Linear, {x}, T({4, 8}), 2);
  Value *b = t.val(OpKind::Matmul, {x, x, x}, T({4, 8}), 3);
  Value *c = t.val(OpKind::Relu, {a, b}, T({4, 8}), 4);
  t.ret({c}, 5);
  // No type errors follow a wrong count.
  EXPECT_EQ(verify(*t.g), (Errors{err(2, "'fp8.linear' op takes 2 to 3 operands, got 1"),
                                  err(3, "'fp8.matmul' op takes 2 operands, got 3"),
                                  err(4, "'fp8.relu' op takes 1 operand, got 2")}));
}

TEST(VerifierCountsTest, ResultCount) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *add = t.op(OpKind::Add, {x, x}, {T({4}), T({4})}, 2);
  t.op(OpKind::Relu, {x}, {}, 3);
  t.op(OpKind::Return, {add->result(0)}, {T({4})}, 4);
  t.g->addResultType(T({4}));
  EXPECT_EQ(verify(*t.g), (Errors{err(2, "'fp8.add' op has 1 result, got 2"),
                                  err(3, "'fp8.relu' op has 1 result, got 0"),
                                  err(4, "'func.return' op has no results, got 1")}));
}

// --- rule 2: attributes -----------------------------------------------------------------------

TEST(VerifierAttrsTest, UnknownWrongKindNotAllowedAndOutOfRange) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Value *a = t.val(OpKind::Gelu, {x}, T({4, 8}), 2, attrs({{"foo", Attribute(true)}}));
  Value *b = t.val(OpKind::Relu, {a}, T({4, 8}), 3, attrs({{"foo", Attribute(true)}}));
  Value *c = t.val(OpKind::Gelu, {b}, T({4, 8}), 4, attrs({{"approximate", Attribute("exact")}}));
  Value *m = t.val(OpKind::Amax, {c}, T({}), 5);
  Value *s1 = t.val(OpKind::Scale, {m}, T({}), 6, attrs({{"margin", Attribute("big")}}));
  Value *s2 = t.val(OpKind::Scale, {s1}, T({}), 7, attrs({{"margin", Attribute(65)}}));
  t.ret({s2}, 8);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.gelu' op unknown attribute 'foo' (known: approximate)"),
                    err(3, "'fp8.relu' op unknown attribute 'foo' (the op takes none)"),
                    err(4, "'fp8.gelu' op attribute 'approximate' has value \"exact\"; expected "
                           "one of: none|tanh"),
                    err(6, "'fp8.scale' op attribute 'margin' must be an integer, got \"big\""),
                    err(7, "'fp8.scale' op attribute 'margin' must be in [0, 64], got 65")}));
}

TEST(VerifierAttrsTest, BadGranularitySkipsTypeRulesButOtherBadAttrsDoNot) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8, 2}));
  // A 3-D input would be an error for "row"; with an unknown granularity only that is reported.
  Value *m = t.val(OpKind::Amax, {x}, T({4}), 2, attrs({{"granularity", Attribute("rows")}}));
  // A bad margin is independent of a type error: both are reported.
  Value *xb = t.in("xb", T({4}, DType::BF16));
  Value *s = t.val(OpKind::Scale, {xb}, T({4}), 3, attrs({{"margin", Attribute(-1)}}));
  t.ret({m, s}, 4);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.amax' op attribute 'granularity' has value \"rows\"; expected "
                           "one of: tensor|row|col|block_1x128|block_128x128"),
                    err(3, "'fp8.scale' op attribute 'margin' must be in [0, 64], got -1"),
                    err(3, "'fp8.scale' op amax must be f32, got bf16")}));
}

TEST(VerifierAttrsTest, KernelKindRequiredAndChecked) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k1 = t.op(OpKind::Kernel, {x}, {T({4})}, 2);
  k1->createBody().addArgument(x->type());
  OpBuilder(*k1->body()).create(OpKind::Yield, k1->body()->arguments(), {}, {}, at(3));
  Op *k2 = t.kernel({k1->result()}, {T({4})}, 4, "fused");
  OpBuilder(*k2->body()).create(OpKind::Yield, k2->body()->arguments(), {}, {}, at(5));
  t.ret({k2->result()}, 6);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.kernel' op requires attribute 'kind'"),
                    err(4, "'fp8.kernel' op attribute 'kind' has value \"fused\"; expected one "
                           "of: gemm|pointwise|reduce")}));
}

// --- rule 3: operand types and the declared result type ---------------------------------------

TEST(VerifierTypesTest, OperandTypesViaTypeRules) {
  TestGraph t;
  Value *x = t.in("x", T({4, 4096}));
  Value *w = t.in("w", T({16, 512}));
  Value *y = t.val(OpKind::Linear, {x, w}, T({4, 16}), 2);
  t.ret({y}, 3);
  EXPECT_EQ(verify(*t.g),
            Errors{err(2, "'fp8.linear' op K mismatch: input has 4096, weight has 512")});
}

TEST(VerifierTypesTest, DeclaredResultTypeMustEqualInferred) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Value *w = t.in("w", T({16, 8}));
  Value *y = t.val(OpKind::Linear, {x, w}, T({4, 8}), 2);
  Value *z = t.val(OpKind::Relu, {y}, T({4, 8}, DType::BF16), 3);
  t.ret({z}, 4);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.linear' op result type tensor<4x8xf32> does not match the "
                           "inferred type tensor<4x16xf32>"),
                    err(3, "'fp8.relu' op result type tensor<4x8xbf16> does not match the "
                           "inferred type tensor<4x8xf32>")}));
}

TEST(VerifierTypesTest, DeclaredResultDTypeIsPassedToTypeRules) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Value *s = t.in("s", T({}));
  Value *a = t.val(OpKind::Convert, {x}, T({4, 8}, DType::I32), 2);
  Value *q = t.val(OpKind::Cast, {x, s}, T({4, 8}, DType::BF16), 3);
  Value *ok = t.val(OpKind::Cast, {x, s}, T({4, 8}, DType::F8E5M2), 4);
  Value *d = t.val(OpKind::Dequant, {ok, s}, T({4, 8}, DType::F8E4M3FN), 5);
  t.ret({a, q, d}, 6);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.convert' op result must be a float type, got i32"),
                    err(3, "'fp8.cast' op result must be f8E4M3FN or f8E5M2, got bf16"),
                    err(5, "'fp8.dequant' op result must be f32, f16 or bf16, got f8E4M3FN")}));
}

// --- rule 4: operands defined before use ------------------------------------------------------

TEST(VerifierDominanceTest, UseBeforeDef) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *ret = t.ret({x}, 5);
  // Insert `%s = add %x, %y` and then `%y = relu %x` before it: add uses %y first.
  t.b.setInsertionPoint(t.g->body(), ret);
  Op *add = t.op(OpKind::Add, {x, x}, {T({4})}, 2);
  Value *y = t.val(OpKind::Relu, {x}, T({4}), 3, {}, "y");
  add->setOperand(1, y);
  Op *mul = t.op(OpKind::Mul, {x, x}, {T({4})}, 4);
  Value *z = t.val(OpKind::Relu, {x}, T({4}), 6);
  mul->setOperand(0, z);
  mul->setOperand(1, z); // one report per value, not per use
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.add' op operand #1 (%y) is used before it is defined"),
                    err(4, "'fp8.mul' op operand #0 (result #0 of 'fp8.relu' at "
                           "v.mlir:6:3) is used before it is defined")}));
}

TEST(VerifierDominanceTest, ValueFromAnotherFunctionOrRegion) {
  TestGraph other;
  Value *foreign = other.in("foreign", T({4}));
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k = t.kernel({x}, {T({4})}, 2);
  Value *inner = OpBuilder(*k->body())
                     .create(OpKind::Relu, k->body()->arguments(), std::vector{T({4})}, {}, at(3))
                     ->result();
  inner->setName("inner");
  OpBuilder(*k->body()).create(OpKind::Yield, std::vector{inner}, {}, {}, at(4));
  Value *a = t.val(OpKind::Add, {x, foreign}, T({4}), 5);
  Value *b = t.val(OpKind::Add, {a, inner}, T({4}), 6);
  t.ret({b}, 7);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(5, "'fp8.add' op operand #1 (%foreign) is not defined in its block or an "
                           "enclosing one"),
                    err(6, "'fp8.add' op operand #1 (%inner) is not defined in its block or an "
                           "enclosing one")}));
}

// --- rule 5: func.return ------------------------------------------------------------------------

TEST(VerifierReturnTest, MissingTerminator) {
  TestGraph empty;
  EXPECT_EQ(verify(*empty.g), Errors{err(1, "function @f must end with 'func.return'", 1)});
  TestGraph t;
  Value *x = t.in("x", T({4}));
  t.val(OpKind::Relu, {x}, T({4}), 2);
  EXPECT_EQ(verify(*t.g), Errors{err(1, "function @f must end with 'func.return'", 1)});
}

TEST(VerifierReturnTest, ReturnNotLast) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  t.op(OpKind::Return, {x}, {}, 2);
  Value *y = t.val(OpKind::Relu, {x}, T({4}), 3);
  t.ret({y}, 4);
  EXPECT_EQ(verify(*t.g),
            Errors{err(2, "'func.return' op must be the last op of the function body")});
}

TEST(VerifierReturnTest, OperandsMustMatchSignature) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Value *y = t.in("y", T({8}, DType::BF16));
  t.g->addResultType(T({4}));
  t.g->addResultType(T({8}));
  t.op(OpKind::Return, {x, y}, {}, 2);
  EXPECT_EQ(verify(*t.g), Errors{err(2, "'func.return' op type of operand #1 is tensor<8xbf16>, "
                                        "but result #1 of @f is tensor<8xf32>")});
  TestGraph u;
  Value *z = u.in("z", T({4}));
  u.op(OpKind::Return, {z, z}, {}, 2);
  u.g->addResultType(T({4}));
  EXPECT_EQ(verify(*u.g),
            Errors{err(2, "'func.return' op has 2 operands, but @f returns 1 value")});
}

TEST(VerifierReturnTest, YieldAtTopLevelIsReportedOnce) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  t.op(OpKind::Yield, {x}, {}, 2);
  EXPECT_EQ(verify(*t.g),
            Errors{err(2, "'fp8.yield' op must be the last op of an 'fp8.kernel' region")});
}

// --- rule 6: fp8.kernel -------------------------------------------------------------------------

TEST(VerifierKernelTest, RegionPresence) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k = t.op(OpKind::Kernel, {x}, {T({4})}, 2, attrs({{"kind", Attribute("pointwise")}}));
  Op *add = t.op(OpKind::Add, {k->result(), x}, {T({4})}, 3);
  add->createBody();
  t.ret({add->result()}, 4);
  EXPECT_EQ(verify(*t.g), (Errors{err(2, "'fp8.kernel' op must have a region"),
                                  err(3, "'fp8.add' op must not have a region")}));
}

TEST(VerifierKernelTest, ArgumentsMatchOperands) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k1 = t.kernel({x, x}, {T({4})}, 2);
  k1->body()->eraseArgument(1);
  OpBuilder(*k1->body()).create(OpKind::Yield, k1->body()->arguments(), {}, {}, at(3));
  Op *k2 =
      t.op(OpKind::Kernel, {k1->result()}, {T({4})}, 4, attrs({{"kind", Attribute("pointwise")}}));
  Value *arg = k2->createBody().addArgument(T({4}, DType::BF16));
  OpBuilder(*k2->body()).create(OpKind::Yield, std::vector{arg}, {}, {}, at(5));
  t.ret({k2->result()}, 6);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(2, "'fp8.kernel' op region has 1 argument, but the kernel has 2 operands"),
                    err(4, "'fp8.kernel' op region argument #0 has type tensor<4xbf16>, but "
                           "operand #0 has type tensor<4xf32>"),
                    err(5, "'fp8.yield' op type of operand #0 is tensor<4xbf16>, but result #0 "
                           "of the kernel is tensor<4xf32>")}));
}

TEST(VerifierKernelTest, RegionMustEndWithYield) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k1 = t.kernel({x}, {T({4})}, 2); // empty region
  Op *k2 = t.kernel({k1->result()}, {T({4})}, 3);
  OpBuilder(*k2->body())
      .create(OpKind::Relu, k2->body()->arguments(), std::vector{T({4})}, {}, at(4));
  t.ret({k2->result()}, 5);
  EXPECT_EQ(verify(*t.g), (Errors{err(2, "'fp8.kernel' op region must end with 'fp8.yield'"),
                                  err(3, "'fp8.kernel' op region must end with 'fp8.yield'")}));
}

TEST(VerifierKernelTest, OnlyTheLastOpIsAYield) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k = t.kernel({x}, {T({4})}, 2);
  OpBuilder rb(*k->body());
  Value *a = k->body()->argument(0);
  rb.create(OpKind::Yield, std::vector{a}, {}, {}, at(3));
  rb.create(OpKind::Yield, std::vector{a}, {}, {}, at(4));
  t.ret({k->result()}, 5);
  EXPECT_EQ(verify(*t.g),
            Errors{err(3, "'fp8.yield' op must be the last op of an 'fp8.kernel' region")});
}

TEST(VerifierKernelTest, YieldMatchesResults) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *k = t.kernel({x}, {T({4}), T({4})}, 2);
  OpBuilder(*k->body()).create(OpKind::Yield, k->body()->arguments(), {}, {}, at(3));
  t.ret({k->result(0)}, 4);
  EXPECT_EQ(verify(*t.g),
            Errors{err(3, "'fp8.yield' op has 1 operand, but the kernel has 2 results")});
}

TEST(VerifierKernelTest, IsolatedFromAbove) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Value *h = t.val(OpKind::Relu, {x}, T({4}), 2);
  Op *k = t.kernel({x}, {T({4})}, 3);
  OpBuilder rb(*k->body());
  Value *a = rb.create(OpKind::Add, std::vector{x, h}, std::vector{T({4})}, {}, at(4))->result();
  Value *b = rb.create(OpKind::Mul, std::vector{a, x}, std::vector{T({4})}, {}, at(5))->result();
  rb.create(OpKind::Yield, std::vector{b}, {}, {}, at(6));
  t.ret({k->result()}, 7);
  // %x used twice inside the region: reported once.
  EXPECT_EQ(verify(*t.g),
            (Errors{err(3, "'fp8.kernel' op region uses %x, defined outside the kernel; pass it "
                           "as an operand"),
                    err(3, "'fp8.kernel' op region uses result #0 of 'fp8.relu' at v.mlir:2:3, "
                           "defined outside the kernel; pass it as an operand")}));
}

TEST(VerifierKernelTest, NoNestedKernelNoReturnInside) {
  TestGraph t;
  Value *x = t.in("x", T({4}));
  Op *outer = t.kernel({x}, {T({4})}, 2);
  OpBuilder rb(*outer->body());
  Value *a = outer->body()->argument(0);
  Op *inner = rb.create(OpKind::Kernel, std::vector{a}, std::vector{T({4})},
                        attrs({{"kind", Attribute("pointwise")}}), at(3));
  inner->createBody().addArgument(a->type());
  OpBuilder(*inner->body()).create(OpKind::Yield, inner->body()->arguments(), {}, {}, at(4));
  rb.create(OpKind::Return, std::vector{inner->result()}, {}, {}, at(5));
  t.ret({outer->result()}, 6);
  // No "region must end with 'fp8.yield'" on top of the misplaced return.
  EXPECT_EQ(verify(*t.g),
            (Errors{err(3, "'fp8.kernel' op cannot be nested inside another 'fp8.kernel'"),
                    err(5, "'func.return' op cannot be used inside an 'fp8.kernel' region; end "
                           "the region with 'fp8.yield'")}));
}

TEST(VerifierKernelTest, OpsInsideRegionsFollowTheSameRules) {
  TestGraph t;
  Value *x = t.in("x", T({4, 8}));
  Op *k = t.kernel({x}, {T({4, 8})}, 2);
  OpBuilder rb(*k->body());
  Value *a = k->body()->argument(0);
  Value *r = rb.create(OpKind::Transpose, std::vector{a}, std::vector{T({4, 8})},
                       attrs({{"perm", Attribute(1)}}), at(3))
                 ->result();
  rb.create(OpKind::Yield, std::vector{r}, {}, {}, at(4));
  t.ret({k->result()}, 5);
  EXPECT_EQ(verify(*t.g),
            (Errors{err(3, "'fp8.transpose' op unknown attribute 'perm' (the op takes none)"),
                    err(3, "'fp8.transpose' op result type tensor<4x8xf32> does not match the "
                           "inferred type tensor<8x4xf32>")}));
}

// --- rule 7: dynamic dims of inputs -------------------------------------------------------------

TEST(VerifierInputsTest, OnlyLeadingDimMayBeDynamic) {
  TestGraph t;
  Value *x = t.in("x", T({4, kDynamic}));
  Value *y = t.in("", T({kDynamic, kDynamic, 2}));
  t.in("z", T({kDynamic, 8}));
  t.ret({x, y}, 2);
  EXPECT_EQ(
      verify(*t.g),
      (Errors{err(1, "input %x: only the leading dim may be dynamic, got tensor<4x?xf32>", 1),
              err(1, "input #1: only the leading dim may be dynamic, got tensor<?x?x2xf32>", 1)}));
}

// --- rule 8: state pairing ----------------------------------------------------------------------

TEST(VerifierStateTest, KeyMustBeAString) {
  TestGraph t;
  Value *h = t.in("h", T({16}), attrs({{"fp8.state", Attribute(int64_t(3))}}));
  t.op(OpKind::Return, {h}, {}, 2);
  t.g->addResultType(h->type(), attrs({{"fp8.state", Attribute(true)}}));
  EXPECT_EQ(verify(*t.g),
            (Errors{err(1, "input %h: attribute 'fp8.state' must be a string key, got 3", 1),
                    err(1, "result #0: attribute 'fp8.state' must be a string key, got true", 1)}));
}

TEST(VerifierStateTest, EachKeyOnOneInputAndOneResult) {
  TestGraph t;
  Value *a = t.in("a", T({16}), attrs({{"fp8.state", Attribute("k")}}));
  Value *b = t.in("b", T({16}), attrs({{"fp8.state", Attribute("k")}}));
  t.in("lonely", T({16}), attrs({{"fp8.state", Attribute("in_only")}}));
  t.op(OpKind::Return, {a, b, a}, {}, 2);
  t.g->addResultType(a->type(), attrs({{"fp8.state", Attribute("k")}}));
  t.g->addResultType(b->type(), attrs({{"fp8.state", Attribute("k")}}));
  t.g->addResultType(a->type(), attrs({{"fp8.state", Attribute("out_only")}}));
  EXPECT_EQ(
      verify(*t.g),
      (Errors{err(1, "input %b: state key \"k\" is already used by input %a", 1),
              err(1, "result #1: state key \"k\" is already used by result #0", 1),
              err(1, "input %lonely: state key \"in_only\" has no result with the same key", 1),
              err(1, "result #2: state key \"out_only\" has no input with the same key", 1)}));
}

TEST(VerifierStateTest, PairTypesMustMatch) {
  TestGraph t;
  Value *h = t.in("h", T({16}), attrs({{"fp8.state", Attribute("hist")}}));
  Value *m = t.val(OpKind::Amax, {h}, T({}), 2);
  Value *s = t.val(OpKind::HistoryScale, {h}, T({}), 3);
  t.op(OpKind::Return, {m, s}, {}, 4);
  t.g->addResultType(m->type());
  t.g->addResultType(s->type(), attrs({{"fp8.state", Attribute("hist")}}));
  EXPECT_EQ(verify(*t.g), Errors{err(1,
                                     "state key \"hist\": input %h has type tensor<16xf32>, but "
                                     "result #1 has type tensor<f32>",
                                     1)});
}

TEST(VerifierStateTest, UnknownFp8Attributes) {
  TestGraph t;
  Value *x = t.in("x", T({4}), attrs({{"fp8.stat", Attribute("k")}}));
  t.op(OpKind::Return, {x}, {}, 2);
  t.g->addResultType(x->type(), attrs({{"fp8.foo", Attribute(1)}}));
  EXPECT_EQ(verify(*t.g),
            (Errors{err(1, "input %x: unknown attribute 'fp8.stat' (known: fp8.grad, fp8.param, fp8.saved, fp8.state)", 1),
                    err(1, "result #0: unknown attribute 'fp8.foo' (known: fp8.grad, fp8.param, fp8.saved, fp8.state)", 1)}));
}

// --- rule 9: modules ----------------------------------------------------------------------------

TEST(VerifierModuleTest, DuplicateFunctionNames) {
  Module m;
  for (uint32_t line : {1u, 5u, 9u}) {
    auto g = std::make_unique<Graph>(line == 5 ? "g" : "f", at(line, 1));
    Value *x = g->addInput(T({4}), "x");
    OpBuilder(g->body()).create(OpKind::Return, std::vector{x}, {}, {}, at(line + 1));
    g->addResultType(x->type());
    m.add(std::move(g));
  }
  DiagnosticEngine diag;
  EXPECT_FALSE(verifyModule(m, diag));
  EXPECT_EQ(diag.str(),
            err(9, "redefinition of function @f (first defined at v.mlir:1:1)", 1) + "\n");
}

TEST(VerifierModuleTest, ValidModuleLeavesDiagnosticsUntouched) {
  Module m;
  for (const char *name : {"a", "b"}) {
    auto g = std::make_unique<Graph>(name, at(1, 1));
    Value *x = g->addInput(T({4}), "x");
    OpBuilder(g->body()).create(OpKind::Return, std::vector{x}, {}, {}, at(2));
    g->addResultType(x->type());
    m.add(std::move(g));
  }
  DiagnosticEngine diag;
  EXPECT_TRUE(verifyModule(m, diag));
  EXPECT_TRUE(diag.diagnostics().empty());
}

} // namespace
} // namespace fp8c
