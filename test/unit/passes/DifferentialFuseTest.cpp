// Differential test of `fuse` (docs/architecture.md, "Fusion"): fusion only groups ops, so for
// every example x recipe the interpreter must give bit-identical outputs before and after it.
//   G1 = example | shape-infer,canonicalize,quantize{R},canonicalize,cse
//   G2 = print(G1) parsed again | fuse,dce
// Both run on the same seeded random inputs, with a dynamic token dim of 5 and of 3 (neither a
// multiple of a tile, a block or a vector width). Amax histories (delayed) get nonzero values in
// their first slots and zeros after them: a history shorter than its length.
//
// The examples are Llama-sized (weights 14336x4096), and quantizing the weights is most of the
// interpreter's work. So each example's inputs are generated once and shared by its recipes,
// and each graph runs once: it gets a copy of its token-dependent part bound to the second token
// dim (addSecondTokenDim), while the weights' quantization, which does not depend on it, runs
// once. Set FP8C_TEST_TIMING=1 to print the time of each case.
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "interp/TensorStats.h"
#include "interp/RandomInputs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

namespace fp8c {
namespace {

constexpr uint64_t kSeed = 0x5eed;
constexpr int64_t kTokenDims[] = {3, 5};

std::unique_ptr<Module> parseVerified(std::string_view text, const std::string &name) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, name, diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << name << ":\n" << diag.str();
  return m && !diag.hasErrors() ? std::move(m) : nullptr;
}

// Runs `pipeline` with --verify-each; an empty string on success, else the diagnostics.
std::string runPipeline(Module &m, const std::string &pipeline) {
  PassManager pm;
  if (Status s = pm.parsePipeline(pipeline); !s)
    return s.message();
  pm.setVerifyEach(true);
  DiagnosticEngine diag;
  if (!pm.run(m, diag) || !verifyModule(m, diag))
    return diag.str().empty() ? "failed without a diagnostic" : diag.str();
  return "";
}

int countKernels(const Graph &g) {
  int n = 0;
  for (const auto &op : g.body().ops())
    n += op->kind() == OpKind::Kernel;
  return n;
}

// Equal shapes, dtypes and bit patterns; NaN matches NaN whatever its payload (the interpreter
// canonicalizes NaN, but the test does not need to rely on it).
::testing::AssertionResult bitwiseEqual(const HostTensor &a, const HostTensor &b) {
  int64_t i = firstBitMismatch(a, b);
  if (i < 0)
    return ::testing::AssertionSuccess();
  if (a.shape != b.shape || a.dtype != b.dtype)
    return ::testing::AssertionFailure() << a.type().str() << " vs " << b.type().str();
  const float x = a.data[i], y = b.data[i];
  return ::testing::AssertionFailure()
         << fmt::format("element {}: {:.9g} ({:#010x}) vs {:.9g} ({:#010x})", i, x,
                        std::bit_cast<uint32_t>(x), y, std::bit_cast<uint32_t>(y));
}

// A fresh-ish amax history: the first `len / 2` slots hold amaxes of a few units, the rest are
// still zero.
HostTensor partlyFilledHistory(const TensorType &t, uint64_t seed) {
  HostTensor h = randomTensor(t.shape(), DType::F32, seed, 2.0);
  for (size_t i = 0; i < h.data.size(); ++i)
    h.data[i] = i < h.data.size() / 2 ? std::fabs(h.data[i]) + 0.5f : 0.0f;
  return h;
}

// Copies `op` (and its region) into `into` before `before` (null: at the end), its operands
// renamed through `map`, and adds its results to `map`.
void cloneOp(const Op &op, Block &into, Op *before, std::map<const Value *, Value *> &map) {
  std::vector<Value *> operands;
  for (Value *o : op.operands())
    operands.push_back(map.count(o) ? map.at(o) : o);
  std::vector<TensorType> types;
  for (unsigned i = 0; i < op.numResults(); ++i)
    types.push_back(op.result(i)->type());
  Op *copy = into.insert(before, Op::create(op.kind(), operands, types, op.attrs(), op.loc()));
  for (unsigned i = 0; i < op.numResults(); ++i) {
    copy->result(i)->setName(op.result(i)->name());
    map[op.result(i)] = copy->result(i);
  }
  if (const Block *body = op.body()) {
    Block &region = copy->createBody();
    for (Value *arg : body->arguments())
      map[arg] = region.addArgument(arg->type(), arg->name());
    for (const auto &inner : body->ops())
      cloneOp(*inner, region, nullptr, map);
  }
}

// Gives `g` a second copy of every token-dim input (same type, a new input after the others),
// a copy of every top-level op that depends on one, and a second copy of its outputs (after the
// others; the copy where the output depends on a token-dim input). With the copies bound to another
// token count, one run of the graph covers two token counts, while what depends only on weights
// (their quantization, the bulk of the work) runs once.
void addSecondTokenDim(Graph &g) {
  std::map<const Value *, Value *> map;
  const unsigned numInputs = g.numInputs();
  for (unsigned i = 0; i < numInputs; ++i)
    if (g.input(i)->type().hasDynamicDim())
      map[g.input(i)] = g.addInput(g.input(i)->type(), g.input(i)->name());
  Op *ret = g.returnOp();
  for (Op *op : g.body().opList()) {
    bool dependent = false;
    for (Value *o : op->operands())
      dependent |= map.count(o) != 0;
    if (op != ret && dependent)
      cloneOp(*op, g.body(), ret, map);
  }
  for (Value *out : g.outputs()) {
    ret->addOperand(map.count(out) ? map.at(out) : out);
    g.addResultType(out->type());
  }
}

// The parsed example and its random inputs (token dim kTokenDims[1]); one example at a time.
struct ExampleData {
  std::string name;
  std::string text;
  std::vector<HostTensor> inputs;
};

ExampleData &heldExample() {
  static ExampleData data;
  return data;
}

ExampleData &exampleData(const std::string &name) {
  ExampleData &data = heldExample();
  if (data.name == name)
    return data;
  data = ExampleData{};
  data.name = name;
  Expected<std::string> text = readSource(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(text) << text.error();
  if (!text)
    return data;
  data.text = *text;
  if (std::unique_ptr<Module> m = parseVerified(data.text, name))
    data.inputs = randomInputs(*m->graphs().front(), kSeed, kTokenDims[1]);
  return data;
}

// The first `rows` rows of a [?, K] input. randomInputs fills the first 65536 elements of every
// tensor from one generator, so for these sizes this is exactly randomInputs' value at `rows`.
HostTensor firstRows(const HostTensor &t, int64_t rows) {
  HostTensor out = t;
  out.shape[0] = rows;
  out.data.resize(static_cast<size_t>(numElementsOf(out.shape)));
  return out;
}

struct DiffCase {
  const char *example;
  const char *recipe; ///< quantize options
  const char *id;
};

void PrintTo(const DiffCase &c, std::ostream *os) { *os << c.example << " " << c.recipe; }

class DifferentialFuse : public ::testing::TestWithParam<DiffCase> {
protected:
  // The inputs of the last example take up to 0.7 GB: free them for the tests that follow.
  static void TearDownTestSuite() { heldExample() = ExampleData{}; }
};

TEST_P(DifferentialFuse, FusedGraphGivesBitIdenticalOutputs) {
  const DiffCase &c = GetParam();
  auto start = std::chrono::steady_clock::now();
  ExampleData &ex = exampleData(c.example);
  ASSERT_FALSE(ex.inputs.empty());

  std::unique_ptr<Module> m1 = parseVerified(ex.text, c.example);
  ASSERT_TRUE(m1);
  std::string err = runPipeline(*m1, "shape-infer,canonicalize,quantize{" + std::string(c.recipe) +
                                         "},canonicalize,cse");
  ASSERT_EQ(err, "");
  const std::string g1Text = toString(*m1);
  std::unique_ptr<Module> m2 = parseVerified(g1Text, std::string(c.example) + " (G1)");
  ASSERT_TRUE(m2);
  ASSERT_EQ(runPipeline(*m2, "fuse,dce"), "");
  const std::string g2Text = toString(*m2);
  Graph &g1 = *m1->graphs().front();
  Graph &g2 = *m2->graphs().front();
  // Everything at the top level of G2 is a kernel, and G1 has none.
  ASSERT_EQ(countKernels(g1), 0);
  ASSERT_EQ(static_cast<size_t>(countKernels(g2)), g2.body().ops().size() - 1) << g2Text;
  ASSERT_EQ(g1.numInputs(), g2.numInputs());

  // The example's inputs, then the amax histories quantize added, then the token-dim inputs
  // again at the smaller token dim (all removed again on exit).
  std::vector<HostTensor> &inputs = ex.inputs;
  const size_t base = inputs.size();
  struct Restore {
    std::vector<HostTensor> &v;
    size_t n;
    ~Restore() { v.resize(n); }
  } restore{inputs, base};
  ASSERT_GE(g1.numInputs(), base);
  for (unsigned i = base; i < g1.numInputs(); ++i) {
    ASSERT_TRUE(g1.inputAttrs(i).has("fp8.state")) << "input #" << i << " was added";
    inputs.push_back(partlyFilledHistory(g1.input(i)->type(), kSeed + i));
  }
  const size_t numOutputs = g1.resultTypes().size();
  addSecondTokenDim(g1);
  addSecondTokenDim(g2);
  ASSERT_EQ(g1.numInputs(), g2.numInputs());
  ASSERT_EQ(g1.resultTypes().size(), g2.resultTypes().size());
  for (unsigned i = 0; i < base; ++i)
    if (g1.input(i)->type().hasDynamicDim())
      inputs.push_back(firstRows(inputs[i], kTokenDims[0]));
  ASSERT_EQ(inputs.size(), g1.numInputs());

  Expected<std::vector<HostTensor>> r1 = interpret(g1, inputs);
  ASSERT_TRUE(r1) << r1.error();
  Expected<std::vector<HostTensor>> r2 = interpret(g2, inputs);
  ASSERT_TRUE(r2) << r2.error();
  ASSERT_EQ(r1->size(), g1.resultTypes().size());
  ASSERT_EQ(r2->size(), r1->size());
  for (size_t i = 0; i < r1->size(); ++i) {
    const HostTensor &a = (*r1)[i], &b = (*r2)[i];
    SCOPED_TRACE("output #" + std::to_string(i) + " at token dim " +
                 std::to_string(i < numOutputs ? kTokenDims[1] : kTokenDims[0]));
    EXPECT_TRUE(bitwiseEqual(a, b));
    // Two all-NaN or all-zero outputs would prove little.
    bool someFiniteNonzero = false;
    for (float v : a.data)
      someFiniteNonzero |= std::isfinite(v) && v != 0.0f;
    EXPECT_TRUE(someFiniteNonzero);
  }
  // The main output ran at both token dims.
  ASSERT_EQ(r1->size(), 2 * numOutputs);
  EXPECT_EQ((*r1)[0].shape[0], kTokenDims[1]);
  EXPECT_EQ((*r1)[numOutputs].shape[0], kTokenDims[0]);

  if (std::getenv("FP8C_TEST_TIMING"))
    std::fprintf(stderr, "[ timing ] %s %s: %.2f s\n", c.example, c.recipe,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// Grouped by example, so that each example's inputs are generated once.
const DiffCase kCases[] = {
    {"linear.mlir", "recipe=tensorwise", "linear_tensorwise"},
    {"linear.mlir", "recipe=delayed", "linear_delayed"},
    {"linear.mlir", "recipe=rowwise", "linear_rowwise"},
    {"linear.mlir", "recipe=blockwise", "linear_blockwise"},
    {"mlp.mlir", "recipe=tensorwise", "mlp_tensorwise"},
    {"mlp.mlir", "recipe=delayed", "mlp_delayed"},
    {"mlp.mlir", "recipe=rowwise", "mlp_rowwise"},
    {"mlp.mlir", "recipe=blockwise", "mlp_blockwise"},
    {"mlp.mlir", "recipe=delayed weights=static", "mlp_delayed_static_weights"},
    {"swiglu_mlp.mlir", "recipe=tensorwise", "swiglu_mlp_tensorwise"},
    {"swiglu_mlp.mlir", "recipe=delayed", "swiglu_mlp_delayed"},
    {"swiglu_mlp.mlir", "recipe=rowwise", "swiglu_mlp_rowwise"},
    {"swiglu_mlp.mlir", "recipe=blockwise", "swiglu_mlp_blockwise"},
    {"linear_residual.mlir", "recipe=tensorwise", "linear_residual_tensorwise"},
    {"linear_residual.mlir", "recipe=delayed", "linear_residual_delayed"},
    {"linear_residual.mlir", "recipe=rowwise", "linear_residual_rowwise"},
    {"vit_mlp.mlir", "recipe=tensorwise", "vit_mlp_tensorwise"},
    {"vit_mlp.mlir", "recipe=delayed", "vit_mlp_delayed"},
    {"vit_mlp.mlir", "recipe=rowwise", "vit_mlp_rowwise"},
    {"vit_mlp.mlir", "recipe=blockwise", "vit_mlp_blockwise"},
};

INSTANTIATE_TEST_SUITE_P(Examples, DifferentialFuse, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<DiffCase> &info) {
                           return std::string(info.param.id);
                         });

} // namespace
} // namespace fp8c
