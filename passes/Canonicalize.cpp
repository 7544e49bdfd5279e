// `canonicalize`: local rewrites that leave the graph's meaning bit-for-bit unchanged.
//   convert(convert(x: A -> B) -> C)  ==> convert(x: A -> C)   when A -> B is exact (B holds
//                                                               every A value)
//   convert(x: A -> A)                ==> x
//   cast(dequant(q, s), s)            ==> q  when both use the same scale value and
//        granularity, the FP8 dtypes agree, and the dequantized dtype is f32: for every FP8 q
//        and every s with fmax / FLT_MAX <= |s| <= FLT_MAX (fmax = 448, or 57344 for e5m2;
//        fp8.scale and fp8.history_scale give such scales for every amax <= 2^126 at margin
//        0), q / s in f32 keeps at least 5 significant bits even in f32's subnormals
//        (|q / s| >= 2^-16 / FLT_MAX > 2^-144), so multiplied back by s it lands within 2^-6
//        relative of q and rounds back to q at FP8's 3 (or 2) mantissa bits; where q / s
//        overflows, |q| = fmax and saturates back. Degenerate scales (0, inf, NaN, smaller
//        ones) would give NaN or fmax instead of q: the fold assumes scales are not
//        degenerate. Not folded through bf16, whose subnormals keep too few bits (q = 2^-9,
//        s = FLT_MAX gives 0), nor f16, whose range overflows.
//   transpose(transpose(x))           ==> x
//   relu(relu(x))                     ==> relu(x)
//   f(x1, .., xn) : [K, ?]            ==> transpose(f(transpose(x1), .., transpose(xn))) for a
//        pointwise f whose operands all have its result's shape (or are scalars, kept as they
//        are) and whose last dim is the dynamic one: element for element the same values, computed on [?, K] tensors, which
//        codegen lowers (a [K, ?] tensor is only transposed or cast-transposed there); the
//        inner transposes of transposes then fold.
// Rewrites repeat until none applies; dead producers are left for `dce`.
#include "passes/Passes.h"

#include "ir/Builder.h"

namespace fp8c {
namespace {

// True when every value of `from` is exactly representable in `to`.
bool isExactWidening(DType from, DType to) {
  if (from == to || to == DType::F32)
    return from != DType::I32;
  if (isFloat8(from))
    return to == DType::F16 || to == DType::BF16;
  return false;
}

Op *producer(Value *v, OpKind kind) {
  Op *d = v->definingOp();
  return d && d->kind() == kind ? d : nullptr;
}

// Returns the value `op` folds to, or null.
Value *foldToExisting(Op *op) {
  switch (op->kind()) {
  case OpKind::Convert:
    if (op->operand(0)->type() == op->result()->type())
      return op->operand(0);
    return nullptr;
  case OpKind::Transpose:
    if (Op *inner = producer(op->operand(0), OpKind::Transpose))
      return inner->operand(0);
    return nullptr;
  case OpKind::Relu:
    if (producer(op->operand(0), OpKind::Relu))
      return op->operand(0);
    return nullptr;
  case OpKind::Cast: {
    Op *dq = producer(op->operand(0), OpKind::Dequant);
    if (!dq || dq->operand(1) != op->operand(1))
      return nullptr;
    if (dq->result()->type().dtype() != DType::F32)
      return nullptr;
    if (dq->strAttr("granularity") != op->strAttr("granularity"))
      return nullptr;
    if (dq->operand(0)->type() != op->result()->type())
      return nullptr;
    return dq->operand(0);
  }
  default:
    return nullptr;
  }
}

// convert(convert(x)) through an exact widening: rewire to convert x directly.
bool foldConvertChain(Op *op) {
  if (op->kind() != OpKind::Convert)
    return false;
  Op *inner = producer(op->operand(0), OpKind::Convert);
  if (!inner)
    return false;
  DType a = inner->operand(0)->type().dtype(), b = inner->result()->type().dtype();
  if (!isExactWidening(a, b))
    return false;
  op->setOperand(0, inner->operand(0));
  return true;
}

// The pointwise rewrite on [K, ?] results (see the file comment). True when it rewrote `op`.
bool pointwiseOnRows(Op *op, Block &b) {
  if (!op->info().has(kPointwise) || op->numResults() != 1)
    return false;
  const TensorType &rt = op->result()->type();
  if (rt.rank() != 2 || !rt.isDynamicDim(1) ||
      rt.isDynamicDim(0) || !op->result()->hasUses())
    return false;
  for (Value *v : op->operands())
    if (v->type().rank() != 0 &&
        (v->type().rank() != 2 || v->type().dim(0) != rt.dim(0) || !v->type().isDynamicDim(1)))
      return false;
  OpBuilder ob(b, op);
  std::vector<Value *> rows;
  for (Value *v : op->operands()) {
    if (v->type().rank() == 0) { // a scalar broadcasts the same either way
      rows.push_back(v);
      continue;
    }
    if (Op *t = producer(v, OpKind::Transpose)) {
      rows.push_back(t->operand(0));
      continue;
    }
    Expected<Value *> t =
        ob.createInferred(OpKind::Transpose, std::vector<Value *>{v}, {}, op->loc(), std::nullopt,
                          v->name() + "_t");
    if (!t)
      return false;
    rows.push_back(*t);
  }
  const std::string name = op->result()->name();
  Expected<Value *> f = ob.createInferred(op->kind(), rows, op->attrs(), op->loc(), rt.dtype(),
                                          name + "_t");
  if (!f)
    return false;
  Expected<Value *> y = ob.createInferred(OpKind::Transpose, std::vector<Value *>{*f}, {},
                                          op->loc(), std::nullopt, name);
  if (!y)
    return false;
  op->result()->replaceAllUsesWith(*y);
  return true;
}

bool canonicalizeBlock(Block &b) {
  bool changed = false;
  for (Op *op : b.opList()) {
    if (op->body()) {
      changed |= canonicalizeBlock(*op->body());
      continue;
    }
    if (foldConvertChain(op))
      changed = true;
    if (pointwiseOnRows(op, b))
      changed = true;
    // A folded op keeps its result until dce; it counts as a change only while it has users,
    // so that the fixpoint loop ends.
    if (Value *v = foldToExisting(op); v && op->result()->hasUses()) {
      op->result()->replaceAllUsesWith(v);
      changed = true;
    }
  }
  return changed;
}

class CanonicalizePass : public Pass {
public:
  std::string_view name() const override { return "canonicalize"; }
  bool run(Graph &g, PassContext &) override {
    for (int i = 0; i < 16 && canonicalizeBlock(g.body()); ++i) {
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createCanonicalizePass() { return std::make_unique<CanonicalizePass>(); }

} // namespace fp8c
