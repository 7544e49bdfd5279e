// Builders. OpBuilder inserts ops at a point in a block (what passes use). GraphBuilder is the
// C++ graph-capture API:
//
//   fp8c::GraphBuilder b("mlp");
//   Value *x = b.input("x", {{fp8c::kDynamic, 4096}, DType::BF16});
//   Value *h = b.gelu(b.linear(x, w1, b1), "tanh");
//   b.output(b.linear(h, w2, b2));
//   Expected<std::unique_ptr<Graph>> g = b.finish();
//
// Result types are inferred with TypeRules. A type error does not throw: the builder keeps the
// first error (located at the C++ call site), returns null from that call and every call that
// uses a null value, and finish() returns the error.
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"
#include "ir/TypeRules.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>
#if __has_include(<source_location>)
#include <source_location>
#endif

namespace fp8c {

#if defined(__cpp_lib_source_location)
using SourceLocation = std::source_location;
#else
/// Stand-in where the standard library lacks std::source_location (clang 14 with
/// libstdc++ 12): builder locations then read `<builder>:0:0`.
struct SourceLocation {
  static constexpr SourceLocation current() { return {}; }
  constexpr const char *file_name() const { return "<builder>"; }
  constexpr unsigned line() const { return 0; }
  constexpr unsigned column() const { return 0; }
};
#endif

/// Location of a C++ call site.
Location locationOf(const SourceLocation &where);

/// Creates ops before an insertion point (or at the end of a block).
class OpBuilder {
public:
  explicit OpBuilder(Block &block, Op *insertBefore = nullptr)
      : block_(&block), before_(insertBefore) {}
  void setInsertionPoint(Block &block, Op *before) {
    block_ = &block;
    before_ = before;
  }
  Block &block() const { return *block_; }

  /// Creates an op with explicit result types.
  Op *create(OpKind kind, std::span<Value *const> operands,
             std::span<const TensorType> resultTypes, AttrDict attrs, Location loc);
  /// Creates a single-result op whose type TypeRules infers; an Error when the operands are
  /// illegal. `resultDType` as in inferResultType.
  Expected<Value *> createInferred(OpKind kind, std::span<Value *const> operands, AttrDict attrs,
                                   Location loc, std::optional<DType> resultDType = std::nullopt,
                                   std::string name = "");

private:
  Block *block_;
  Op *before_;
};

/// C++ graph capture (see the file comment).
class GraphBuilder {
  using Where = SourceLocation;

public:
  explicit GraphBuilder(std::string name, Where where = Where::current());

  Value *input(std::string name, TensorType type, Where where = Where::current());
  /// A persistent-state input (e.g. an amax history) paired with the output of the same key.
  Value *stateInput(std::string key, TensorType type, Where where = Where::current());

  Value *linear(Value *x, Value *w, Value *bias = nullptr, std::string name = "",
                Where where = Where::current());
  Value *matmul(Value *a, Value *b, std::string name = "", Where where = Where::current());
  Value *add(Value *a, Value *b, std::string name = "", Where where = Where::current());
  Value *mul(Value *a, Value *b, std::string name = "", Where where = Where::current());
  Value *relu(Value *x, std::string name = "", Where where = Where::current());
  /// approximate: "none" (erf) or "tanh".
  Value *gelu(Value *x, std::string approximate = "none", std::string name = "",
              Where where = Where::current());
  Value *silu(Value *x, std::string name = "", Where where = Where::current());
  Value *swiglu(Value *gate, Value *up, std::string name = "", Where where = Where::current());
  Value *convert(Value *x, DType to, std::string name = "", Where where = Where::current());
  Value *transpose(Value *x, std::string name = "", Where where = Where::current());

  Value *amax(Value *x, Granularity g = Granularity::Tensor, std::string name = "",
              Where where = Where::current());
  Value *scale(Value *amax, DType fp8 = DType::F8E4M3FN, int64_t margin = 0, bool pow2 = false,
               std::string name = "", Where where = Where::current());
  Value *cast(Value *x, Value *s, DType fp8 = DType::F8E4M3FN,
              Granularity g = Granularity::Tensor, std::string name = "",
              Where where = Where::current());
  Value *dequant(Value *q, Value *s, DType to, Granularity g = Granularity::Tensor,
                 std::string name = "", Where where = Where::current());
  Value *scaledMatmul(Value *a8, Value *b8, Value *sa, Value *sb, Value *bias, DType out,
                      bool fastAccum = false, std::string name = "",
                      Where where = Where::current());
  Value *historyScale(Value *history, std::string algo = "max", DType fp8 = DType::F8E4M3FN,
                      int64_t margin = 0, std::string name = "", Where where = Where::current());
  Value *historyPush(Value *history, Value *amax, std::string name = "",
                     Where where = Where::current());

  /// Any single-result op, by kind (result type inferred).
  Value *op(OpKind kind, std::vector<Value *> operands, AttrDict attrs = {},
            std::optional<DType> resultDType = std::nullopt, std::string name = "",
            Where where = Where::current());

  void output(Value *v, Where where = Where::current());
  /// The output that carries the new value of stateInput(key).
  void stateOutput(std::string key, Value *v, Where where = Where::current());

  /// True while no call has failed.
  bool ok() const { return !error_.has_value(); }
  /// Ends capture: appends func.return and returns the graph, or the first error.
  Expected<std::unique_ptr<Graph>> finish(Where where = Where::current());

private:
  bool fail(const Location &loc, const std::string &message);

  std::unique_ptr<Graph> graph_;
  std::vector<Value *> outputs_;
  std::vector<AttrDict> outputAttrs_;
  std::optional<std::string> error_;
};

} // namespace fp8c
