// The training loop, the student graph and the CPU interpreter backend (MlpStepBackend.h).
#include "MlpStepBackend.h"

#include "ir/Builder.h"
#include "runtime/Training.h"

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

  Status begin(const std::string &recipe, int steps) override {
    const MlpSizes &s = p_.sizes;
    Expected<std::unique_ptr<Graph>> g = buildMlpGraph(s, dtype_);
    if (!g)
      return Error(g.error());
    Expected<std::unique_ptr<InterpretedTraining>> step =
        InterpretedTraining::create(**g, trainingOptionsFor(recipe));
    if (!step)
      return Error(step.error());
    step_ = step.take();
    master_.clear();
    master_["w1"] = HostTensor::fromValues({s.hidden, s.in}, DType::F32, p_.w1);
    master_["b1"] = HostTensor::fromValues({s.hidden}, DType::F32, p_.b1);
    master_["w2"] = HostTensor::fromValues({s.out, s.hidden}, DType::F32, p_.w2);
    master_["b2"] = HostTensor::fromValues({s.out}, DType::F32, p_.b2);
    losses_.clear();
    losses_.reserve(static_cast<size_t>(std::max(steps, 0)));
    return Status::ok();
  }

  Status step(int batch, float lr) override {
    if (!step_)
      return Error("MlpStepBackend::step before begin()");
    if (batch < 0 || batch >= poolSize())
      return Error("batch " + std::to_string(batch) + " is not in the pool");
    const MlpSizes &s = p_.sizes;
    const MlpBatch &data = p_.pool[static_cast<size_t>(batch)];
    NamedTensors in;
    in["x"] = HostTensor::fromValues({s.batch, s.in}, dtype_, data.x);
    for (const auto &[name, w] : master_)
      in[name] = HostTensor::fromValues(w.shape, dtype_, w.data);
    Expected<NamedTensors> y = step_->forward(in);
    if (!y)
      return Error(y.error());
    const HostTensor &yv = y->at("y");
    double loss = 0;
    std::vector<float> dy(yv.data.size());
    const double n = double(yv.data.size());
    for (size_t i = 0; i < dy.size(); ++i) {
      const double d = double(yv.data[i]) - double(data.t[i]);
      loss += d * d / n;
      dy[i] = float(2.0 * d / n);
    }
    losses_.push_back(loss);
    Expected<NamedTensors> grads =
        step_->backward({{"y", HostTensor::fromValues(yv.shape, dtype_, dy)}});
    if (!grads)
      return Error(grads.error());
    for (auto &[name, w] : master_) {
      const HostTensor &gw = grads->at(name);
      for (size_t i = 0; i < w.data.size(); ++i)
        w.data[i] -= lr * gw.data[i];
    }
    return Status::ok();
  }

  Expected<std::vector<double>> losses() override { return losses_; }

private:
  const MlpProblem &p_;
  DType dtype_;
  std::unique_ptr<InterpretedTraining> step_;
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
                                 float lr) {
  if (backend.poolSize() < 1)
    return Error("the problem has no batches");
  LossCurve c;
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = backend.begin(recipe, steps); !st)
    return Error(st.message());
  c.beginSeconds = secondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s)
    if (Status st = backend.step(s % backend.poolSize(), lr); !st)
      return Error("step " + std::to_string(s) + ": " + st.message());
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
