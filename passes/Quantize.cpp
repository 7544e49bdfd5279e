// `quantize{recipe=...}`: rewrites every fp8.linear (and fp8.matmul) into FP8 ops per the
// recipe (passes/Recipe.h, docs/numerics.md):
//
//   %y = fp8.linear %x, %w, %b
// becomes, for current scaling (tensorwise / rowwise / blockwise),
//   %x_amax = fp8.amax %x {granularity = G_act}     %w_amax = fp8.amax %w {granularity = G_w}
//   %x_scale = fp8.scale %x_amax {...}              %w_scale = fp8.scale %w_amax {...}
//   %x_fp8 = fp8.cast %x, %x_scale {granularity}    %w_fp8 = fp8.cast %w, %w_scale {...}
//   %y = fp8.scaled_matmul %x_fp8, %w_fp8, %x_scale, %w_scale, %b {fast_accum, out = dtype(x)}
// and for delayed scaling the scale comes from an amax history that is explicit graph state:
//   %x_scale = fp8.history_scale %x_amax_history {algo, dtype, margin, pow2}
//   %x_amax_history_next = fp8.history_push %x_amax_history, %x_amax   (a new graph output)
// with `{fp8.state = "x_amax_history"}` on the new input and output.
//
// A tensor feeding several GEMMs with the same dtype and granularity is quantized once. An
// fp8.linear input of rank > 2 (x [B, T, K]) is the GEMM's [B*T, K]: tensor scales (tensorwise,
// delayed) take it as it is; row and block scales need a 2-D input (a located error).
//
// Training graphs (passes/Autodiff.cpp): an operand that depends on a gradient input is a
// gradient and takes `grad_dtype` (e5m2; e4m3 with 1x128 blocks for blockwise); GEMMs with a
// gradient operand (dgrad, wgrad) take `bwd_fast_accum` (off by default). The transposed
// operands of wgrad and dgrad (Xᵀ, Wᵀ, dYᵀ) are, where their scales are the transposed
// scales of the untransposed tensor (tensor, 128x128), `fp8.transpose` of its FP8 copy (the
// forward's cast writes both: one cast-transpose kernel after `fuse`), else quantized afresh
// from the high-precision transpose (1x128 blocks run along the other dim). With gelu_saved=e4m3
// (delayed's default) the backward's GELU derivative reads an unscaled e4m3 copy of the GELU's
// input, which the forward saves instead of the input (saveGeluInputAsE4m3). With weights=static,
// weights (fp8.matmul: its right operand) must be graph inputs; they are marked
// `{fp8.param = true}`, meaning the runtime may compute everything that depends only on
// parameters once, at load (their quantization with current scaling, also under the delayed
// recipe). fp8.matmul's right operand [K, N] is transposed (once per operand) to the [N, K]
// (K-major) layout FP8 GEMMs take.
#include "passes/Passes.h"

#include "passes/Recipe.h"
#include "ir/Builder.h"

#include <map>
#include <set>
#include <tuple>

namespace fp8c {
namespace {

struct QuantizedOperand {
  Value *fp8;
  Value *scale;
};

class Quantizer {
public:
  Quantizer(Graph &g, const Recipe &r, DiagnosticEngine &diag) : g_(g), r_(r), diag_(diag) {}

  bool run() {
    for (Op *op : g_.body().opList()) {
      if (op->kind() != OpKind::Linear && op->kind() != OpKind::Matmul)
        continue;
      if (!rewrite(op))
        return false;
    }
    if (r_.geluSavedE4m3)
      for (Op *op : g_.body().opList())
        if (op->kind() == OpKind::GeluGrad && !isGrad(op->operand(1)) && !saveGeluInputAsE4m3(op))
          return false;
    return true;
  }

private:
  bool isGraphInput(const Value *v) const {
    return v->isBlockArgument() && v->ownerBlock() == &g_.body();
  }

  std::string baseName(Value *v, std::string_view fallback) {
    return v->name().empty() ? std::string(fallback) : v->name();
  }

  Value *make(OpBuilder &b, OpKind kind, std::vector<Value *> operands, AttrDict attrs,
              const Location &loc, std::optional<DType> dt, std::string name) {
    Expected<Value *> v = b.createInferred(kind, operands, std::move(attrs), loc, dt, name);
    if (!v) {
      diag_.error(loc, "quantize: " + v.error());
      return nullptr;
    }
    return *v;
  }

