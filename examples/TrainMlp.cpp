// trainMlpRegression (TrainMlp.h).
#include "TrainMlp.h"

#include "ir/Builder.h"
#include "runtime/Training.h"

#include <cmath>
#include <random>

namespace fp8c::example {
namespace {

std::vector<float> randomVector(size_t n, float scale, std::mt19937_64 &rng) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

float geluTanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}

// teacher: t = tanh-free MLP with gelu, f32 on the host.
std::vector<float> teacher(const std::vector<float> &x, const std::vector<float> &a,
                           const std::vector<float> &bm, const MlpRegressionConfig &c) {
  const int64_t th = 32;
  std::vector<float> t(static_cast<size_t>(c.batch * c.out));
  std::vector<float> h(th);
  for (int64_t m = 0; m < c.batch; ++m) {
    for (int64_t j = 0; j < th; ++j) {
      float s = 0;
      for (int64_t k = 0; k < c.in; ++k)
        s += x[m * c.in + k] * a[j * c.in + k];
      h[j] = geluTanh(s);
    }
    for (int64_t n = 0; n < c.out; ++n) {
      float s = 0;
      for (int64_t j = 0; j < th; ++j)
        s += h[j] * bm[n * th + j];
      t[m * c.out + n] = s;
    }
  }
  return t;
}

} // namespace

Expected<std::vector<double>> trainMlpRegression(const MlpRegressionConfig &c) {
  GraphBuilder b("mlp");
  Value *x = b.input("x", TensorType({c.batch, c.in}, c.dtype));
  Value *w1 = b.input("w1", TensorType({c.hidden, c.in}, c.dtype));
  Value *b1 = b.input("b1", TensorType({c.hidden}, c.dtype));
  Value *w2 = b.input("w2", TensorType({c.out, c.hidden}, c.dtype));
  Value *b2 = b.input("b2", TensorType({c.out}, c.dtype));
  b.output(b.linear(b.gelu(b.linear(x, w1, b1, "h"), "tanh", "g"), w2, b2, "y"));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  if (!g)
    return Error(g.error());
  TrainingOptions o;
  o.recipe = c.recipe;
  Expected<std::unique_ptr<InterpretedTraining>> step = InterpretedTraining::create(**g, o);
  if (!step)
    return Error(step.error());

  std::mt19937_64 rng(c.seed);
  const int64_t th = 32;
  std::vector<float> ta = randomVector(size_t(th * c.in), 1.0f / std::sqrt(float(c.in)), rng);
  std::vector<float> tb = randomVector(size_t(c.out * th), 1.0f / std::sqrt(float(th)), rng);
  // f32 master weights.
  NamedTensors master;
  master["w1"] = HostTensor::make({c.hidden, c.in}, DType::F32);
  master["w1"].data = randomVector(size_t(c.hidden * c.in), 1.0f / std::sqrt(float(c.in)), rng);
  master["b1"] = HostTensor::make({c.hidden}, DType::F32);
  master["w2"] = HostTensor::make({c.out, c.hidden}, DType::F32);
  master["w2"].data = randomVector(size_t(c.out * c.hidden), 1.0f / std::sqrt(float(c.hidden)),
                                   rng);
  master["b2"] = HostTensor::make({c.out}, DType::F32);

  std::vector<double> losses;
  for (int s = 0; s < c.steps; ++s) {
    std::vector<float> xv = randomVector(size_t(c.batch * c.in), 1.0f, rng);
    std::vector<float> t = teacher(xv, ta, tb, c);
    NamedTensors in;
    in["x"] = HostTensor::fromValues({c.batch, c.in}, c.dtype, xv);
    for (const auto &[name, w] : master)
      in[name] = HostTensor::fromValues(w.shape, c.dtype, w.data);
    Expected<NamedTensors> y = step->get()->forward(in);
    if (!y)
      return Error(y.error());
    const HostTensor &yv = y->at("y");
    double loss = 0;
    std::vector<float> dy(yv.data.size());
    const double n = double(yv.data.size());
    for (size_t i = 0; i < dy.size(); ++i) {
      double d = double(yv.data[i]) - double(t[i]);
      loss += d * d / n;
      dy[i] = float(2.0 * d / n);
    }
    losses.push_back(loss);
    Expected<NamedTensors> grads =
        step->get()->backward({{"y", HostTensor::fromValues(yv.shape, c.dtype, dy)}});
    if (!grads)
      return Error(grads.error());
    for (auto &[name, w] : master) {
      const HostTensor &gw = grads->at(name);
      for (size_t i = 0; i < w.data.size(); ++i)
        w.data[i] -= c.lr * gw.data[i];
    }
  }
  return losses;
}

} // namespace fp8c::example
