// The fp8c IR: SSA values, ops, blocks, graphs (one function each) and modules.
//
// Op semantics (normative; the interpreter implements exactly this; numerics: docs/numerics.md).
// Arithmetic is f32; every op rounds once to its result dtype (roundToDType: round to nearest
// even; to FP8 saturating to +-max, NaN stays NaN).
//   fp8.linear x, w[, b]     y[..., n] = sum_k x[..., k] * w[n, k] (+ b[n]); result dtype = x's.
//   fp8.matmul a, b          y[m, n] = sum_k a[m, k] * b[k, n].
//       Sums accumulate in f32 in 8 interleaved partial sums (k mod 8) added pairwise at the end.
//   fp8.add a, b / fp8.mul   elementwise; equal shapes, or one operand rank 0 (broadcast).
//   fp8.relu x               max(x, 0) (NaN stays NaN).
//   fp8.gelu x {approximate} "none": 0.5 x (1 + erf(x / sqrt 2)); "tanh":
//                            0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//   fp8.silu x               x / (1 + exp(-x)).
//   fp8.swiglu a, b          silu(a) * b.
//   fp8.convert x            dtype change, no scale.
//   fp8.transpose x          2-D transpose.
//   fp8.amax x {granularity} f32 max |x| per group; NaN in a group makes it NaN, else inf makes it
//                            inf. For x[R, C]: tensor -> tensor<f32>, row -> [R], col -> [C],
//                            block_1x128 -> [R, ceil(C/128)], block_128x128 -> [ceil(R/128), ceil(C/128)].
//   fp8.scale amax {dtype, margin, pow2}  s = fmax(dtype) / amax / 2^margin elementwise;
//                            amax == 0 -> 1; s overflowing to inf -> FLT_MAX; pow2 rounds s down to
//                            a power of two; NaN or inf amax -> NaN (its group then casts to NaN).
//   fp8.cast x, s {granularity}   q = sat(rne(x * s)) with s broadcast over its group; inf -> fmax.
//   fp8.dequant q, s {granularity} x = q / s, rounded to the result dtype.
//   fp8.scaled_matmul a8, b8, sa, sb[, bias] {out, fast_accum}  y[m, n] =
//                            (sum_k a8[m, k] b8[n, k] / sa) / sb + bias[n] (TN): one scale at a
//                            time, never by sa sb (overflows f32 for two tiny operands). Scales:
//                            both rank 0 (tensor), sa [M] and sb [N] (row), or sa [M, ceil(K/128)]
//                            and sb [ceil(N/128), ceil(K/128)] (blockwise: each 128-wide K block's
//                            f32 sum divided by them, then summed). fast_accum: GPU precision only.
//   fp8.history_scale h {algo, dtype, margin, pow2}  amax = max(h) ("max") or h[0]
//                            ("most_recent"), then fp8.scale's formula; result tensor<f32>.
//   fp8.history_push h, amax [amax, h[0], ..., h[len-2]]; a NaN / inf amax is skipped: h unchanged.
//   fp8.relu_grad dy, x      dy * (x > 0 ? 1 : 0); NaN in x or dy gives NaN. Equal shapes.
//   fp8.gelu_grad dy, x {approximate}  dy * gelu'(x), with Phi(x) = 0.5 (1 + erf(x / sqrt 2)),
//                            "none": gelu'(x) = Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi);
//                            "tanh": t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x^3),
//                            gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2).
//   fp8.silu_grad dy, x      dy * sg (1 + x (1 - sg)), sg = 1 / (1 + exp(-x)).
//   fp8.swiglu_grad dy, a, b {wrt}  the gradient of silu(a) * b: wrt = "gate":
//                            dy * b * silu'(a) (silu' as in silu_grad); "up": dy * silu(a).
//       The derivative ops compute in f32 from their operands and round once; the result has
//       dy's type (all operands share one shape and dtype).
//   fp8.col_sum x            y[c] = sum over all leading indices r of x[r, c] (x of rank >= 1,
//                            viewed as [R, C]); f32 accumulation, rows added in order
//                            r = 0, 1, ..., R-1 into one f32 sum per column, rounded once to
//                            x's dtype. The bias gradient of fp8.linear.
//   fp8.kernel "kind" (operands) : (types) -> (types) { ^bb0(args): ... fp8.yield results }
//                            runs its region (isolated from above: operands enter as block
//                            arguments). kind: gemm | pointwise | reduce.
#pragma once