  AttrDict scaleAttrs(DType fp8) const {
    AttrDict a;
    a.set("dtype", Attribute(fp8));
    if (r_.margin != 0)
      a.set("margin", Attribute(r_.margin));
    if (r_.pow2)
      a.set("pow2", Attribute(true));
    return a;
  }

  static AttrDict granularityAttrs(Granularity g) {
    AttrDict a;
    a.set("granularity", Attribute(std::string(granularityName(g))));
    return a;
  }

  // The history input and output of one quantized tensor (delayed recipe).
  Value *addHistory(const std::string &base) {
    std::string key = base + "_amax_history";
    for (unsigned i = 0; i < g_.numInputs(); ++i)
      if (const Attribute *a = g_.inputAttrs(i).get("fp8.state");
          a && a->kind() == AttrKind::String && a->asString() == key)
        key += "_" + std::to_string(i);
    AttrDict attrs;
    attrs.set("fp8.state", Attribute(key));
    return g_.addInput(TensorType({r_.historyLen}, DType::F32), key, attrs);
  }

  void addStateOutput(Value *hist, Value *next) {
    Op *ret = g_.returnOp();
    ret->addOperand(next);
    AttrDict attrs;
    attrs.set("fp8.state", *g_.inputAttrs(hist->index()).get("fp8.state"));
    g_.addResultType(next->type(), attrs);
  }

  // True when `v` depends on a gradient input (`{fp8.grad}`, written by autodiff).
  bool isGrad(Value *v) {
    if (auto it = gradMemo_.find(v); it != gradMemo_.end())
      return it->second;
    bool g = false;
    if (isGraphInput(v))
      g = g_.inputAttrs(v->index()).has("fp8.grad");
    else if (Op *d = v->definingOp())
      for (Value *o : d->operands())
        g = g || isGrad(o);
    gradMemo_[v] = g;
    return g;
  }

  // gelu_saved=e4m3: the backward's gelu_grad(dy, x) reads x through an unscaled e4m3 copy,
  //   %x_e4m3 = fp8.convert %x     (an FP8 forward value: the training split saves it)
  //   %x_saved = fp8.convert %x_e4m3 -> x's dtype   (in the backward)
  // so the forward saves one byte per element instead of x. No scale is needed: the
  // derivative is flat past e4m3's saturation (|x| > 448: gelu' is 0 or 1 to f32 precision),
  // and an error of at most 2^-4 |x| (half an ulp of 3 mantissa bits; 2^-10 absolute below
  // 2^-6) moves gelu'(x) by at most max |x gelu''(x)| / 16, about 0.02, in the backward's
  // bf16 dh, before its e5m2 cast (up to 2^-3 relative). Measured: TrainingGradTest's
  // GeluSavedE4m3CostsLittleAndSavesTheHidden; H200: docs/performance.md,
  // the training-step table.
  bool saveGeluInputAsE4m3(Op *gg) {
    Value *x = gg->operand(1);
    if (isFloat8(x->type().dtype()))
      return true;
    OpBuilder b(*gg->parentBlock(), gg);
    auto it = geluSavedCopy_.find(x);
    if (it == geluSavedCopy_.end()) {
      Value *q =
          make(b, OpKind::Convert, {x}, {}, gg->loc(), DType::F8E4M3FN, baseName(x, "x") + "_e4m3");
      if (!q)
        return false;
      Value *w = make(b, OpKind::Convert, {q}, {}, gg->loc(), x->type().dtype(),
                      baseName(x, "x") + "_saved");
      if (!w)
        return false;
      it = geluSavedCopy_.emplace(x, w).first;
    }
    gg->setOperand(1, it->second);
    return true;
  }

