// The training loop, the student graph and the CPU interpreter backend (MlpStepBackend.h).
#include "MlpStepBackend.h"

#include "ir/Builder.h"
#include "training/Training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace fp8c::example {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// InterpretedTraining for the forward and backward; loss, dY and SGD on the host in the
// precision the definition states (double for the loss and dY, f32 for the update).
class InterpreterBackend final : public MlpStepBackend {
public:
  InterpreterBackend(const MlpProblem &p, DType dtype) : p_(p), dtype_(dtype) {}
  std::string description() const override { return "CPU interpreter"; }
  int poolSize() const override { return static_cast<int>(p_.pool.size()); }

  Status begin(const std::string &recipe, int steps, int microBatches) override {
    if (microBatches < 1)
      return Error("begin: " + std::to_string(microBatches) + " micro-batches per step");
    const MlpSizes &s = p_.sizes;
    Expected<std::unique_ptr<Graph>> g = buildMlpGraph(s, dtype_);
    if (!g)
      return Error(g.error());
    Expected<TrainingOptions> o = trainingOptionsFor(recipe);
    if (!o)
      return Error(o.error());
    Expected<std::unique_ptr<InterpretedTraining>> step = InterpretedTraining::create(**g, *o);
    if (!step)
      return Error(step.error());
    step_ = step.take();
    micro_ = microBatches;
    staticWeights_ = castsWeightsAtLoad(step_->graphs());
    counts_ = {};
    master_.clear();
    master_["w1"] = HostTensor::fromValues({s.hidden, s.in}, DType::F32, p_.w1);
    master_["b1"] = HostTensor::fromValues({s.hidden}, DType::F32, p_.b1);
    master_["w2"] = HostTensor::fromValues({s.out, s.hidden}, DType::F32, p_.w2);
    master_["b2"] = HostTensor::fromValues({s.out}, DType::F32, p_.b2);
    losses_.clear();
    losses_.reserve(static_cast<size_t>(std::max(steps, 0)));
    return Status::ok();
  }

  // Gradient accumulation the simple way: every micro-batch runs at the weights of the step's
  // start, its gradients are summed in f32, and the update uses sum / N (with N = 1: the plain
  // step, bit for bit).
  Status step(const std::vector<int> &batches, float lr) override {
    if (!step_)
      return Error("MlpStepBackend::step before begin()");
    if (static_cast<int>(batches.size()) != micro_)
      return Error("a step of " + std::to_string(batches.size()) + " micro-batches, begin() said " +
                   std::to_string(micro_));
    for (int batch : batches)
      if (batch < 0 || batch >= poolSize())
        return Error("batch " + std::to_string(batch) + " is not in the pool");
    const MlpSizes &s = p_.sizes;
    NamedTensors in;
    for (const auto &[name, w] : master_)
      in[name] = HostTensor::fromValues(w.shape, dtype_, w.data);
    NamedTensors sum; // f32 gradient sums by input name
    double lossSum = 0;
    for (size_t m = 0; m < batches.size(); ++m) {
      const MlpBatch &data = p_.pool[static_cast<size_t>(batches[m])];
      in["x"] = HostTensor::fromValues({s.batch, s.in}, dtype_, data.x);
      const WeightCasts casts = m > 0 && staticWeights_ ? WeightCasts::Reuse : WeightCasts::Cast;
      Expected<NamedTensors> y = step_->forward(in, casts);
      if (!y)
        return Error("micro-batch " + std::to_string(m) + ": " + y.error());
      ++(casts == WeightCasts::Reuse ? counts_.reuse : counts_.cast);
      const HostTensor &yv = y->at("y");
      double loss = 0;
      std::vector<float> dy(yv.data.size());
      const double n = double(yv.data.size());
      for (size_t i = 0; i < dy.size(); ++i) {
        const double d = double(yv.data[i]) - double(data.t[i]);
        loss += d * d / n;
        dy[i] = float(2.0 * d / n);
      }
      lossSum += loss;
      Expected<NamedTensors> grads =
          step_->backward({{"y", HostTensor::fromValues(yv.shape, dtype_, dy)}});
      if (!grads)
        return Error(grads.error());
      for (const auto &[name, w] : master_) {
        const HostTensor &gw = grads->at(name);
        if (m == 0) {
          sum[name] = gw;
          continue;
        }
        std::vector<float> &acc = sum.at(name).data;
        for (size_t i = 0; i < acc.size(); ++i)
          acc[i] += gw.data[i];
      }
    }
    losses_.push_back(lossSum / double(batches.size()));
    const float n = static_cast<float>(batches.size());
    for (auto &[name, w] : master_) {
      const std::vector<float> &g = sum.at(name).data;
      for (size_t i = 0; i < w.data.size(); ++i)
        w.data[i] -= lr * (g[i] / n);
    }
    return Status::ok();
  }

