// InterpretedTraining (Training.h): the two halves of a training step run by the interpreter,
// with inputs, saved tensors and state bound by name.
#include "training/Training.h"

#include "ir/Parameters.h"
#include "interp/Interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fp8c {
namespace {

std::string attrStr(const AttrDict &a, std::string_view name) {
  const Attribute *v = a.get(name);
  return v && v->kind() == AttrKind::String ? v->asString() : "";
}

} // namespace

std::string resultName(const Graph &g, unsigned i) {
  const AttrDict empty;
  const AttrDict &a = i < g.resultAttrs().size() ? g.resultAttrs()[i] : empty;
  for (const char *k : {"fp8.grad", "fp8.saved", "fp8.state"})
    if (std::string s = attrStr(a, k); !s.empty())
      return s;
  return g.outputs()[i]->name();
}

Expected<TrainingOptions> trainingOptionsFor(const std::string &recipeSpec) {
  TrainingOptions o;
  const size_t plus = recipeSpec.find('+');
  std::string options;
  if (plus != std::string::npos) {
    options = recipeSpec.substr(plus + 1);
    std::replace(options.begin(), options.end(), '+', ' ');
  }
  Expected<std::optional<Recipe>> r = parseRecipeSpec(recipeSpec.substr(0, plus), options);
  if (!r)
    return Error("recipe '" + recipeSpec + "': " + r.error());
  o.recipe = r.take();
  return o;
}

bool castsWeightsAtLoad(const TrainingGraphs &graphs) {
  const Graph &g = *graphs.forward;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (isParameterInput(g, i))
      return true;
  return false;
}

TrainingPipelineOptions pipelineOptionsFor(const TrainingOptions &o) {
  TrainingPipelineOptions p;
  p.recipe = o.recipe;
  p.tokens = o.tokens;
  p.fuse = o.fuse;
  p.fuseOptions.gemmBackend = o.gemmBackend;
  // (the side launch takes that launch)
  p.fuseOptions.gradEpilogue = o.gradEpilogue && !o.sideLaunches;
  return p;
}

Expected<std::unique_ptr<InterpretedTraining>> InterpretedTraining::create(
    const Graph &g, const TrainingOptions &o) {
  DiagnosticEngine diag;
  Expected<TrainingGraphs> t = buildTrainingGraphs(g, pipelineOptionsFor(o), diag);
  if (!t)
    return Error(t.error() + ":\n" + diag.str());
  std::unique_ptr<InterpretedTraining> out(new InterpretedTraining());
  out->graphs_ = t.take();
  for (const Graph *half : {out->graphs_.forward.get(), out->graphs_.backward.get()})
    for (unsigned i = 0; i < half->numInputs(); ++i)
      if (std::string k = attrStr(half->inputAttrs(i), "fp8.state"); !k.empty()) {
        out->state_[k] = HostTensor::make(half->input(i)->type().shape(), DType::F32);
        out->nonFinite_.histories.push_back({k, 0});
      }
  return out;
}

void InterpretedTraining::countResults(const NamedTensors &results) {
  NonFiniteReport r;
  for (const auto &[name, t] : results)
    r.outputs.push_back({name, countNonFinite(t)});
  for (const NonFiniteReport::Output &o : r.outputs) {
    auto it = std::find_if(nonFinite_.outputs.begin(), nonFinite_.outputs.end(),
                           [&](const NonFiniteReport::Output &m) { return m.name == o.name; });
    if (it == nonFinite_.outputs.end())
      nonFinite_.outputs.push_back(o);
    else
      it->count = o.count;
  }
}

// Binds every input of `g` by name: state, saved, then `named` (by fp8.grad key for gradient
// inputs, by input name otherwise).
Expected<std::vector<HostTensor>> InterpretedTraining::runHalf(const Graph &g,
                                                               const NamedTensors &named) {
  std::vector<HostTensor> in;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const AttrDict &a = g.inputAttrs(i);
    const std::string &name = g.input(i)->name();
    const HostTensor *t = nullptr;
    if (std::string k = attrStr(a, "fp8.state"); !k.empty())
      t = &state_.at(k);
    else if (std::string k = attrStr(a, "fp8.saved"); !k.empty()) {
      auto it = saved_.find(k);
      if (it == saved_.end())
        return Error("@" + g.name() + ": saved tensor '" + k + "' is missing: run forward first");
      t = &it->second;
    } else {
      std::string key = attrStr(a, "fp8.grad");
      if (key.empty())
        key = name;
      if (auto it = named.find(key); it != named.end())
        t = &it->second;
      else if (auto it2 = inputs_.find(key); it2 != inputs_.end())
        t = &it2->second; // a forward input the backward reads (a weight)
      else
        return Error(fmt::format("@{}: no value for input '{}'", g.name(), key));
    }
    in.push_back(*t);
  }
  NonFiniteReport step;
  InterpretOptions io;
  io.report = &step;
  Expected<std::vector<HostTensor>> outs = interpret(g, in, io);
  if (outs) { // the skipped amaxes add up over the steps
    NonFiniteReport skips;
    skips.histories = step.histories;
    nonFinite_.add(skips);
  }
  return outs;
}

