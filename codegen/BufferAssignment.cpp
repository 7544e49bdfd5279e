// Buffers of a lowering: one per graph input (Input / Param / State), per kernel result and per
// graph output, temporaries as the kernels need them. Before any code is emitted this decides
// (a) which values need a padded row pitch: GEMM operands and outputs whose rows are not a
// multiple of 16 bytes; (b) which scales a GEMM needs inverted, and in which layout; (c) which
// values depend on parameters only (computed once, at load). Outputs that cannot be written in
// place (a padded value, a graph input returned as is, a value returned twice) get a copy.
#include "codegen/LowerInternal.h"
#include "ir/Parameters.h"

#include <algorithm>

namespace fp8c::codegen {
namespace {

int64_t roundUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

std::string attrString(const AttrDict &d, std::string_view name) {
  const Attribute *a = d.get(name);
  return a && a->kind() == AttrKind::String ? a->asString() : std::string();
}

} // namespace

AffineM Lowerer::rowsOf(const TensorType &t) {
  AffineM r{0, 1};
  for (int64_t i = 0; i + 1 < t.rank(); ++i) {
    if (t.isDynamicDim(i)) {
      r.perM = r.perM ? r.perM : r.fixed;
      r.fixed = 0;
    } else {
      r.perM *= t.dim(i);
      r.fixed *= t.dim(i);
    }
  }
  return r;
}

int64_t Lowerer::colsOf(const TensorType &t) { return t.rank() == 0 ? 1 : t.dim(t.rank() - 1); }

const Value *Lowerer::canon(const Value *v) const {
  for (auto it = alias_.find(v); it != alias_.end(); it = alias_.find(v))
    v = it->second;
  return v;
}

int Lowerer::createBuffer(const Value *v, BufferRole role, int graphIndex) {
  BufferDesc d;
  std::string base = v && !v->name().empty() ? v->name() : "t";
  int n = nameCount_[base]++;
  d.name = n == 0 ? base : base + "." + std::to_string(n);
  d.type = v ? v->type() : TensorType();
  d.role = role;
  d.graphIndex = graphIndex;
  if (v) {
    auto it = requiredLd_.find(v);
    if (it != requiredLd_.end() && role == BufferRole::Temp) {
      d.ld = it->second;
      if (n > 0) // the output it is copied to has the plain name
        d.name = base + ".padded";
    }
    // A trailing dynamic dim (a transposed activation): pitch M, padded for a GEMM operand.
    if (d.type.rank() == 2 && d.type.isDynamicDim(1)) {
      auto a = dynamicAlign_.find(v);
      if (a != dynamicAlign_.end() && role == BufferRole::Temp)
        d.ldAlignM = a->second;
    }
  }
  if (v)
    if (auto it = mDivisor_.find(v); it != mDivisor_.end())
      d.mDivisor = it->second;
  plan_.buffers.push_back(d);
  int b = static_cast<int>(plan_.buffers.size()) - 1;
  if (v)
    buf_[v] = b;
  return b;
}

int Lowerer::bufferOf(const Value *v) {
  v = canon(v);
  auto it = buf_.find(v);
  if (it != buf_.end())
    return it->second;
  int b = createBuffer(v, BufferRole::Temp, -1);
  if (loadTimeValues_.count(v))
    desc(b).role = BufferRole::Constant;
  return b;
}

int Lowerer::newTemp(const std::string &name, TensorType type, int64_t ld, bool zeroInit) {
  int n = nameCount_[name]++;
  BufferDesc d;
  d.name = n == 0 ? name : name + "." + std::to_string(n);
  d.type = std::move(type);
  d.role = loadTime_ ? BufferRole::Constant : BufferRole::Temp;
  d.ld = ld;
  d.zeroInit = zeroInit;
  plan_.buffers.push_back(d);
  return static_cast<int>(plan_.buffers.size()) - 1;
}

int Lowerer::newScratch(const std::string &name, TensorType type) {
  const int b = newTemp(name, std::move(type));
  desc(b).role = BufferRole::Scratch;
  return b;
}

int64_t Lowerer::ldOf(int b) const {
  const BufferDesc &d = plan_.buffers[static_cast<size_t>(b)];
  return d.ld > 0 ? d.ld : colsOf(d.type);
}

DType Lowerer::amaxRound(int b) const {
  auto it = amaxRound_.find(b);
  return it == amaxRound_.end() ? DType::F32 : it->second;
}

int Lowerer::gemmOperandBuffer(const Value *v) {
  v = canon(v);
  int b = bufferOf(v);
  auto need = requiredLd_.find(v);
  if (need == requiredLd_.end() || ldOf(b) >= need->second)
    return b;
  auto it = paddedCopy_.find(v);
  if (it != paddedCopy_.end())
    return it->second;
  // An input (or output) that cannot be padded in place: copy it into a padded temporary.
  int p = padCopy(v, v->type(), need->second, false, need->second,
                  "with row pitch " + std::to_string(need->second) +
                      " (16-byte aligned rows for cuBLASLt, zero padding)");
  paddedCopy_[v] = p;
  return p;
}

int Lowerer::padCopy(const Value *v, TensorType type, int64_t ld, bool zeroInit,
                     int64_t storeLd, const std::string &what) {
  const int b = bufferOf(v);
  bool saved = loadTime_;
  loadTime_ = loadTimeValues_.count(v) != 0;
  int p = newTemp(desc(b).name + ".padded", std::move(type), ld, zeroInit);
  LaunchDesc d;
  d.suffix = "pad";
  d.description = "copy of %" + desc(b).name + " " + what;
  d.rows = rowsOf(v->type());
  d.cols = colsOf(v->type());
  d.inputs.push_back({b, v->type().dtype(), ldOf(b), Bcast::Full});
  d.result = "x[0]";
  d.valueDt = v->type().dtype();
  d.storeBuf = p;
  d.storeDt = v->type().dtype();
  d.storeLd = storeLd;
  addLaunch(d, -1);
  loadTime_ = saved;
  return p;
}

bool Lowerer::isPaddedCopy(int b) const {
  for (const auto &[v, p] : paddedCopy_)
    if (p == b)
      return true;
  for (const auto &[key, p] : rowPadded_)
    if (p == b)
      return true;
  return false;
}

int Lowerer::rowPaddedCopy(const Value *v, int64_t rows) {
  v = canon(v);
  if (auto it = rowPadded_.find({v, rows}); it != rowPadded_.end())
    return it->second;
  const TensorType &t = v->type();
  const bool matrix = t.rank() == 2;
  auto need = requiredLd_.find(v);
  const int64_t ld = matrix && need != requiredLd_.end() ? need->second : 0;
  // The launch writes the first N rows (a bias: the N elements and zeros up to `rows`); the
  // rows after them are zeroed before it runs.
  int p = padCopy(v,
                  matrix ? TensorType({rows, colsOf(t)}, t.dtype()) : TensorType({rows}, t.dtype()),
                  ld, matrix, matrix ? (ld ? ld : colsOf(t)) : rows,
                  "with " + std::to_string(rows) + (matrix ? " rows" : " elements") +
                      " (zero padding" + (ld ? ", row pitch " + std::to_string(ld) : std::string()) +
                      ": cuBLASLt runs with N rounded up)");
  rowPadded_[{v, rows}] = p;
  return p;
}

std::optional<int> Lowerer::inverseBuffer(const Value *v, InvLayout layout) {
  v = canon(v);
  auto it = inverse_.find({v, layout});
  if (it == inverse_.end())
    return std::nullopt;
  if (it->second >= 0)
    return it->second;
  const TensorType &t = v->type();
  std::string name = (v->name().empty() ? "scale" : v->name()) + ".inv";
  bool saved = loadTime_;
  loadTime_ = loadTimeValues_.count(v) != 0;
  int b;
  if (layout == InvLayout::KBlockMajor && t.rank() == 2) {
    // [R, KB] scales stored K-block-major: a [KB, R] buffer whose rows are padded to 4.
    TensorType tt({t.dim(1), t.dim(0)}, DType::F32);
    b = newTemp(name, tt);
    if (t.isDynamicDim(0))
      desc(b).ldAlignM = 4;
    else
      desc(b).ld = roundUp(t.dim(0), 4);
  } else if (layout == InvLayout::RowMajorPad4 && t.rank() == 2) {
    b = newTemp(name, t, roundUp(t.dim(1), 4));
  } else {
    b = newTemp(name, t);
  }
  loadTime_ = saved;
  if (layout != InvLayout::KBlockMajor)
    desc(b).mDivisor = mDivisor(v);
  it->second = b;
  return b;
}

std::vector<InvLayout> Lowerer::pendingInverses(const Value *v) const {
  v = canon(v);
  std::vector<InvLayout> out;
  for (const auto &[key, b] : inverse_)
    if (key.first == v && !inverseWritten_.count(key))
      out.push_back(key.second);
  return out;
}

void Lowerer::markInverseWritten(const Value *v, InvLayout layout) {
  inverseWritten_.insert({canon(v), layout});
}

// --- planning passes ------------------------------------------------------------------------

// Values whose dynamic dim is ceil(M / 128): the 128x128 amaxes of tensors with M rows, and
// the scales computed from them.
void Lowerer::planDivisors() {
  g_.walk([&](const Op *op) {
    if (op->kind() == OpKind::Amax && op->strAttr("granularity") == "block_128x128" &&
        op->operand(0)->type().rank() == 2 && op->operand(0)->type().isDynamicDim(0))
      mDivisor_[canon(op->result())] = 128;
    else if (op->kind() == OpKind::Scale && mDivisor_.count(canon(op->operand(0))))
      mDivisor_[canon(op->result())] = mDivisor_[canon(op->operand(0))];
  });
}

int64_t Lowerer::mDivisor(const Value *v) const {
  auto it = mDivisor_.find(canon(v));
  return it == mDivisor_.end() ? 1 : it->second;
}

void Lowerer::planLoadTime() {
  loadTimeValues_ = valuesFromParametersAlone(g_, [&](const Value *v) { return canon(v); });
}

void Lowerer::planPadding() {
  g_.walk([&](const Op *op) {
    if (op->kind() == OpKind::Kernel && kernelKindOf(*op) == KernelKind::Gemm) {
      GemmAnalysis a = analyzeGemm(*op, options().arch);
      for (const Value *w : a.written)
        requirePitch(w);
      if (a.aux)
        requirePitch(a.aux);
      if (a.transD)
        requirePitch(a.transD->result());
    }
    if (!op->parentOp() || opRoleOf(*op) != OpRole::Main)
      return;
    const TensorType &a = op->operand(0)->type(), &b = op->operand(1)->type();
    const int64_t k = colsOf(a);
    auto need = [&](const Value *v, int64_t cols) {
      const int64_t per = 16 / dtypeBytes(v->type().dtype());
      if (cols == kDynamic) {
        dynamicAlign_[canon(v)] = static_cast<int>(per);
        return;
      }
      if (cols % per == 0)
        return;
      int64_t &ld = requiredLd_[canon(v)];
      ld = std::max(ld, roundUp(cols, per));
    };
    // A transpose cuBLASLt reads in place (inPlaceTranspose): its input is the buffer read.
    for (int i = 0; i < 2; ++i) {
      if (const Op *t = inPlaceTranspose(op, i))
        need(t->operand(0), colsOf(t->operand(0)->type()));
      else
        need(op->operand(i), i == 0 ? k : op->kind() == OpKind::Matmul ? colsOf(b) : k);
    }
  });
}

void Lowerer::requirePitch(const Value *v) {
  const int64_t cols = colsOf(v->type());
  const int64_t per = 16 / dtypeBytes(v->type().dtype());
  if (cols % per != 0) {
    int64_t &ld = requiredLd_[canon(v)];
    ld = std::max(ld, roundUp(cols, per));
  }
}

void Lowerer::planInverses() {
  g_.walk([&](const Op *op) {
    if (op->kind() != OpKind::ScaledMatmul || !op->parentOp())
      return;
    const int64_t rank = op->operand(2)->type().rank();
    InvLayout la = rank == 2 ? InvLayout::KBlockMajor : InvLayout::RowMajor;
    InvLayout lb = rank == 2 ? InvLayout::RowMajorPad4 : InvLayout::RowMajor;
    inverse_.emplace(std::pair{canon(op->operand(2)), la}, -1);
    inverse_.emplace(std::pair{canon(op->operand(3)), lb}, -1);
  });
}

void Lowerer::assignGraphBuffers() {
  std::map<std::string, int> stateInput;
  for (unsigned i = 0; i < g_.numInputs(); ++i) {
    const AttrDict &attrs = g_.inputAttrs(i);
    std::string key = attrString(attrs, "fp8.state");
    BufferRole role = !key.empty()                         ? BufferRole::State
                      : loadTimeValues_.count(g_.input(i)) ? BufferRole::Param
                                                           : BufferRole::Input;
    int b = createBuffer(g_.input(i), role, static_cast<int>(i));
    if (!key.empty())
      stateInput[key] = b;
  }
  std::vector<Value *> outs = g_.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    const Value *v = canon(outs[i]);
    std::string key =
        i < g_.resultAttrs().size() ? attrString(g_.resultAttrs()[i], "fp8.state") : "";
    if (!key.empty() && stateInput.count(key)) {
      int sb = stateInput[key];
      desc(sb).outputIndex = static_cast<int>(i);
      if (buf_.count(v) && buf_[v] == sb)
        continue; // the state returned unchanged
      const Op *def = v->definingOp();
      bool push = false;
      if (def && def->kind() == OpKind::Kernel)
        if (const Op *y = def->body()->terminator())
          for (unsigned j = 0; j < def->numResults(); ++j)
            if (def->result(j) == v && y->operand(j)->definingOp() &&
                y->operand(j)->definingOp()->kind() == OpKind::HistoryPush)
              push = true;
      if (push && !buf_.count(v))
        stateTarget_[v] = sb;
      else
        outputCopies_[v].push_back(sb);
      continue;
    }
    bool inPlace = !buf_.count(v) && !requiredLd_.count(v) && v->definingOp() != nullptr;
    if (inPlace) {
      int b = createBuffer(v, BufferRole::Output, static_cast<int>(i));
      desc(b).outputIndex = static_cast<int>(i);
      desc(b).type = g_.resultTypes()[i];
    } else {
      BufferDesc d;
      std::string base = v->name().empty() ? "out" + std::to_string(i) : v->name();
      int n = nameCount_[base]++;
      d.name = n == 0 ? base : base + "." + std::to_string(n);
      d.type = g_.resultTypes()[i];
      d.role = BufferRole::Output;
      d.graphIndex = d.outputIndex = static_cast<int>(i);
      d.mDivisor = mDivisor(v);
      plan_.buffers.push_back(d);
      outputCopies_[v].push_back(static_cast<int>(plan_.buffers.size()) - 1);
    }
  }
}