  // Quantizes `v` as the A (activation, gradient) or B (weight) operand, inserting before
  // `at`. Gradients take the recipe's gradient dtype, the rest the role's dtype; the role
  // gives the granularity. A transpose whose scales are the transposed scales of its source
  // (tensor, 128x128) is the transpose of the source's FP8 copy: the cast writes both.
  std::optional<QuantizedOperand> quantize(Value *v, bool isWeight, Op *at) {
    bool grad = isGrad(v);
    DType fp8 = grad ? r_.gradDType : isWeight ? r_.weightDType : r_.actDType;
    Granularity gran = isWeight ? r_.weightGranularity() : r_.actGranularity();
    auto key = std::make_tuple(v, fp8, gran);
    if (auto it = cache_.find(key); it != cache_.end())
      return it->second;
    // An input of rank > 2 is [prod(leading dims), K] to the GEMM: one scale for the tensor
    // covers it as it is; row and block scales are defined on a 2-D [M, K].
    const int64_t rank = v->type().rank();
    if (rank < 2 || (rank != 2 && (isWeight || gran != Granularity::Tensor))) {
      std::string what = isWeight ? "weight" : "input";
      std::string why = rank < 2 || isWeight
                            ? "must be 2-D"
                            : "must be 2-D under recipe " + std::string(r_.name()) + " (its " +
                                  std::string(granularityName(gran)) +
                                  " scales are defined on [M, K]; tensorwise and delayed take "
                                  "any rank)";
      diag_.error(at->loc(), "quantize: the " + what + " of '" + std::string(at->name()) + "' " +
                                 why + ", got " + v->type().str() +
                                 "; flatten the leading dims first");
      return std::nullopt;
    }
    if (Op *t = v->definingOp(); t && t->kind() == OpKind::Transpose && !transposes_.count(t) &&
                                 (gran == Granularity::Tensor ||
                                  gran == Granularity::Block128x128)) {
      std::optional<QuantizedOperand> src = quantize(t->operand(0), isWeight, at);
      if (!src)
        return std::nullopt;
      OpBuilder b(*at->parentBlock(), at);
      Value *q = make(b, OpKind::Transpose, {src->fp8}, {}, at->loc(), std::nullopt,
                      src->fp8->name() + "_t");
      Value *s = gran == Granularity::Tensor
                     ? src->scale
                     : make(b, OpKind::Transpose, {src->scale}, {}, at->loc(), std::nullopt,
                            src->scale->name() + "_t");
      if (!q || !s)
        return std::nullopt;
      QuantizedOperand out{q, s};
      cache_[key] = out;
      return out;
    }
    bool param = isWeight && r_.staticWeights && !grad;
    if (param) {
      // fp8.matmul's weight is the transpose rewrite() made of its right operand.
      Value *src = v;
      if (Op *t = v->definingOp(); t && t->kind() == OpKind::Transpose && transposes_.count(t))
        src = t->operand(0);
      if (!isGraphInput(src)) {
        diag_.error(at->loc(), "quantize: weights=static needs the weight of '" +
                                   std::string(at->name()) + "' to be a graph input, but %" +
                                   baseName(src, "?") + " is computed in the graph");
        return std::nullopt;
      }
      g_.mutableInputAttrs(src->index()).set("fp8.param", Attribute(true));
    }
    // Static weights are quantized once at load with current scaling, whatever the recipe.
    bool delayed = r_.kind == RecipeKind::Delayed && !param;
    const Location &loc = at->loc();
    std::string base = baseName(v, isWeight ? "w" : "x");
    OpBuilder b(*at->parentBlock(), at);
    Value *amax = make(b, OpKind::Amax, {v}, granularityAttrs(gran), loc, std::nullopt,
                       base + "_amax");
    if (!amax)
      return std::nullopt;
    Value *scale;
    if (delayed) {
      Value *hist = addHistory(base);
      AttrDict attrs = scaleAttrs(fp8);
      attrs.set("algo", Attribute(r_.algo));
      scale = make(b, OpKind::HistoryScale, {hist}, std::move(attrs), loc, std::nullopt,
                   base + "_scale");
      Value *next = make(b, OpKind::HistoryPush, {hist, amax}, {}, loc, std::nullopt,
                         hist->name() + "_next");
      if (!scale || !next)
        return std::nullopt;
      addStateOutput(hist, next);
    } else {
      scale = make(b, OpKind::Scale, {amax}, scaleAttrs(fp8), loc, std::nullopt, base + "_scale");
    }
    if (!scale)
      return std::nullopt;
    Value *q = make(b, OpKind::Cast, {v, scale}, granularityAttrs(gran), loc, fp8, base + "_fp8");
    if (!q)
      return std::nullopt;
    QuantizedOperand out{q, scale};
    cache_[key] = out;
    return out;
  }

