// isParameterInput and valuesFromParametersAlone (Parameters.h).
#include "ir/Parameters.h"

namespace fp8c {

bool isParameterInput(const Graph &g, unsigned i) {
  const Attribute *a = g.inputAttrs(i).get("fp8.param");
  return a && a->kind() == AttrKind::Bool && a->asBool();
}

std::set<const Value *>
valuesFromParametersAlone(const Graph &g, const std::function<const Value *(const Value *)> &canon,
                          const std::function<bool(const Op *)> &skip) {
  std::set<const Value *> out;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (isParameterInput(g, i))
      out.insert(g.input(i));
  for (const auto &op : g.body().ops()) {
    if (op->kind() == OpKind::Return || op->numOperands() == 0 || (skip && skip(op.get())))
      continue;
    bool all = true;
    for (const Value *o : op->operands())
      all = all && out.count(canon ? canon(o) : o);
    if (all)
      for (const Value *r : op->results())
        out.insert(r);
  }
  return out;
}

} // namespace fp8c
