// The loss and sgd graphs and the flat parameter layout (MlpUpdateGraphs.h).
#include "MlpUpdateGraphs.h"

#include "ir/Builder.h"

#include <algorithm>

namespace fp8c::example {

int64_t ParamSlot::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

const ParamSlot *ParamLayout::find(const std::string &name) const {
  for (const ParamSlot &s : slots)
    if (s.name == name)
      return &s;
  return nullptr;
}

ParamLayout mlpParamLayout(const MlpSizes &s) {
  ParamLayout l;
  for (auto [name, shape] :
       std::vector<std::pair<std::string, std::vector<int64_t>>>{{"w1", {s.hidden, s.in}},
                                                                 {"b1", {s.hidden}},
                                                                 {"w2", {s.out, s.hidden}},
                                                                 {"b2", {s.out}}}) {
    ParamSlot slot{name, shape, l.total};
    l.total += (slot.elements() + kSgdCols - 1) / kSgdCols * kSgdCols;
    l.slots.push_back(std::move(slot));
  }
  return l;
}

std::vector<float> packInitialParams(const MlpProblem &p, const ParamLayout &layout) {
  std::vector<float> flat(static_cast<size_t>(layout.total), 0.0f);
  for (const ParamSlot &s : layout.slots) {
    const std::vector<float> &src = s.name == "w1"   ? p.w1
                                    : s.name == "b1" ? p.b1
                                    : s.name == "w2" ? p.w2
                                                     : p.b2;
    std::copy(src.begin(), src.end(), flat.begin() + s.offset);
  }
  return flat;
}

Expected<std::unique_ptr<Graph>> buildLossGraph(int64_t batch, int64_t out, DType dtype) {
  GraphBuilder b("mlp_loss");
  Value *y = b.input("y", TensorType({batch, out}, dtype));
  Value *nt = b.input("nt", TensorType({batch, out}, DType::F32));
  Value *c = b.input("c", TensorType({}, DType::F32));
  Value *d = b.add(b.convert(y, DType::F32, "yf"), nt, "d");
  b.output(b.convert(b.mul(d, c, "dyf"), dtype, "dy"));
  b.output(b.op(OpKind::ColSum, {b.mul(d, d, "sq")}, {}, std::nullopt, "cs"));
  return b.finish();
}

Expected<std::unique_ptr<Graph>> buildSgdGraph(int64_t rows, DType dtype) {
  GraphBuilder b("mlp_sgd");
  Value *w = b.input("w", TensorType({rows, kSgdCols}, DType::F32));
  Value *g = b.input("g", TensorType({rows, kSgdCols}, dtype));
  Value *nlr = b.input("nlr", TensorType({}, DType::F32));
  Value *wn = b.add(w, b.mul(b.convert(g, DType::F32, "gf"), nlr, "step"), "wn");
  b.output(wn);
  b.output(b.convert(wn, dtype, "wq"));
  return b.finish();
}

} // namespace fp8c::example