  bool rewrite(Op *op) {
    Value *x = op->operand(0);
    Value *w = op->operand(1);
    Value *bias = op->kind() == OpKind::Linear && op->numOperands() == 3 ? op->operand(2) : nullptr;
    OpBuilder b(*op->parentBlock(), op);
    if (op->kind() == OpKind::Matmul) {
      // a[M, K] . b[K, N] == a . (b^T)ᵀ with b^T the [N, K] weight of a linear; one transpose
      // per right operand, so that a weight shared by several matmuls is quantized once.
      auto it = transposeOf_.find(w);
      if (it == transposeOf_.end()) {
        Value *t =
            make(b, OpKind::Transpose, {w}, {}, op->loc(), std::nullopt, baseName(w, "w") + "_t");
        if (!t)
          return false;
        transposes_.insert(t->definingOp());
        it = transposeOf_.emplace(w, t).first;
      }
      w = it->second;
    }
    std::optional<QuantizedOperand> qx = quantize(x, /*isWeight=*/false, op);
    if (!qx)
      return false;
    std::optional<QuantizedOperand> qw = quantize(w, /*isWeight=*/true, op);
    if (!qw)
      return false;
    // No FP8 tensor-core instruction multiplies two e5m2 operands: a backward GEMM meets one
    // when the gradient dtype and the other operand's are both e5m2.
    if (qx->fp8->type().dtype() == DType::F8E5M2 && qw->fp8->type().dtype() == DType::F8E5M2) {
      const bool grad = isGrad(x) || isGrad(w);
      diag_.error(op->loc(), std::string("quantize: '") + std::string(op->name()) +
                                 "' would multiply two e5m2 operands (" +
                                 (grad ? "grad_dtype=e5m2 with " +
                                             std::string(isGrad(x) ? "weight_dtype=e5m2" : "act_dtype=e5m2")
                                       : std::string("act_dtype=e5m2 with weight_dtype=e5m2")) +
                                 "), which no FP8 GEMM takes; make one of them e4m3");
      return false;
    }
    DType out = op->result()->type().dtype();
    std::vector<Value *> operands = {qx->fp8, qw->fp8, qx->scale, qw->scale};
    if (bias)
      operands.push_back(bias);
    AttrDict attrs;
    attrs.set("out", Attribute(out));
    // Backward GEMMs (an operand depends on a gradient): their own fast_accum, off by default.
    bool backward = isGrad(x) || isGrad(w);
    if (backward ? r_.bwdFastAccum : r_.fastAccum)
      attrs.set("fast_accum", Attribute(true));
    Value *y = make(b, OpKind::ScaledMatmul, operands, std::move(attrs), op->loc(), out,
                    op->result()->name());
    if (!y)
      return false;
    op->result()->replaceAllUsesWith(y);
    op->parentBlock()->erase(op);
    return true;
  }

  Graph &g_;
  const Recipe &r_;
  DiagnosticEngine &diag_;
  std::map<std::tuple<Value *, DType, Granularity>, QuantizedOperand> cache_;
  std::map<Value *, bool> gradMemo_;
  std::map<Value *, Value *> transposeOf_; ///< fp8.matmul right operand -> its transpose
  std::set<Op *> transposes_;              ///< the transposes made for fp8.matmul
  std::map<Value *, Value *> geluSavedCopy_; ///< gelu_saved=e4m3: x -> its widened e4m3 copy
};

class QuantizePass : public Pass {
public:
  explicit QuantizePass(Recipe r) : recipe_(std::move(r)) {}
  std::string_view name() const override { return "quantize"; }
  std::string optionsString() const override { return recipe_.str(); }
  bool run(Graph &g, PassContext &ctx) override {
    if (!g.returnOp()) {
      ctx.diag.error(g.loc(), "quantize: @" + g.name() + " has no func.return");
      return false;
    }
    // fuse moved the linears and matmuls into fp8.kernel regions, which quantize does not
    // rewrite: on a fused graph it would do nothing.
    for (Op *op : g.body().opList())
      if (op->kind() == OpKind::Kernel) {
        ctx.diag.error(op->loc(), "quantize: @" + g.name() +
                                      " is already fused (this fp8.kernel holds its ops, which "
                                      "quantize does not rewrite); quantize before fuse");
        return false;
      }
    return Quantizer(g, recipe_, ctx.diag).run();
  }

private:
  Recipe recipe_;
};

} // namespace

std::unique_ptr<Pass> createQuantizePass(const Recipe &recipe) {
  return std::make_unique<QuantizePass>(recipe);
}

} // namespace fp8c
