// GpuTraining (TrainingGpu.h): the two halves of a training step as Executables, with the
// saved tensors in device buffers that the forward's outputs and the backward's inputs bind.
#include "training/TrainingGpu.h"

#include <algorithm>

namespace fp8c {
namespace {

std::string attrStr(const AttrDict &a, std::string_view name) {
  const Attribute *v = a.get(name);
  return v && v->kind() == AttrKind::String ? v->asString() : "";
}

const AttrDict &resultAttrs(const Graph &g, unsigned i) {
  static const AttrDict empty;
  return i < g.resultAttrs().size() ? g.resultAttrs()[i] : empty;
}

Expected<std::unique_ptr<Executable>> compileHalf(const Graph &g, const TrainingOptions &o) {
  CompileOptions co = trainingCompileOptions(o.tokens, o.gemmBackend);
  co.tuning.fp8Tables = o.fp8Tables;
  co.tuning.byteStagedTranspose = o.byteStagedTranspose;
  co.tuning.insideTiles = o.insideTiles;
  co.sideLaunches = o.sideLaunches;
  co.load.cublasLtAutotune = o.cublasLtAutotune;
  co.load.countNonFinite = o.countNonFinite;
  Expected<std::unique_ptr<Executable>> exe = compile(g, co);
  if (!exe)
    return Error("compiling @" + g.name() + ": " + exe.error());
  return exe;
}

Status missing(const std::string &what, const std::string &name, const std::string &half) {
  return Error("GpuTraining::" + half + ": no binding for " + what + " '" + name + "'");
}

} // namespace

CompileOptions trainingCompileOptions(int64_t tokens, GemmBackend gemmBackend) {
  CompileOptions co;
  co.passes = "dce"; // the graph is fused already: lower it as it is
  co.load.maxTokens = tokens > 0 ? tokens : 8192;
  co.backend = gemmBackend;
  return co;
}

Expected<std::unique_ptr<GpuTraining>> compileTraining(const Graph &g, const TrainingOptions &o) {
  TrainingOptions to = o;
  to.fuse = true;
  DiagnosticEngine diag;
  Expected<TrainingGraphs> t = buildTrainingGraphs(g, pipelineOptionsFor(to), diag);
  if (!t)
    return Error(t.error() + ":\n" + diag.str());
  std::unique_ptr<GpuTraining> out(new GpuTraining());
  out->graphs_ = t.take();
  const Graph &fg = *out->graphs_.forward, &bg = *out->graphs_.backward;
  for (const SavedTensor &s : out->graphs_.saved)
    for (int64_t d : s.type.shape())
      if (d == kDynamic)
        return Error("compileTraining: saved tensor '" + s.key + "' has a dynamic dim; set "
                     "TrainingOptions::tokens");
  Expected<std::unique_ptr<Executable>> f = compileHalf(fg, o);
  if (!f)
    return Error(f.error());
  Expected<std::unique_ptr<Executable>> b = compileHalf(bg, o);
  if (!b)
    return Error(b.error());
  out->fwd_ = f.take();
  out->bwd_ = b.take();
  // After compile(), which made device 0's context current (allocations need it).
  for (const SavedTensor &s : out->graphs_.saved) {
    size_t bytes = static_cast<size_t>(s.type.numElements()) * dtypeBytes(s.type.dtype());
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(std::max<size_t>(bytes, 256));
    if (!buf)
      return Error(buf.error());
    out->saved_.emplace(s.key, buf.take());
  }
  // Forward: inputs by input name, outputs by output name or saved key.
  for (const BufferDesc &d : out->fwd_->plan().buffers) {
    GpuTraining::Slot s;
    s.planName = d.name;
    if (d.role == BufferRole::Input || d.role == BufferRole::Param) {
      s.key = fg.input(static_cast<unsigned>(d.graphIndex))->name();
      s.from = GpuTraining::From::Input;
      out->fwdIn_[s.key] = d.type;
      if (d.role == BufferRole::Param)
        out->params_.push_back(s.key);
    } else if (d.role == BufferRole::Output) {
      const unsigned i = static_cast<unsigned>(d.outputIndex);
      s.key = resultName(fg, i);
      const bool saved = !attrStr(resultAttrs(fg, i), "fp8.saved").empty();
      s.from = saved ? GpuTraining::From::Saved : GpuTraining::From::Output;
      if (!saved)
        out->fwdOut_[s.key] = d.type;
    } else {
      continue;
    }
    out->fwdSlots_.push_back(s);
  }
  const LaunchPlan &fp = out->fwd_->plan();
  for (const Step &step : fp.steps)
    for (int b : buffersOf(step))
      if (fp.buffers[size_t(b)].role == BufferRole::Param && out->paramReadPerRun_.empty())
        out->paramReadPerRun_ = fg.input(unsigned(fp.buffers[size_t(b)].graphIndex))->name();
  // Backward: saved tensors, output gradients by fp8.grad key, forward inputs by name;
  // input gradients by fp8.grad key.
  for (const BufferDesc &d : out->bwd_->plan().buffers) {
    GpuTraining::Slot s;
    s.planName = d.name;
    if (d.role == BufferRole::Input || d.role == BufferRole::Param) {
      const unsigned i = static_cast<unsigned>(d.graphIndex);
      const AttrDict &a = bg.inputAttrs(i);
      if (std::string k = attrStr(a, "fp8.saved"); !k.empty()) {
        s.key = k;
        s.from = GpuTraining::From::Saved;
      } else if (std::string k = attrStr(a, "fp8.grad"); !k.empty()) {
        s.key = k;
        s.from = GpuTraining::From::OutputGrad;
        out->gradIn_[k] = d.type;
      } else {
        s.key = bg.input(i)->name();
        s.from = GpuTraining::From::Input;
        if (!out->fwdIn_.count(s.key))
          return Error("compileTraining: the backward reads '" + s.key +
                       "', which is not a forward input");
        const auto &ps = out->params_;
        if (out->paramReadPerRun_.empty() && std::find(ps.begin(), ps.end(), s.key) != ps.end())
          out->paramReadPerRun_ = s.key; // the backward reads the bound weight, not the copy
      }
    } else if (d.role == BufferRole::Output) {
      s.key = resultName(bg, static_cast<unsigned>(d.outputIndex));
      s.from = GpuTraining::From::InputGrad;
      out->gradOut_[s.key] = d.type;
    } else {
      continue;
    }
    out->bwdSlots_.push_back(s);
  }
  return out;
}

// The binding of a saved tensor's buffer.
DeviceTensor GpuTraining::savedTensor(const std::string &key) const {
  for (const SavedTensor &st : graphs_.saved)
    if (st.key == key)
      return {saved_.at(key).data(), st.type.shape(), st.type.dtype()};
  return {};
}

Status GpuTraining::bindSlots(const std::vector<Slot> &slots, const Bindings *inputs,
                              const Bindings *outputs, const Bindings *outputGrads,
                              const Bindings *inputGrads, const char *half, Bindings &b) const {
  for (const Slot &s : slots) {
    if (s.from == From::Saved) {
      if (!saved_.count(s.key))
        return Error("internal error: no buffer for saved tensor '" + s.key + "'");
      b[s.planName] = savedTensor(s.key);
      continue;
    }
    const Bindings *from = s.from == From::Input        ? inputs
                           : s.from == From::Output     ? outputs
                           : s.from == From::OutputGrad ? outputGrads
                                                        : inputGrads;
    const char *what = s.from == From::Input        ? "input"
                       : s.from == From::Output     ? "output"
                       : s.from == From::OutputGrad ? "output gradient"
                                                    : "input gradient";
    auto it = from->find(s.key);
    if (it == from->end())
      return missing(what, s.key, half);
    b[s.planName] = it->second;
  }
  return Status::ok();
}

Status GpuTraining::forward(const Bindings &inputs, const Bindings &outputs, CUstream stream,
                            WeightCasts casts) {
  Bindings b;
  if (Status st = bindSlots(fwdSlots_, &inputs, &outputs, nullptr, nullptr, "forward", b); !st)
    return st;
  if (casts == WeightCasts::Reuse) {
    const std::string &fn = graphs_.forward->name();
    if (!fwd_->hasLoadSteps())
      return Error("GpuTraining::forward(@" + fn +
                   "): WeightCasts::Reuse needs a step built with "
                   "the recipe option weights=static (this one quantizes its weights in every "
                   "forward)");
    if (!paramReadPerRun_.empty())
      return Error("GpuTraining::forward(@" + fn + "): WeightCasts::Reuse: weight '" +
                   paramReadPerRun_ +
                   "' is also read outside its cast, which would see the "
                   "bound weight beside the reused copy");
    if (castParams_.empty())
      return Error("GpuTraining::forward(@" + fn +
                   "): WeightCasts::Reuse before any forward "
                   "cast the weights: run the first forward with WeightCasts::Cast");
    for (const std::string &p : params_)
      if (inputs.at(p).data != castParams_.at(p))
        return Error("GpuTraining::forward(@" + fn + "): WeightCasts::Reuse: weight '" + p +
                     "' is bound to another buffer than the one its FP8 copy was cast from");
  } else {
    fwd_->invalidateParameters(); // the weights may have changed in place since the last cast
  }
  if (Status st = fwd_->run(b, stream); !st) {
    if (casts == WeightCasts::Cast)
      castParams_.clear(); // the copies may be partly written
    return st;
  }
  if (casts == WeightCasts::Cast && fwd_->hasLoadSteps())
    for (const std::string &p : params_)
      castParams_[p] = inputs.at(p).data;
  lastInputs_ = inputs;
  forwardRan_ = true;
  return Status::ok();
}

Status GpuTraining::backward(const Bindings &outputGrads, const Bindings &inputGrads,
                             CUstream stream) {
  if (!forwardRan_)
    return Error("GpuTraining::backward: run forward first");
  Bindings b;
  if (Status st =
          bindSlots(bwdSlots_, &lastInputs_, nullptr, &outputGrads, &inputGrads, "backward", b);
      !st)
    return st;
  return bwd_->run(b, stream);
}

Status GpuTraining::resetState(CUstream stream) {
  if (Status st = fwd_->resetState(stream); !st)
    return st;
  return bwd_->resetState(stream);
}

Expected<std::vector<float>> GpuTraining::readState(const std::string &key, CUstream stream) {
  for (Executable *e : {fwd_.get(), bwd_.get()})
    for (const std::string &n : e->stateNames())
      if (n == key)
        return e->readState(key, stream);
  return Error("no state named '" + key + "' in either half");
}

Status GpuTraining::enqueueNonFiniteReport(CUstream stream) {
  if (Status st = fwd_->enqueueNonFiniteReport(stream); !st)
    return st;
  return bwd_->enqueueNonFiniteReport(stream);
}

NonFiniteReport GpuTraining::nonFiniteReport() const {
  NonFiniteReport r;
  for (const auto &[exe, slots] : {std::pair{fwd_.get(), &fwdSlots_}, {bwd_.get(), &bwdSlots_}}) {
    NonFiniteReport half = exe->nonFiniteReport();
    for (const NonFiniteReport::Output &o : half.outputs)
      for (const Slot &s : *slots) // by the name the caller binds; not the saved tensors
        if (s.planName == o.name && (s.from == From::Output || s.from == From::InputGrad))
          r.outputs.push_back({s.key, o.count});
    for (const NonFiniteReport::History &h : half.histories)
      r.histories.push_back(h);
  }
  return r;
}

std::vector<std::string> GpuTraining::stateKeys() const {
  std::vector<std::string> out;
  for (const Executable *e : {fwd_.get(), bwd_.get()})
    for (const std::string &n : e->stateNames())
      out.push_back(n);
  return out;
}

int64_t GpuTraining::savedBytes() const {
  int64_t n = 0;
  for (const SavedTensor &s : graphs_.saved)
    n += s.type.numElements() * static_cast<int64_t>(dtypeBytes(s.type.dtype()));
  return n;
}

} // namespace fp8c