/// Copies into Output (or State) buffers the values that could not be written there directly:
/// after the kernel that computes them, or (graph inputs) before everything else.
void Lowerer::emitOutputCopies(const std::vector<const Value *> &values, int kernelIndex) {
  for (const Value *v : values) {
    auto it = outputCopies_.find(canon(v));
    if (it == outputCopies_.end())
      continue;
    for (int ob : it->second) {
      int src = bufferOf(v);
      LaunchDesc d;
      d.suffix = "copy";
      d.description = "copy of %" + desc(src).name + " into output %" + desc(ob).name;
      d.rows = rowsOf(desc(ob).type);
      d.cols = colsOf(desc(ob).type);
      d.inputs.push_back({src, desc(src).type.dtype(), ldOf(src), Bcast::Full});
      d.result = "x[0]";
      d.valueDt = desc(ob).type.dtype();
      d.storeBuf = ob;
      d.storeDt = desc(ob).type.dtype();
      d.storeLd = ldOf(ob);
      // Compact output rows that are not 16-byte multiples (N odd) cannot be stored row by row
      // as vectors: the output is copied as one flat array (copy_compact.cuh).
      const DType t = desc(ob).type.dtype();
      if (t == desc(src).type.dtype() && desc(ob).type.rank() == 2 && d.storeLd == d.cols &&
          (d.cols * static_cast<int64_t>(dtypeBytes(t))) % 16 != 0)
        d.kind = LaunchKind::CompactCopy;
      addLaunch(d, kernelIndex);
    }
    outputCopies_.erase(it);
  }
}

} // namespace fp8c::codegen
