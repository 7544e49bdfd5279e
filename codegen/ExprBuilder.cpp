// The pointwise expression of a launch's value as the statements of the Spec's value(x, slot):
// one line per op (fp8c::op::... rounded to the op's dtype), leaves read as inputs x[i] with
// their broadcast, scalars as slots, and FP8 tables for derivatives of one FP8 input.
#include "codegen/LaunchBuilder.h"

namespace fp8c::codegen {
namespace {

// The call of the op's device function (Ops.def's deviceFn) on the operands' expressions.
std::string opExpr(const Op &op, const std::vector<std::string> &a) {
  if (op.kind() == OpKind::Convert)
    return a[0]; // the result's rounding alone
  if (op.deviceFn().empty())
    return "";
  std::string call = "fp8c::op::" + std::string(op.deviceFn());
  if (op.kind() == OpKind::Scale)
    return call + "<" + dtName(op.dtypeAttr("dtype")) + ">(" + a[0] + ", " +
           std::to_string(op.intAttr("margin")) + ", " + (op.boolAttr("pow2") ? "true" : "false") +
           ")";
  // swiglu_grad {wrt = "up"} is dy * silu(a): it reads no b.
  size_t n = op.kind() == OpKind::SwigluGrad && op.strAttr("wrt") == "up" ? 2 : a.size();
  call += "(";
  for (size_t i = 0; i < n; ++i)
    call += (i ? ", " : "") + a[i];
  return call + ")";
}

} // namespace

std::string ExprBuilder::input(const Value *v, Bcast bc) {
  const Value *c = lw_.canon(v);
  auto key = std::pair{c, bc};
  auto it = inputs_.find(key);
  int i;
  if (it != inputs_.end()) {
    i = it->second;
  } else {
    LaunchInput in;
    in.buf = lw_.bufferOf(c);
    in.dt = c->type().dtype();
    in.bc = bc;
    if (bc == Bcast::Full)
      in.ld = lw_.ldOf(in.buf);
    else if (bc == Bcast::Block1x128 || bc == Bcast::Block128x128)
      in.ld = ceilDiv(d_.cols, 128);
    i = static_cast<int>(d_.inputs.size());
    d_.inputs.push_back(in);
    inputs_[key] = i;
  }
  std::string x = "x[" + std::to_string(i) + "]";
  DType round = lw_.amaxRound(d_.inputs[static_cast<size_t>(i)].buf);
  return round == DType::F32 ? x : "fp8c::roundTo<" + dtName(round) + ">(" + x + ")";
}

bool ExprBuilder::expands(const Value *v) const {
  const Op *def = v->definingOp();
  return def && b_.inScope(def) && b_.inlinable(def) && (v == root_ || !b_.materialized(v)) &&
         !b_.slotOf_.count(v);
}

std::string ExprBuilder::tabulatedGrad(const Op &def, Bcast bc) {
  const char *deriv = def.kind() == OpKind::SiluGrad         ? "fp8c::op::siluDeriv"
                      : def.strAttr("approximate") == "tanh" ? "fp8c::op::geluTanhDeriv"
                                                             : "fp8c::op::geluErfDeriv";
  const Value *x = def.operand(1);
  if (d_.tabIn >= 0 || bc != Bcast::Full || x->type().rank() == 0 ||
      lw_.options().tuning.fp8Tables == 0)
    return "";
  // x = convert(... convert(leaf)): the roundings from the leaf out, and the leaf.
  std::vector<const Value *> chain;
  const Value *leaf = x;
  while (expands(leaf)) {
    const Op *c = leaf->definingOp();
    if (c->kind() != OpKind::Convert)
      return "";
    chain.push_back(leaf);
    leaf = c->operand(0);
  }
  const Value *c = lw_.canon(leaf);
  if (!isFloat8(c->type().dtype()) || leaf->type().rank() == 0)
    return "";
  LaunchInput in;
  in.buf = lw_.bufferOf(c);
  in.dt = c->type().dtype();
  in.bc = Bcast::Full;
  in.ld = lw_.ldOf(in.buf);
  std::string fx = "x";
  if (DType round = lw_.amaxRound(in.buf); round != DType::F32)
    fx = "fp8c::roundTo<" + dtName(round) + ">(" + fx + ")";
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    fx = "fp8c::roundTo<" + dtName((*it)->type().dtype()) + ">(" + fx + ")";
  d_.tabIn = static_cast<int>(d_.inputs.size());
  d_.tabFn = std::string(deriv) + "(" + fx + ")";
  d_.inputs.push_back(in);
  tabulated_.insert(chain.begin(), chain.end());
  return "fp8c::op::mul(" + of(def.operand(0), bc) + ", x[" + std::to_string(d_.tabIn) + "])";
}

std::string ExprBuilder::of(const Value *v, Bcast bc) {
  if (auto s = b_.slotOf_.find(v); s != b_.slotOf_.end())
    return "slot[" + std::to_string(s->second) + "]";
  if (!expands(v))
    return input(v, v->type().rank() == 0 ? Bcast::Scalar : bc);
  const Op *def = v->definingOp();
  if (auto m = memo_.find(v); m != memo_.end())
    return m->second;
  if (def->kind() == OpKind::GeluGrad || def->kind() == OpKind::SiluGrad) {
    if (std::string e = tabulatedGrad(*def, bc); !e.empty()) {
      std::string t = "t" + std::to_string(temps_++);
      d_.body.push_back("const float " + t + " = fp8c::roundTo<" + dtName(v->type().dtype()) +
                        ">(" + e + "); // " + std::string(def->name()) + " %" + v->name() +
                        ", its derivative from the table");
      memo_[v] = t;
      return t;
    }
  }
  std::vector<std::string> args;
  for (unsigned i = 0; i < def->numOperands(); ++i) {
    const Value *o = def->operand(i);
    Bcast obc = o->type().rank() == 0 ? Bcast::Scalar : bc;
    if (i == 1 && (def->kind() == OpKind::Dequant || def->kind() == OpKind::Cast))
      obc = bc == Bcast::Full ? bcastOf(LaunchBuilder::granOf(def)) : Bcast::Scalar;
    args.push_back(of(o, obc));
  }
  std::string t = "t" + std::to_string(temps_++);
  d_.body.push_back("const float " + t + " = fp8c::roundTo<" + dtName(v->type().dtype()) + ">(" +
                    opExpr(*def, args) + "); // " + std::string(def->name()) + " %" + v->name());
  memo_[v] = t;
  return t;
}

} // namespace fp8c::codegen