#include "ir/Attribute.h"
#include "ir/Location.h"
#include "ir/OpKind.h"
#include "ir/Type.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fp8c {

class Op;
class Block;
class Graph;

/// An SSA value: an op result or a block argument.
class Value {
public:
  const TensorType &type() const { return type_; }
  void setType(TensorType t) { type_ = std::move(t); }
  /// Name hint used by the printer (`x` prints as `%x`); may be empty.
  const std::string &name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }

  /// The op that defines this value, or null for a block argument.
  Op *definingOp() const { return defOp_; }
  /// The block whose argument this is, or null for an op result.
  Block *ownerBlock() const { return ownerBlock_; }
  bool isBlockArgument() const { return ownerBlock_ != nullptr; }
  /// Result index or argument index.
  unsigned index() const { return index_; }

  /// The ops using this value, one entry per use (an op using it twice appears twice).
  const std::vector<Op *> &users() const { return users_; }
  bool hasUses() const { return !users_.empty(); }
  size_t numUses() const { return users_.size(); }
  /// Makes every user of this value use `other` instead.
  void replaceAllUsesWith(Value *other);

private:
  friend class Op;
  friend class Block;
  Value(TensorType t, std::string name) : type_(std::move(t)), name_(std::move(name)) {}
  void removeUser(Op *op);

  TensorType type_;
  std::string name_;
  Op *defOp_ = nullptr;
  Block *ownerBlock_ = nullptr;
  unsigned index_ = 0;
  std::vector<Op *> users_;
};

/// An operation: kind, operands, results, attributes, location, and an optional region of one
/// block (fp8.kernel).
class Op {
public:
  /// Creates a detached op; insert it into a block with Block::insert / append.
  static std::unique_ptr<Op> create(OpKind kind, std::span<Value *const> operands,
                                    std::span<const TensorType> resultTypes, AttrDict attrs,
                                    Location loc);
  ~Op();
  Op(const Op &) = delete;
  Op &operator=(const Op &) = delete;

  OpKind kind() const { return kind_; }
  std::string_view name() const { return opName(kind_); }
  const OpInfo &info() const { return opInfo(kind_); }
  const Location &loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }

  unsigned numOperands() const { return static_cast<unsigned>(operands_.size()); }
  Value *operand(unsigned i) const { return operands_[i]; }
  std::span<Value *const> operands() const { return operands_; }
  void setOperand(unsigned i, Value *v);
  void addOperand(Value *v);
  void eraseOperand(unsigned i);
  /// Unlinks this op from all its operands (they lose it as a user).
  void dropAllReferences();

  unsigned numResults() const { return static_cast<unsigned>(results_.size()); }
  Value *result(unsigned i = 0) const { return results_[i].get(); }
  std::vector<Value *> results() const;
  Value *addResult(TensorType t, std::string name = "");
  bool hasUsedResults() const;

  const AttrDict &attrs() const { return attrs_; }
  AttrDict &mutableAttrs() { return attrs_; }
  const Attribute *attr(std::string_view n) const { return attrs_.get(n); }
  void setAttr(std::string n, Attribute v) { attrs_.set(std::move(n), std::move(v)); }
  /// The attribute's value, or the default written in Ops.def when absent.
  std::string strAttr(std::string_view n) const;
  int64_t intAttr(std::string_view n) const;
  bool boolAttr(std::string_view n) const;
  DType dtypeAttr(std::string_view n) const;
  /// The function of codegen/kernels/ops.cuh (namespace fp8c::op) computing this op on one
  /// element, chosen by its attributes (Ops.def's deviceFn columns); "" where none.
  std::string_view deviceFn() const;

  /// The single block of this op's region, or null.
  Block *body() const { return body_.get(); }
  Block &createBody();

  Block *parentBlock() const { return parent_; }
  /// The op whose region holds this op, or null at a graph's top level.
  Op *parentOp() const;

private:
  friend class Block;
  Op(OpKind kind, Location loc) : kind_(kind), loc_(std::move(loc)) {}

  OpKind kind_;
  Location loc_;
  std::vector<Value *> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrDict attrs_;
  std::unique_ptr<Block> body_;
  Block *parent_ = nullptr;
};