  Expected<std::vector<double>> losses() override { return losses_; }
  WeightCastCounts weightCastCounts() const override { return counts_; }
  Expected<std::map<std::string, std::vector<float>>> masterWeights() override {
    std::map<std::string, std::vector<float>> out;
    for (const auto &[name, w] : master_)
      out[name] = w.data;
    return out;
  }

private:
  const MlpProblem &p_;
  DType dtype_;
  std::unique_ptr<InterpretedTraining> step_;
  int micro_ = 1;
  bool staticWeights_ = false;
  WeightCastCounts counts_;
  NamedTensors master_; ///< f32 master weights by input name
  std::vector<double> losses_;
};

} // namespace

Expected<std::unique_ptr<Graph>> buildMlpGraph(const MlpSizes &s, DType dtype) {
  GraphBuilder b("mlp");
  Value *x = b.input("x", TensorType({s.batch, s.in}, dtype));
  Value *w1 = b.input("w1", TensorType({s.hidden, s.in}, dtype));
  Value *b1 = b.input("b1", TensorType({s.hidden}, dtype));
  Value *w2 = b.input("w2", TensorType({s.out, s.hidden}, dtype));
  Value *b2 = b.input("b2", TensorType({s.out}, dtype));
  b.output(b.linear(b.gelu(b.linear(x, w1, b1, "h"), "tanh", "g"), w2, b2, "y"));
  return b.finish();
}

Expected<LossCurve> runLossCurve(MlpStepBackend &backend, const std::string &recipe, int steps,
                                 float lr, int accumulate) {
  if (backend.poolSize() < 1)
    return Error("the problem has no batches");
  if (accumulate < 1)
    return Error("accumulate must be >= 1, not " + std::to_string(accumulate));
  LossCurve c;
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = backend.begin(recipe, steps, accumulate); !st)
    return Error(st.message());
  c.beginSeconds = secondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  std::vector<int> batches(static_cast<size_t>(accumulate));
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < accumulate; ++i)
      batches[size_t(i)] =
          int((int64_t(s) * accumulate + i) % backend.poolSize()); // (int64: no overflow)
    if (Status st = backend.step(batches, lr); !st)
      return Error("step " + std::to_string(s) + ": " + st.message());
  }
  Expected<std::vector<double>> l = backend.losses();
  if (!l)
    return Error(l.error());
  c.stepSeconds = secondsSince(t0);
  if (l->size() != static_cast<size_t>(steps))
    return Error("the backend returned " + std::to_string(l->size()) + " losses for " +
                 std::to_string(steps) + " steps");
  c.loss = l.take();
  return c;
}

std::unique_ptr<MlpStepBackend> makeInterpreterBackend(const MlpProblem &problem, DType dtype) {
  return std::make_unique<InterpreterBackend>(problem, dtype);
}

double maxRelativeGap(const std::vector<double> &a, const std::vector<double> &ref, size_t tail) {
  if (a.size() != ref.size())
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = a.size() - std::min(tail, a.size()); i < a.size(); ++i) {
    const double gap = std::fabs(a[i] - ref[i]) / ref[i];
    if (std::isnan(gap))
      return gap;
    worst = std::max(worst, gap);
  }
  return worst;
}

} // namespace fp8c::example
