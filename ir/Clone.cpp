// Graph cloning with a value map.
#include "ir/Clone.h"

#include <unordered_map>

namespace fp8c {
namespace {

void cloneBlock(const Block &from, Block &to, ValueMap &map) {
  for (const auto &op : from.ops())
    cloneOpInto(*op, to, map);
}

} // namespace

Op *cloneOpInto(const Op &src, Block &to, ValueMap &map) {
  const Op *op = &src;
  {
    std::vector<Value *> operands;
    for (Value *v : op->operands()) {
      auto it = map.find(v);
      operands.push_back(it != map.end() ? it->second : v);
    }
    std::vector<TensorType> types;
    for (Value *r : op->results())
      types.push_back(r->type());
    Op *copy = to.append(Op::create(op->kind(), operands, types, op->attrs(), op->loc()));
    for (unsigned i = 0; i < op->numResults(); ++i) {
      copy->result(i)->setName(op->result(i)->name());
      map[op->result(i)] = copy->result(i);
    }
    if (const Block *body = op->body()) {
      Block &nb = copy->createBody();
      for (Value *a : body->arguments())
        map[a] = nb.addArgument(a->type(), a->name());
      cloneBlock(*body, nb, map);
    }
    return copy;
  }
}

std::unique_ptr<Graph> cloneGraph(const Graph &g) {
  auto out = std::make_unique<Graph>(g.name(), g.loc());
  ValueMap map;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    map[g.input(i)] = out->addInput(g.input(i)->type(), g.input(i)->name(), g.inputAttrs(i));
  for (size_t i = 0; i < g.resultTypes().size(); ++i)
    out->addResultType(g.resultTypes()[i],
                       i < g.resultAttrs().size() ? g.resultAttrs()[i] : AttrDict());
  cloneBlock(g.body(), out->body(), map);
  return out;
}

} // namespace fp8c
