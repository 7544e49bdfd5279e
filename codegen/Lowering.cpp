// lowerGraph: a fused graph to a LaunchPlan, one fp8.kernel at a time, in order (see
// docs/architecture.md). Buffers and the padding / inverse-scale / load-time decisions come
// first (BufferAssignment.cpp); gemm kernels go through LowerGemm.cpp, state kernels (amax
// history pushes) become one single-block launch here, every other kernel goes through
// LaunchBuilder. planToCudaText prints the whole plan for `fp8c --emit=cuda`.
#include "codegen/Lowering.h"

#include "codegen/LowerInternal.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace fp8c {
namespace codegen {
namespace {

std::string sanitize(const std::string &s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "graph" : out;
}

} // namespace

Lowerer::Lowerer(const Graph &g, const CodegenOptions &opts) : g_(g), opts_(opts) {}

void Lowerer::fail(const Op &op, const std::string &why) {
  if (error_.empty())
    error_ = op.loc().str() + ": error: '" + std::string(op.name()) + "' op codegen: " + why;
}

void Lowerer::addLaunch(const LaunchDesc &d, int kernelIndex) {
  if (foldScalarLaunch(d))
    return;
  GeneratedLaunch gl = renderNamed(d, kernelIndex);
  if (!loadTime_)
    rendered_[gl.kernelName] = d;
  (loadTime_ ? plan_.loadSteps : plan_.steps).push_back(std::move(gl));
}

GeneratedLaunch Lowerer::renderNamed(const LaunchDesc &d, int kernelIndex) {
  if (kernelIndex < 0)
    kernelIndex = currentKernel_;
  std::string name =
      "fp8c_" + sanitize(g_.name()) + "_k" + std::to_string(kernelIndex) + "_" + d.suffix;
  for (int i = 2; kernelNames_.count(name); ++i)
    name = "fp8c_" + sanitize(g_.name()) + "_k" + std::to_string(kernelIndex) + "_" + d.suffix +
           "_" + std::to_string(i);
  kernelNames_.insert(name);
  return render(d, name);
}

GeneratedLaunch Lowerer::render(const LaunchDesc &d, const std::string &name) const {
  GeneratedLaunch gl = renderLaunch(d, name, plan_.buffers, opts_.tuning);
  gl.nvrtcOptions = {"--fmad=false"};
  return gl;
}

std::vector<GeneratedLaunch> Lowerer::takeLaunchesSince(size_t mark) {
  std::vector<Step> &steps = loadTime_ ? plan_.loadSteps : plan_.steps;
  std::vector<GeneratedLaunch> out;
  for (size_t i = mark; i < steps.size(); ++i)
    out.push_back(std::get<GeneratedLaunch>(std::move(steps[i])));
  steps.resize(std::min(mark, steps.size()));
  return out;
}

void Lowerer::addGemm(GemmStep g) {
  g.name = "fp8c_" + sanitize(g_.name()) + "_" + g.name;
  (loadTime_ ? plan_.loadSteps : plan_.steps).push_back(std::move(g));
}

// A launch of a GEMM prologue's scalar jobs alone (the history scale of the GEMM's FP8 D: the
// delayed MLP training forward's GELU cast) joins the rows or (cast-)transpose launch right before
// it, whose block 0 computes and stores them at its start (rows.cuh, runScalars): a launch and its
// gap fewer, and the GEMM then follows a generated launch (programmatic dependent launch). Only
// when the two touch no buffer in common, so the jobs read what they would have read after that
// launch.
bool Lowerer::foldScalarLaunch(const LaunchDesc &d) {
  if (loadTime_ || d.kind != LaunchKind::Small || d.leaderLines.empty() || plan_.steps.empty())
    return false;
  auto *host = std::get_if<GeneratedLaunch>(&plan_.steps.back());
  auto rd = host ? rendered_.find(host->kernelName) : rendered_.end();
  if (rd == rendered_.end() ||
      (rd->second.kind != LaunchKind::Rows && rd->second.kind != LaunchKind::Transpose))
    return false;
  const GeneratedLaunch alone = render(d, "fp8c_scalar_jobs");
  for (int b : alone.buffers)
    if (std::find(host->buffers.begin(), host->buffers.end(), b) != host->buffers.end())
      return false;
  LaunchDesc &h = rd->second;
  // In a scope of their own: their slots and names shadow the launch's own.
  h.scalarLines.push_back("if (leader) {");
  h.scalarLines.push_back("  float slot[" + std::to_string(d.leaderSlots) + "];");
  for (const std::string &l : d.leaderLines)
    h.scalarLines.push_back("  " + l);
  h.scalarLines.push_back("}");
  h.description += ", " + d.description;
  *host = render(h, host->kernelName);
  return true;
}

// One history push as a line of a Small launch (the state launch; a GEMM's pushFallback).
std::string Lowerer::historyPushLine(int out, int in, int amax, int64_t len) const {
  std::string a = "fp8c::f32p(@" + std::to_string(amax) + "@)[0]";
  if (amaxRound(amax) != DType::F32) // cuBLASLt's AMAX_D, before rounding to D's type
    a = "fp8c::roundTo<" + dtName(amaxRound(amax)) + ">(" + a + ")";
  const std::string n = std::to_string(len);
  if (out == in)
    return "fp8c::historyPushInPlace<" + n + ">(fp8c::f32p(@" + std::to_string(out) + "@), " + a +
           ");";
  return "fp8c::historyPushTo<" + n + ">(fp8c::f32p(@" + std::to_string(out) + "@), fp8c::f32p(@" +
         std::to_string(in) + "@), " + a + ");";
}

// Delayed scaling's history pushes join the steps that reduced their amaxes where those are
// one-pass rows or (cast-)transpose launches of a tensor amax (the activation's cast before a
// GEMM, a weight's cast, a training step's cast-transposes; rows.cuh, pushHistoryWhenLast) or
// GEMM steps whose epilogue reduces a tensor amax (the MLP's hidden; the generated GEMM's last
// block pushes, gemm_sm90_epilogue.cuh's pushAmaxWhenLast, and after cuBLASLt the epilogue
// launch that reduces the amax or a one-block pushFallback launch): no state launch runs, which
// at decode sizes is a launch and a memset out of a few. Only when every push of the state
// kernel finds such a step, updates its history in place, and that step is the last touching
// the history and the amax. An amax that no other step touches becomes Scratch the push puts
// back to zero (no memset per run).
bool Lowerer::foldHistoryPushes(const Op &kernel) {
  if (loadTime_)
    return false;
  struct Fold {
    size_t step;
    int history, amax;
    int64_t len;
    bool resetAmax;
    std::string what;
  };
  std::vector<Fold> folds;
  std::set<size_t> hosts;
  for (const auto &opPtr : kernel.body()->ops()) {
    const Op &op = *opPtr;
    if (op.kind() == OpKind::Yield)
      continue;
    if (op.kind() != OpKind::HistoryPush)
      return false;
    const Value *res = canon(op.result());
    auto st = stateTarget_.find(res);
    const int out = st != stateTarget_.end() ? st->second : bufferOf(res);
    const int hist = bufferOf(op.operand(0)), amax = bufferOf(op.operand(1));
    if (out != hist)
      return false;
    std::optional<size_t> last; // the last step touching the history or the amax
    int amaxTouches = 0;
    for (size_t s = 0; s < plan_.steps.size(); ++s) {
      const std::vector<int> bs = buffersOf(plan_.steps[s]);
      const bool a = std::find(bs.begin(), bs.end(), amax) != bs.end();
      amaxTouches += a;
      if (a || std::find(bs.begin(), bs.end(), hist) != bs.end())
        last = s;
    }
    if (!last || hosts.count(*last))
      return false;
    if (const auto *gl = std::get_if<GeneratedLaunch>(&plan_.steps[*last])) {
      auto rd = rendered_.find(gl->kernelName);
      if (rd == rendered_.end())
        return false;
      const LaunchDesc &d = rd->second;
      const bool oneAmax = (d.kind == LaunchKind::Rows || d.kind == LaunchKind::Transpose) &&
                           d.amaxBuf == amax && amaxRound(amax) == DType::F32 &&
                           d.amaxGran == Granularity::Tensor && d.barrierBuf < 0 &&
                           d.pushHistory < 0 && !(d.cast && d.cast->src == CastInfo::Src::Local);
      if (!oneAmax)
        return false;
    } else {
      // A GEMM step whose epilogue reduces this tensor amax (on cuBLASLt: AMAX_D or its
      // epilogue launches).
      const auto &c = std::get<GemmStep>(plan_.steps[*last]);
      const DType round = amaxRound(amax);
      const bool oneAmax = c.amaxD == amax && !c.amaxRows && !c.blockCast && c.pushHistory < 0 &&
                           (round == DType::F32 || round == DType::BF16 || round == DType::F16);
      if (!oneAmax)
        return false;
    }
    hosts.insert(*last);
    const BufferDesc &ad = desc(amax);
    folds.push_back({*last, hist, amax, colsOf(op.operand(0)->type()),
                     amaxTouches == 1 && ad.role == BufferRole::Temp && ad.zeroInit,
                     std::string(op.name()) + " %" + op.result()->name() + " (in place)"});
  }
  if (folds.empty())
    return false;
  for (const Fold &f : folds) {
    const int counter = newScratch("push_counter", TensorType({}, DType::I32));
    if (f.resetAmax) {
      desc(f.amax).role = BufferRole::Scratch;
      desc(f.amax).zeroInit = false;
    }
    if (auto *gl = std::get_if<GeneratedLaunch>(&plan_.steps[f.step])) {
      LaunchDesc &d = rendered_.at(gl->kernelName);
      d.pushHistory = f.history;
      d.pushLen = f.len;
      d.pushCounter = counter;
      d.pushResetAmax = f.resetAmax;
      d.description += ", " + f.what;
      *gl = render(d, gl->kernelName);
    } else {
      auto &c = std::get<GemmStep>(plan_.steps[f.step]);
      c.pushHistory = f.history;
      c.pushLen = f.len;
      c.pushCounter = counter;
      c.pushRound = amaxRound(f.amax);
      c.pushResetAmax = f.resetAmax;
      c.description += ", " + f.what;
      // After cuBLASLt, the epilogue launch that reduces the amax pushes it, as a cast's own
      // launch does; its value is rounded to the op's dtype before the amax, so the amax needs
      // no rounding there. Only the launches that run whenever the generated GEMM does not:
      // epiFallback (after cuBLASLt and the unfused form), dualFallback (after cuBLASLt; the
      // dual GEMM has no unfused form).
      for (std::vector<GeneratedLaunch> *fallbacks : {&c.epiFallback, &c.dualFallback})
        for (GeneratedLaunch &l : *fallbacks) {
          if (c.backend == GemmBackend::Generated || c.pushInFallback)
            break;
          auto rd = rendered_.find(l.kernelName);
          if (rd == rendered_.end())
            continue;
          LaunchDesc &d = rd->second;
          if ((d.kind != LaunchKind::Rows && d.kind != LaunchKind::Transpose) ||
              d.amaxBuf != f.amax || d.amaxGran != Granularity::Tensor || d.barrierBuf >= 0 ||
              d.pushHistory >= 0 || (d.cast && d.cast->src == CastInfo::Src::Local))
            continue;
          d.pushHistory = f.history;
          d.pushLen = f.len;
          d.pushCounter = newScratch("push_counter", TensorType({}, DType::I32));
          d.pushResetAmax = f.resetAmax;
          d.description += ", " + f.what;
          l = render(d, l.kernelName);
          c.pushInFallback = true;
        }
      // Elsewhere (after cuBLASLt's AMAX_D or other epilogue launches; where the GEMM has no
      // rows), one block pushes, as the state launch would have, and leaves the amax at zero.
      LaunchDesc d;
      d.kind = LaunchKind::Small;
      d.suffix = "push";
      d.smallLines.push_back(historyPushLine(f.history, f.history, f.amax, f.len));
      if (f.resetAmax)
        d.smallLines.push_back("if (threadIdx.x == 0) fp8c::f32p(@" + std::to_string(f.amax) +
                               "@)[0] = 0.0f; // read above, before the push's barriers");
      d.description = f.what;
      c.pushFallback.push_back(renderNamed(d, -1));
    }
    if (desc(f.history).role == BufferRole::State)
      stateWrites_.push_back(f.history);
    stateStep_ = std::max(stateStep_, static_cast<int>(f.step));
  }
  return true;
}

void Lowerer::lowerStateKernel(const Op &kernel, int index) {
  if (foldHistoryPushes(kernel))
    return;
  LaunchDesc d;
  d.kind = LaunchKind::Small;
  d.suffix = "state";
  for (const auto &opPtr : kernel.body()->ops()) {
    const Op &op = *opPtr;
    if (op.kind() == OpKind::Yield)
      continue;
    const Value *res = canon(op.result());
    auto st = stateTarget_.find(res);
    const int out = st != stateTarget_.end() ? st->second : bufferOf(res);
    const int in = bufferOf(op.operand(0)), amax = bufferOf(op.operand(1));
    d.smallLines.push_back(historyPushLine(out, in, amax, colsOf(op.operand(0)->type())));
    d.description += (d.description.empty() ? "" : ", ") + std::string(op.name()) + " %" +
                     op.result()->name() + (out == in ? " (in place)" : "");
    if (desc(out).role == BufferRole::State)
      stateWrites_.push_back(out);
  }
  addLaunch(d, index);
  stateStep_ = static_cast<int>(plan_.steps.size()) - 1;
}

void Lowerer::lowerKernel(const Op &kernel, int index) {
  currentKernel_ = index;
  loadTime_ = kernel.numResults() > 0;
  for (const Value *r : kernel.results())
    loadTime_ &= loadTimeValues_.count(r) != 0;
  std::vector<Op *> ops;
  bool allPushes = true;
  for (const auto &op : kernel.body()->ops())
    if (op->kind() != OpKind::Yield) {
      ops.push_back(op.get());
      allPushes &= op->kind() == OpKind::HistoryPush;
    }
  Status s;
  if (kernelKindOf(kernel) == KernelKind::Gemm)
    s = lowerGemmKernel(*this, kernel, index);
  else if (allPushes && !ops.empty())
    lowerStateKernel(kernel, index);
  else
    s = buildLaunches(*this, kernel, index, ops, "");
  if (!s)
    fail(kernel, s.message());
  loadTime_ = false;
}

Expected<LaunchPlan> Lowerer::run() {
  plan_.graphName = g_.name();
  for (const auto &op : g_.body().ops()) {
    if (op->kind() == OpKind::Return)
      continue;
    if (op->kind() != OpKind::Kernel || !op->body()) {
      fail(*op, "needs a fused graph (run `fuse` first): this op is outside any fp8.kernel");
      return Error(error_);
    }
    const Block &b = *op->body();
    for (unsigned i = 0; i < b.numArguments() && i < op->numOperands(); ++i)
      alias_[b.argument(i)] = op->operand(i);
    if (const Op *y = b.terminator(); y && y->kind() == OpKind::Yield)
      for (unsigned j = 0; j < y->numOperands() && j < op->numResults(); ++j) {
        const Value *v = y->operand(j);
        if (v->isBlockArgument() || alias_.count(v))
          alias_[op->result(j)] = v;
        else
          alias_[v] = op->result(j);
      }
  }
  planDivisors();
  planLoadTime();
  planPadding();
  planInverses();
  assignGraphBuffers();
  std::vector<const Value *> inputs;
  for (unsigned i = 0; i < g_.numInputs(); ++i)
    inputs.push_back(g_.input(i));
  emitOutputCopies(inputs, 0);
  int index = 0;
  for (const auto &op : g_.body().ops()) {
    if (op->kind() != OpKind::Kernel)
      continue;
    lowerKernel(*op, index);
    if (failed())
      return Error(error_);
    const std::vector<Value *> rs = op->results();
    std::vector<const Value *> results(rs.begin(), rs.end());
    emitOutputCopies(results, index);
    ++index;
  }
  // The in-place state update must be the last step that touches the state.
  for (int sb : stateWrites_)
    for (size_t s = static_cast<size_t>(stateStep_) + 1; s < plan_.steps.size(); ++s)
      if (const auto *gl = std::get_if<GeneratedLaunch>(&plan_.steps[s]))
        for (int b : gl->buffers)
          if (b == sb)
            return Error("codegen: the state %" + desc(sb).name +
                         " is read after its update in place");
  if (opts_.sideLaunches && opts_.arch == "sm_90a")
    attachSideLaunches(plan_.steps, plan_.buffers);
  return std::move(plan_);
}

} // namespace codegen

std::string ElementwiseTuning::str() const {
  return "chunk=" + std::to_string(chunk) + ",unroll=" + std::to_string(unroll) +
         ",tileTwoPass=" + std::to_string(tileTwoPass) + ",fp8Tables=" + std::to_string(fp8Tables) +
         ",byteStagedTranspose=" + std::to_string(byteStagedTranspose) +
         ",insideTiles=" + std::to_string(insideTiles);
}

Expected<LaunchPlan> lowerGraph(const Graph &g, const CodegenOptions &opts) {
  if (opts.arch != "sm_90a" && opts.arch != "sm_90" && opts.arch != "sm_89")
    return Error("codegen: unsupported --arch '" + opts.arch + "' (sm_90a, sm_89)");
  try {
    return codegen::Lowerer(g, opts).run();
  } catch (const std::exception &e) {
    return Error(std::string("codegen: internal error: ") + e.what());
  }
}

} // namespace fp8c