/// A list of ops with block arguments. A graph's body, or a kernel's region.
class Block {
public:
  explicit Block(Op *parentOp = nullptr, Graph *parentGraph = nullptr)
      : parentOp_(parentOp), parentGraph_(parentGraph) {}
  ~Block();
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;

  Value *addArgument(TensorType t, std::string name = "");
  /// Removes an unused argument.
  void eraseArgument(unsigned i);
  unsigned numArguments() const { return static_cast<unsigned>(args_.size()); }
  Value *argument(unsigned i) const { return args_[i].get(); }
  std::vector<Value *> arguments() const;

  /// The ops in order. Take a copy (opList()) before mutating while iterating.
  const std::vector<std::unique_ptr<Op>> &ops() const { return ops_; }
  std::vector<Op *> opList() const;
  bool empty() const { return ops_.empty(); }
  Op *terminator() const;

  Op *append(std::unique_ptr<Op> op);
  /// Inserts before `before` (which must be in this block), or appends when null.
  Op *insert(Op *before, std::unique_ptr<Op> op);
  /// Detaches an op (keeping its operand links) so it can be moved into another block.
  std::unique_ptr<Op> take(Op *op);
  /// Destroys an op whose results have no uses.
  void erase(Op *op);
  /// Position of `op` in this block.
  size_t indexOf(const Op *op) const;

  Op *parentOp() const { return parentOp_; }
  Graph *parentGraph() const { return parentGraph_; }

private:
  Op *parentOp_;
  Graph *parentGraph_;
  std::vector<std::unique_ptr<Value>> args_;
  std::vector<std::unique_ptr<Op>> ops_;
};

/// One function: inputs (the body's arguments, with optional attribute dictionaries such as
/// `{fp8.state = "key"}`), a body ending in func.return, and the declared result types.
class Graph {
public:
  explicit Graph(std::string name, Location loc = {})
      : name_(std::move(name)), loc_(std::move(loc)), body_(nullptr, this) {}

  const std::string &name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  const Location &loc() const { return loc_; }

  Block &body() { return body_; }
  const Block &body() const { return body_; }

  Value *addInput(TensorType t, std::string name, AttrDict attrs = {});
  unsigned numInputs() const { return body_.numArguments(); }
  Value *input(unsigned i) const { return body_.argument(i); }
  /// Attributes of input i (empty for an argument added to body() directly).
  const AttrDict &inputAttrs(unsigned i) const;
  AttrDict &mutableInputAttrs(unsigned i);
  /// Keeps per-input attributes in step with the body's arguments.
  void eraseInput(unsigned i);

  /// Declared result types (the signature); the return op's operands must match them.
  const std::vector<TensorType> &resultTypes() const { return resultTypes_; }
  std::vector<TensorType> &mutableResultTypes() { return resultTypes_; }
  const std::vector<AttrDict> &resultAttrs() const { return resultAttrs_; }
  std::vector<AttrDict> &mutableResultAttrs() { return resultAttrs_; }
  void addResultType(TensorType t, AttrDict attrs = {});

  /// The func.return op, or null when the body has none yet.
  Op *returnOp() const;
  /// The values returned, in order.
  std::vector<Value *> outputs() const;

  /// Calls f on every op, in order, descending into kernel regions after the kernel op.
  template <typename F> void walk(F &&f) const { walkBlock(body_, f); }

private:
  template <typename F> static void walkBlock(const Block &b, F &f) {
    for (const auto &op : b.ops()) {
      f(op.get());
      if (op->body())
        walkBlock(*op->body(), f);
    }
  }

  std::string name_;
  Location loc_;
  Block body_;
  std::vector<AttrDict> inputAttrs_;
  std::vector<TensorType> resultTypes_;
  std::vector<AttrDict> resultAttrs_;
};

/// The functions of one file, in order.
class Module {
public:
  std::vector<std::unique_ptr<Graph>> &graphs() { return graphs_; }
  const std::vector<std::unique_ptr<Graph>> &graphs() const { return graphs_; }
  Graph *lookup(std::string_view name) const;
  Graph &add(std::unique_ptr<Graph> g) {
    graphs_.push_back(std::move(g));
    return *graphs_.back();
  }

private:
  std::vector<std::unique_ptr<Graph>> graphs_;
};

} // namespace fp8c