void InterpretedTraining::keepStates(const Graph &g, std::vector<HostTensor> &outs) {
  for (unsigned i = 0; i < outs.size(); ++i) {
    const AttrDict empty;
    const AttrDict &a = i < g.resultAttrs().size() ? g.resultAttrs()[i] : empty;
    if (std::string k = attrStr(a, "fp8.state"); !k.empty())
      state_[k] = outs[i];
  }
}

namespace {
// A weight (fp8.param input of the forward) that the step reads besides computing its FP8 copy:
// a forward op that takes it with a value not computed from weights alone, or a backward input
// of its name. "" when there is none. WeightCasts::Reuse is refused then: the reference would
// read the cast weight there, and the GPU's per-run steps the bound one.
std::string weightReadBeyondItsCast(const TrainingGraphs &t,
                                    const std::vector<std::string> &params) {
  auto isParam = [&](const std::string &n) {
    return std::find(params.begin(), params.end(), n) != params.end();
  };
  const Graph &fg = *t.forward;
  const std::set<const Value *> fromWeights = valuesFromParametersAlone(fg);
  auto fromWeightsAlone = [&](const Value *v) { return fromWeights.count(v) != 0; };
  for (const auto &op : fg.body().ops()) {
    const auto ins = op->operands();
    if (op.get() == fg.returnOp() || std::all_of(ins.begin(), ins.end(), fromWeightsAlone))
      continue;
    for (const Value *v : ins) // a weight beside a value not computed from weights alone
      if (v->isBlockArgument() && fromWeightsAlone(v))
        return v->name();
  }
  const Graph &bg = *t.backward;
  for (unsigned i = 0; i < bg.numInputs(); ++i) {
    const AttrDict &a = bg.inputAttrs(i);
    if (!a.has("fp8.saved") && !a.has("fp8.grad") && !a.has("fp8.state") &&
        isParam(bg.input(i)->name()))
      return bg.input(i)->name();
  }
  return "";
}
} // namespace

Expected<NamedTensors> InterpretedTraining::forward(const NamedTensors &inputs, WeightCasts casts) {
  const Graph &g = *graphs_.forward;
  std::vector<std::string> params;
  for (unsigned i = 0; i < g.numInputs(); ++i)
    if (isParameterInput(g, i))
      params.push_back(g.input(i)->name());
  NamedTensors in = inputs;
  if (casts == WeightCasts::Reuse) {
    if (params.empty())
      return Error("@" + g.name() +
                   ": WeightCasts::Reuse needs a step built with the recipe "
                   "option weights=static (this one quantizes its weights in every forward)");
    if (std::string w = weightReadBeyondItsCast(graphs_, params); !w.empty())
      return Error("@" + g.name() + ": WeightCasts::Reuse: weight '" + w +
                   "' is also read outside its cast, which would see the bound weight beside the "
                   "reused copy");
    if (!castRan_)
      return Error("@" + g.name() +
                   ": WeightCasts::Reuse before any forward cast the weights: "
                   "run the first forward with WeightCasts::Cast");
    for (const std::string &p : params)
      in.insert_or_assign(p, castWeights_.at(p));
  }
  inputs_ = in;
  Expected<std::vector<HostTensor>> outs = runHalf(g, in);
  if (!outs)
    return Error(outs.error());
  keepStates(g, *outs);
  if (casts == WeightCasts::Cast && !params.empty()) {
    castWeights_.clear();
    for (const std::string &p : params)
      castWeights_[p] = in.at(p); // runHalf found every input
    castRan_ = true;
  }
  NamedTensors result;
  saved_.clear();
  for (unsigned i = 0; i < outs->size(); ++i) {
    const AttrDict empty;
    const AttrDict &a = i < g.resultAttrs().size() ? g.resultAttrs()[i] : empty;
    if (std::string k = attrStr(a, "fp8.saved"); !k.empty())
      saved_[k] = std::move((*outs)[i]);
    else if (!a.has("fp8.state"))
      result[resultName(g, i)] = std::move((*outs)[i]);
  }
  countResults(result);
  return result;
}

Expected<NamedTensors> InterpretedTraining::backward(const NamedTensors &outputGrads) {
  const Graph &g = *graphs_.backward;
  Expected<std::vector<HostTensor>> outs = runHalf(g, outputGrads);
  if (!outs)
    return Error(outs.error());
  keepStates(g, *outs);
  NamedTensors result;
  for (unsigned i = 0; i < outs->size(); ++i) {
    const AttrDict empty;
    const AttrDict &a = i < g.resultAttrs().size() ? g.resultAttrs()[i] : empty;
    if (std::string k = attrStr(a, "fp8.grad"); !k.empty())
      result[k] = std::move((*outs)[i]);
  }
  countResults(result);
  return result;
}

const HostTensor *InterpretedTraining::state(const std::string &key) const {
  auto it = state_.find(key);
  return it == state_.end() ? nullptr : &it->second;
}

Status InterpretedTraining::setState(const std::string &key, HostTensor value) {
  auto it = state_.find(key);
  if (it == state_.end())
    return Error("no state named '" + key + "'");
  if (value.shape != it->second.shape || value.dtype != it->second.dtype)
    return Error("state '" + key + "': a value of another shape or dtype");
  it->second = std::move(value);
  return Status::ok();
}

std::vector<std::string> InterpretedTraining::stateKeys() const {
  std::vector<std::string> k;
  for (const auto &[key, v] : state_)
    k.push_back(key);
  return k;
}

} // namespace fp8c
