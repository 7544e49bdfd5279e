// CPU interpreter: checking the inputs against the graph (count, dtype, shape, element count,
// representable values), dynamic dims bound consistently where the ops need equal dims, and
// results that do not depend on the thread count.
#include "ir/Builder.h"
#include "ir/Verifier.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fp8c {
namespace {

std::unique_ptr<Graph> finish(GraphBuilder &b) {
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  if (!g)
    return nullptr;
  DiagnosticEngine diag;
  EXPECT_TRUE(verifyGraph(**g, diag)) << diag.str();
  return g.take();
}

std::vector<HostTensor> run(const Graph &g, std::vector<HostTensor> inputs) {
  Expected<std::vector<HostTensor>> r = interpret(g, inputs);
  EXPECT_TRUE(r) << r.error();
  return r ? r.take() : std::vector<HostTensor>{};
}

std::unique_ptr<Graph> linearGraph() {
  GraphBuilder b("lin");
  Value *x = b.input("x", {{kDynamic, 4}, DType::BF16});
  Value *w = b.input("w", {{2, 4}, DType::BF16});
  b.output(b.linear(x, w));
  return finish(b);
}

std::string errorOf(const Graph &g, std::vector<HostTensor> inputs) {
  Expected<std::vector<HostTensor>> r = interpret(g, inputs);
  EXPECT_FALSE(r);
  return r ? std::string() : r.error();
}

TEST(InterpInputs, MismatchesAreNamedErrors) {
  auto g = linearGraph();
  HostTensor w = HostTensor::make({2, 4}, DType::BF16);
  EXPECT_EQ(errorOf(*g, {HostTensor::make({3, 4}, DType::BF16)}),
            "'@lin' takes 2 inputs (x, w), got 1");
  EXPECT_EQ(errorOf(*g, {HostTensor::make({3, 5}, DType::BF16), w}),
            "input 'x' (#0): expected shape [?, 4], got [3, 5]");
  EXPECT_EQ(errorOf(*g, {HostTensor::make({3}, DType::BF16), w}),
            "input 'x' (#0): expected shape [?, 4], got [3]");
  EXPECT_EQ(errorOf(*g, {HostTensor::make({3, 4}, DType::F32), w}),
            "input 'x' (#0): expected dtype bf16, got f32");
  EXPECT_EQ(
      errorOf(*g, {HostTensor::make({3, 4}, DType::BF16), HostTensor::make({4, 2}, DType::BF16)}),
      "input 'w' (#1): expected shape [2, 4], got [4, 2]");
  HostTensor bad = HostTensor::make({1, 4}, DType::BF16);
  bad.data[2] = 1.001f;
  EXPECT_EQ(errorOf(*g, {bad, w}), "input 'x' (#0): element 2 (1.00100005) is not a bf16 value");
  HostTensor shortData = HostTensor::make({2, 4}, DType::BF16);
  shortData.data.resize(7);
  EXPECT_EQ(errorOf(*g, {shortData, w}),
            "input 'x' (#0): shape [2, 4] has 8 elements, but 7 values were given");
}

TEST(InterpInputs, DynamicDimsMustAgreeWhereOpsNeedIt) {
  GraphBuilder b("addf");
  Value *x = b.input("x", {{kDynamic, 2}, DType::F32});
  Value *y = b.input("y", {{kDynamic, 2}, DType::F32});
  b.output(b.add(x, y));
  auto g = finish(b);
  std::string e =
      errorOf(*g, {HostTensor::make({3, 2}, DType::F32), HostTensor::make({2, 2}, DType::F32)});
  EXPECT_NE(e.find("'fp8.add' op operand shapes differ: [3, 2] and [2, 2]"), std::string::npos)
      << e;
  EXPECT_NE(e.find("dynamic dims bound by the inputs: input 'x' (#0) = [3, 2], input 'y' (#1) "
                   "= [2, 2]"),
            std::string::npos)
      << e;
  // Equal sizes run, and a dynamic dim may be 0.
  auto r = run(*g, {HostTensor::make({0, 2}, DType::F32), HostTensor::make({0, 2}, DType::F32)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].shape, (std::vector<int64_t>{0, 2}));
}

TEST(InterpInputs, ThreadCountDoesNotChangeResults) {
  GraphBuilder b("mlp");
  Value *x = b.input("x", {{kDynamic, 300}, DType::BF16});
  Value *w1 = b.input("w1", {{257, 300}, DType::BF16});
  Value *b1 = b.input("b1", {{257}, DType::BF16});
  b.output(b.gelu(b.linear(x, w1, b1), "tanh"));
  auto g = finish(b);
  std::vector<HostTensor> in = randomInputs(*g, 7, 33);
  InterpretOptions one, many;
  one.maxThreads = 1;
  many.maxThreads = 5;
  auto r1 = interpret(*g, in, one);
  auto r5 = interpret(*g, in, many);
  ASSERT_TRUE(r1 && r5);
  EXPECT_EQ((*r1)[0].data, (*r5)[0].data);
  // And the result is close to an f64 reference of the same sums.
  HostTensor ref = HostTensor::make({33, 257}, DType::F32);
  for (int m = 0; m < 33; ++m)
    for (int n = 0; n < 257; ++n) {
      double acc = in[2].data[n];
      for (int k = 0; k < 300; ++k)
        acc += double(in[0].at(m, k)) * double(in[1].at(n, k));
      const double h = roundToDType(static_cast<float>(acc), DType::BF16);
      ref.at(m, n) = static_cast<float>(
          0.5 * h * (1 + std::tanh(0.7978845608028654 * (h + 0.044715 * h * h * h))));
    }
  EXPECT_LT(relativeFrobeniusError((*r1)[0], ref), 1e-2);
}

TEST(InterpInputs, DynamicDimBoundToAStaticK) {
  GraphBuilder b("mm");
  Value *a = b.input("a", {{kDynamic, 8}, DType::F32});
  Value *bm = b.input("b", {{kDynamic, 4}, DType::F32});
  b.output(b.matmul(a, bm));
  auto g = finish(b);
  // b's rows are the GEMM's K: they must be 8, whatever a's rows are.
  std::string e =
      errorOf(*g, {HostTensor::make({3, 8}, DType::F32), HostTensor::make({3, 4}, DType::F32)});
  EXPECT_NE(e.find("error: 'fp8.matmul' op K mismatch: lhs has 8, rhs has 3 (dynamic dims bound "
                   "by the inputs: input 'a' (#0) = [3, 8], input 'b' (#1) = [3, 4])"),
            std::string::npos)
      << e;
  auto r = run(*g, {HostTensor::make({3, 8}, DType::F32), HostTensor::make({8, 4}, DType::F32)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].shape, (std::vector<int64_t>{3, 4}));
}

} // namespace
} // namespace fp8c
