// The pieces of train_mlp's loop on the CPU (examples/MlpStepBackend.h, MlpProblem.h,
// MlpUpdateGraphs.h):
//   - the problem's data is seeded and deterministic, and its targets are the teacher's;
//   - the interpreter backend, driven by runLossCurve, gives exactly the curve of a loop written
//     out here (InterpretedTraining + host SGD, as train_mlp did before the step backends),
//     also when one backend runs several recipes in turn and the pool is used cyclically;
//   - the loss and sgd graphs the GPU backend runs, on the interpreter, against host math on
//     random never-zero inputs;
//   - the GPU backend's step (forward, loss graph, backward, sgd graph over the flat parameter
//     layout) replayed on the interpreter gives the interpreter backend's curve;
//   - every launch of the loss and sgd graphs, at a small and at the real size, compiles to
//     CUBIN for sm_90a with NVRTC.
#include "MlpStepBackend.h"
#include "MlpUpdateGraphs.h"

#include "ir/Builder.h"
#include "driver/Compile.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "training/Training.h"
#include "training/TrainingGpu.h"
#include "runtime/jit/Nvrtc.h"
#include "unit/codegen/NvrtcTestSupport.h"
#include "unit/support/RecipeTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace fp8c {
namespace {

using namespace example;

const MlpSizes kSmall{32, 64, 64, 16};

// The loop written out: what train_mlp did before the step backends.
std::vector<double> referenceCurve(const MlpProblem &p, DType dt, const std::string &recipe,
                                   int steps, float lr) {
  const MlpSizes &c = p.sizes;
  GraphBuilder b("mlp");
  Value *x = b.input("x", TensorType({c.batch, c.in}, dt));
  Value *w1 = b.input("w1", TensorType({c.hidden, c.in}, dt));
  Value *b1 = b.input("b1", TensorType({c.hidden}, dt));
  Value *w2 = b.input("w2", TensorType({c.out, c.hidden}, dt));
  Value *b2 = b.input("b2", TensorType({c.out}, dt));
  b.output(b.linear(b.gelu(b.linear(x, w1, b1), "tanh"), w2, b2, "y"));
  auto g = b.finish();
  EXPECT_TRUE(g.hasValue());
  TrainingOptions o;
  o.recipe = testRecipe(recipe);
  auto step = InterpretedTraining::create(**g, o);
  EXPECT_TRUE(step.hasValue()) << step.error();
  NamedTensors master;
  master["w1"] = HostTensor::fromValues({c.hidden, c.in}, DType::F32, p.w1);
  master["b1"] = HostTensor::fromValues({c.hidden}, DType::F32, p.b1);
  master["w2"] = HostTensor::fromValues({c.out, c.hidden}, DType::F32, p.w2);
  master["b2"] = HostTensor::fromValues({c.out}, DType::F32, p.b2);
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    const MlpBatch &data = p.pool[size_t(s) % p.pool.size()];
    NamedTensors in;
    in["x"] = HostTensor::fromValues({c.batch, c.in}, dt, data.x);
    for (const auto &[name, w] : master)
      in[name] = HostTensor::fromValues(w.shape, dt, w.data);
    auto y = (*step)->forward(in);
    EXPECT_TRUE(y.hasValue());
    const HostTensor &yv = y->at("y");
    double loss = 0;
    std::vector<float> dy(yv.data.size());
    for (size_t i = 0; i < dy.size(); ++i) {
      double d = double(yv.data[i]) - double(data.t[i]);
      loss += d * d / double(dy.size());
      dy[i] = float(2.0 * d / double(dy.size()));
    }
    losses.push_back(loss);
    auto grads = (*step)->backward({{"y", HostTensor::fromValues(yv.shape, dt, dy)}});
    EXPECT_TRUE(grads.hasValue());
    for (auto &[name, w] : master)
      for (size_t i = 0; i < w.data.size(); ++i)
        w.data[i] -= lr * grads->at(name).data[i];
  }
  return losses;
}

TEST(TrainMlpProblem, SeededDeterministicAndTheTeachersTargets) {
  MlpProblem a = makeMlpProblem(kSmall, 3, 7), b = makeMlpProblem(kSmall, 3, 7);
  MlpProblem c = makeMlpProblem(kSmall, 3, 8);
  ASSERT_EQ(a.pool.size(), 3u);
  EXPECT_EQ(a.w1, b.w1);
  EXPECT_EQ(a.w2, b.w2);
  EXPECT_EQ(a.pool[2].x, b.pool[2].x);
  EXPECT_EQ(a.pool[2].t, b.pool[2].t);
  EXPECT_NE(a.w1, c.w1);
  EXPECT_NE(a.pool[0].x, c.pool[0].x);
  EXPECT_NE(a.pool[0].x, a.pool[1].x);
  EXPECT_EQ(a.w1.size(), size_t(kSmall.hidden * kSmall.in));
  EXPECT_EQ(a.b2, std::vector<float>(size_t(kSmall.out), 0.0f));
  // Statistics: x ~ N(0, 1), w1 ~ N(0, 1/in).
  auto rms = [](const std::vector<float> &v) {
    double s = 0;
    for (float x : v)
      s += double(x) * x;
    return std::sqrt(s / double(v.size()));
  };
  EXPECT_NEAR(rms(a.pool[0].x), 1.0, 0.05);
  EXPECT_NEAR(rms(a.w1) * std::sqrt(double(kSmall.in)), 1.0, 0.05);
  // The targets are the teacher's, row by row as in batches (threading changes nothing), and
  // the teacher's f32 math is close to double math.
  EXPECT_EQ(a.teacherA.size(), size_t(kTeacherHidden * kSmall.in));
  EXPECT_NEAR(rms(a.teacherA) * std::sqrt(double(kSmall.in)), 1.0, 0.1);
  const MlpSizes one{1, kSmall.in, kSmall.hidden, kSmall.out};
  for (const MlpBatch &batch : a.pool)
    EXPECT_EQ(batch.t, teacherTargets(batch.x, a.teacherA, a.teacherB, kSmall));
  const std::vector<float> &x = a.pool[1].x, &t = a.pool[1].t;
  for (int64_t m = 0; m < kSmall.batch; m += 7) {
    std::vector<float> xm(x.begin() + m * kSmall.in, x.begin() + (m + 1) * kSmall.in);
    std::vector<float> tm = teacherTargets(xm, a.teacherA, a.teacherB, one);
    for (int64_t n = 0; n < kSmall.out; ++n) {
      double want = 0;
      for (int64_t j = 0; j < kTeacherHidden; ++j) {
        double h = 0;
        for (int64_t k = 0; k < kSmall.in; ++k)
          h += double(xm[size_t(k)]) * a.teacherA[size_t(j * kSmall.in + k)];
        double gh = 0.5 * h * (1 + std::tanh(0.7978845608 * (h + 0.044715 * h * h * h)));
        want += gh * a.teacherB[size_t(n * kTeacherHidden + j)];
      }
      EXPECT_EQ(tm[size_t(n)], t[size_t(m * kSmall.out + n)]);
      EXPECT_NEAR(tm[size_t(n)], want, 1e-4 * (1 + std::fabs(want)));
    }
  }
}

TEST(TrainMlpBackend, InterpreterBackendIsTheWrittenOutLoop) {
  MlpProblem p = makeMlpProblem(kSmall, 3, 5); // 3 batches, used in turn over 12 steps
  std::unique_ptr<MlpStepBackend> bf16 = makeInterpreterBackend(p, DType::BF16);
  EXPECT_EQ(bf16->poolSize(), 3);
  // One backend, several recipes in turn: begin() restarts from the initial weights and a
  // fresh state.
  for (const char *recipe : {"delayed", "none", "tensorwise", "delayed"}) {
    SCOPED_TRACE(recipe);
    Expected<LossCurve> got = runLossCurve(*bf16, recipe, 12, 0.1f);
    ASSERT_TRUE(got.hasValue()) << got.error();
    std::vector<double> want = referenceCurve(p, DType::BF16, recipe, 12, 0.1f);
    EXPECT_EQ(got->loss, want);
  }
  std::unique_ptr<MlpStepBackend> f32 = makeInterpreterBackend(p, DType::F32);
  Expected<LossCurve> got = runLossCurve(*f32, "none", 12, 0.1f);
  ASSERT_TRUE(got.hasValue()) << got.error();
  EXPECT_EQ(got->loss, referenceCurve(p, DType::F32, "none", 12, 0.1f));
  EXPECT_LT(got->loss.back(), got->loss.front());
}

TEST(TrainMlpBackend, MaxRelativeGap) {
  EXPECT_NEAR(maxRelativeGap({1.0, 2.0, 4.4}, {2.0, 2.0, 4.0}, 2), 0.1, 1e-12);
  EXPECT_NEAR(maxRelativeGap({1.0, 2.0, 4.4}, {2.0, 2.0, 4.0}, 10), 0.5, 1e-12);
  EXPECT_EQ(maxRelativeGap({NAN, 1.0}, {1.0, 1.0}, 1), 0.0); // outside the window
  EXPECT_TRUE(std::isnan(maxRelativeGap({NAN, 1.0}, {1.0, 1.0}, 2)));
  EXPECT_TRUE(std::isnan(maxRelativeGap({1.0, NAN}, {1.0, 1.0}, 2)));
  EXPECT_TRUE(std::isinf(maxRelativeGap({1.0}, {1.0, 1.0}, 2)));
}

HostTensor nonZero(std::vector<int64_t> shape, DType dt, uint64_t seed, double stddev) {
  HostTensor h = randomTensor(shape, dt, seed, stddev);
  for (float &v : h.data)
    if (v == 0.0f)
      v = roundToDType(float(stddev), dt);
  return h;
}

TEST(TrainMlpUpdateGraphs, LossGraphIsTheHostMath) {
  const int64_t batch = 48, out = 40;
  auto g = buildLossGraph(batch, out, DType::BF16);
  ASSERT_TRUE(g.hasValue()) << g.error();
  HostTensor y = nonZero({batch, out}, DType::BF16, 1, 0.7);
  HostTensor t = nonZero({batch, out}, DType::F32, 2, 0.7);
  HostTensor nt = t;
  for (float &v : nt.data)
    v = -v;
  const double n = double(batch * out);
  HostTensor c = HostTensor::fromValues({}, DType::F32, {float(2.0 / n)});
  auto r = interpret(**g, std::vector<HostTensor>{y, nt, c});
  ASSERT_TRUE(r.hasValue()) << r.error();
  ASSERT_EQ(r->size(), 2u);
  const HostTensor &dy = (*r)[0], &cs = (*r)[1];
  ASSERT_EQ(dy.dtype, DType::BF16);
  ASSERT_EQ(cs.shape, std::vector<int64_t>{out});
  double loss = 0, csSum = 0;
  int flips = 0;
  for (int64_t i = 0; i < batch * out; ++i) {
    const double d = double(y.data[size_t(i)]) - double(t.data[size_t(i)]);
    loss += d * d / n;
    const float want = roundToDType(float(2.0 * d / n), DType::BF16);
    const float got = dy.data[size_t(i)];
    // d and d * c are rounded to f32 first, which can move a bf16 tie by one bf16 ulp.
    if (got != want) {
      ++flips;
      EXPECT_LE(std::fabs(got - want), std::fabs(want) * 0x1p-7f) << i;
    }
  }
  EXPECT_LE(flips, 2);
  for (float v : cs.data)
    csSum += v;
  for (int64_t j = 0; j < out; ++j) {
    double col = 0;
    for (int64_t m = 0; m < batch; ++m) {
      const double d = double(y.at(m, j)) - double(t.at(m, j));
      col += d * d;
    }
    EXPECT_NEAR(cs.data[size_t(j)], col, 1e-5 * col) << j;
  }
  EXPECT_NEAR(csSum / n, loss, 1e-6 * loss);
}

TEST(TrainMlpUpdateGraphs, SgdGraphIsTheHostMath) {
  const int64_t rows = 6;
  auto g = buildSgdGraph(rows, DType::BF16);
  ASSERT_TRUE(g.hasValue()) << g.error();
  HostTensor w = nonZero({rows, kSgdCols}, DType::F32, 3, 0.05);
  HostTensor gr = nonZero({rows, kSgdCols}, DType::BF16, 4, 0.01);
  const float lr = 0.37f;
  auto r =
      interpret(**g, std::vector<HostTensor>{w, gr, HostTensor::fromValues({}, DType::F32, {-lr})});
  ASSERT_TRUE(r.hasValue()) << r.error();
  ASSERT_EQ(r->size(), 2u);
  for (size_t i = 0; i < w.data.size(); ++i) {
    float want = w.data[i];
    want -= lr * gr.data[i]; // what the interpreter backend does
    ASSERT_EQ((*r)[0].data[i], want) << i;
    ASSERT_EQ((*r)[1].data[i], bf16ToFloat(floatToBf16(want))) << i;
  }
}

TEST(TrainMlpUpdateGraphs, ParamLayout) {
  const MlpSizes s{8, 300, 200, 10};
  ParamLayout l = mlpParamLayout(s);
  ASSERT_EQ(l.slots.size(), 4u);
  int64_t end = 0;
  for (const ParamSlot &p : l.slots) {
    EXPECT_EQ(p.offset % kSgdCols, 0) << p.name;
    EXPECT_GE(p.offset, end) << p.name;
    end = p.offset + p.elements();
  }
  EXPECT_EQ(l.total % kSgdCols, 0);
  EXPECT_GE(l.total, end);
  EXPECT_LT(l.total, end + kSgdCols);
  EXPECT_EQ(l.find("w2")->shape, (std::vector<int64_t>{10, 200}));
  EXPECT_EQ(l.find("nope"), nullptr);
  MlpProblem p = makeMlpProblem(s, 1, 3);
  for (float &v : p.b1)
    v = 1.5f; // non-zero, to see where it lands
  std::vector<float> flat = packInitialParams(p, l);
  ASSERT_EQ(flat.size(), size_t(l.total));
  const ParamSlot &b1 = *l.find("b1"), &w2 = *l.find("w2");
  EXPECT_EQ(flat[size_t(b1.offset)], 1.5f);
  EXPECT_EQ(flat[size_t(b1.offset + b1.elements() - 1)], 1.5f);
  EXPECT_EQ(flat[size_t(b1.offset + b1.elements())], 0.0f); // padding
  EXPECT_EQ(flat[size_t(w2.offset + 5)], p.w2[5]);
}

// The GPU backend's step, replayed on the interpreter: weights as bf16 slices of the flat
// vector, the loss graph for dy and the loss, the sgd graph over the flat f32 master.
std::vector<double> devicePipelineOnInterpreter(const MlpProblem &p, const std::string &recipe,
                                                int steps, float lr) {
  const MlpSizes &s = p.sizes;
  const DType dt = DType::BF16;
  ParamLayout layout = mlpParamLayout(s);
  auto mlp = buildMlpGraph(s, dt);
  auto lossG = buildLossGraph(s.batch, s.out, dt);
  auto sgdG = buildSgdGraph(layout.rows(), dt);
  EXPECT_TRUE(mlp && lossG && sgdG);
  TrainingOptions o;
  o.recipe = testRecipe(recipe);
  auto step = InterpretedTraining::create(**mlp, o);
  EXPECT_TRUE(step.hasValue());
  const std::vector<int64_t> flatShape = {layout.rows(), kSgdCols};
  HostTensor master = HostTensor::fromValues(flatShape, DType::F32, packInitialParams(p, layout));
  HostTensor wq = HostTensor::fromValues(flatShape, dt, master.data);
  const double n = double(s.batch * s.out);
  const HostTensor c = HostTensor::fromValues({}, DType::F32, {float(2.0 / n)});
  const HostTensor nlr = HostTensor::fromValues({}, DType::F32, {-lr});
  std::vector<double> losses;
  for (int k = 0; k < steps; ++k) {
    const MlpBatch &data = p.pool[size_t(k) % p.pool.size()];
    NamedTensors in;
    in["x"] = HostTensor::fromValues({s.batch, s.in}, dt, data.x);
    for (const ParamSlot &ps : layout.slots) {
      HostTensor t = HostTensor::make(ps.shape, dt);
      std::copy_n(wq.data.begin() + ps.offset, ps.elements(), t.data.begin());
      in[ps.name] = t;
    }
    auto y = (*step)->forward(in);
    EXPECT_TRUE(y.hasValue());
    HostTensor nt = HostTensor::fromValues({s.batch, s.out}, DType::F32, data.t);
    for (float &v : nt.data)
      v = -v;
    auto lo = interpret(**lossG, std::vector<HostTensor>{y->at("y"), nt, c});
    EXPECT_TRUE(lo.hasValue());
    double sum = 0;
    for (float v : (*lo)[1].data)
      sum += v;
    losses.push_back(sum / n);
    auto grads = (*step)->backward({{"y", (*lo)[0]}});
    EXPECT_TRUE(grads.hasValue());
    HostTensor flatGrad = HostTensor::make(flatShape, dt);
    for (const ParamSlot &ps : layout.slots)
      std::copy(grads->at(ps.name).data.begin(), grads->at(ps.name).data.end(),
                flatGrad.data.begin() + ps.offset);
    auto upd = interpret(**sgdG, std::vector<HostTensor>{master, flatGrad, nlr});
    EXPECT_TRUE(upd.hasValue());
    master = (*upd)[0];
    wq = (*upd)[1];
  }
  return losses;
}

// The difference from the interpreter backend: dy rounded from f32 instead of double (a bf16
// tie moves by one ulp now and then) and the loss summed in f32 column sums; measured per-step
// relative difference 5e-8 over 40 steps (none and tensorwise). Bound 1e-5.
TEST(TrainMlpBackend, GpuStepOnTheInterpreterGivesTheSameCurve) {
  MlpProblem p = makeMlpProblem(kSmall, 4, 9);
  for (const char *recipe : {"none", "tensorwise"}) {
    SCOPED_TRACE(recipe);
    std::unique_ptr<MlpStepBackend> b = makeInterpreterBackend(p, DType::BF16);
    Expected<LossCurve> want = runLossCurve(*b, recipe, 40, 0.1f);
    ASSERT_TRUE(want.hasValue()) << want.error();
    std::vector<double> got = devicePipelineOnInterpreter(p, recipe, 40, 0.1f);
    ASSERT_EQ(got.size(), want->loss.size());
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::fabs(got[i] - want->loss[i]) / want->loss[i]);
    std::printf("[ train    ] %s: device pipeline on the interpreter vs the interpreter backend: "
                "max relative difference %.3g\n",
                recipe, worst);
    EXPECT_LT(worst, 1e-5);
  }
}

// What a caller binds in a plan: Input / Param / Output buffers by name, with their types;
// each with a compact row pitch (Executable::run refuses padded caller buffers).
std::map<std::string, TensorType> callerBuffers(const LaunchPlan &plan, BufferRole role) {
  std::map<std::string, TensorType> out;
  for (const BufferDesc &d : plan.buffers) {
    const bool input = d.role == BufferRole::Input || d.role == BufferRole::Param;
    if (role == BufferRole::Input ? !input : d.role != role)
      continue;
    EXPECT_TRUE(d.ld == 0 || d.type.rank() != 2 || d.ld == d.type.dim(1)) << d.name;
    out.emplace(d.name, d.type);
  }
  return out;
}

std::map<std::string, TensorType>
typesOf(std::initializer_list<std::tuple<const char *, std::vector<int64_t>, DType>> l) {
  std::map<std::string, TensorType> out;
  for (const auto &[name, shape, dt] : l)
    out.emplace(name, TensorType(shape, dt));
  return out;
}

// The names, shapes and dtypes the GPU backend binds, against the plans compile() and
// compileTraining() make (no GPU needed: compileToPlan), at this file's small size, the GPU
// test's (TrainMlpGpuTest.cpp) and the real size:
// the loss and sgd graphs, and both halves of the training step of every recipe, named as
// compileTraining names them (forward inputs by input name, the forward's non-saved results
// and the backward's results by resultName, the backward's gradient inputs by fp8.grad key).
TEST(TrainMlpGpuPlan, BindingsOfTheGpuBackendMatchThePlans) {
  const MlpSizes gpuTest{256, 128, 256, 128}, real{8192, 4096, 14336, 4096};
  const DType bf = DType::BF16, f32 = DType::F32;
  for (const MlpSizes &s : {kSmall, gpuTest, real}) {
    SCOPED_TRACE("batch " + std::to_string(s.batch));
    ParamLayout layout = mlpParamLayout(s);
    CompileOptions co;
    co.recipe = std::nullopt;
    co.arch = "sm_90a";
    auto lg = buildLossGraph(s.batch, s.out, bf);
    auto sg = buildSgdGraph(layout.rows(), bf);
    ASSERT_TRUE(lg && sg);
    Expected<CompiledGraph> lp = compileToPlan(**lg, co), sp = compileToPlan(**sg, co);
    ASSERT_TRUE(lp.hasValue()) << lp.error();
    ASSERT_TRUE(sp.hasValue()) << sp.error();
    EXPECT_EQ(
        callerBuffers(lp->plan, BufferRole::Input),
        typesOf({{"y", {s.batch, s.out}, bf}, {"nt", {s.batch, s.out}, f32}, {"c", {}, f32}}));
    EXPECT_EQ(callerBuffers(lp->plan, BufferRole::Output),
              typesOf({{"dy", {s.batch, s.out}, bf}, {"cs", {s.out}, f32}}));
    const std::vector<int64_t> flat = {layout.rows(), kSgdCols};
    EXPECT_EQ(callerBuffers(sp->plan, BufferRole::Input),
              typesOf({{"w", flat, f32}, {"g", flat, bf}, {"nlr", {}, f32}}));
    EXPECT_EQ(callerBuffers(sp->plan, BufferRole::Output),
              typesOf({{"wn", flat, f32}, {"wq", flat, bf}}));

    auto mlp = buildMlpGraph(s, bf);
    ASSERT_TRUE(mlp.hasValue());
    std::map<std::string, TensorType> params;
    for (const ParamSlot &p : layout.slots)
      params.emplace(p.name, TensorType(p.shape, bf));
    std::map<std::string, TensorType> inputs = params, grads = params;
    inputs.emplace("x", TensorType({s.batch, s.in}, bf));
    grads.emplace("x", TensorType({s.batch, s.in}, bf));
    for (const char *recipe : {"none", "tensorwise", "delayed", "rowwise", "blockwise"}) {
      SCOPED_TRACE(recipe);
      TrainingOptions o;
      o.recipe = testRecipe(recipe);
      o.fuse = true;
      DiagnosticEngine diag;
      Expected<TrainingGraphs> t = buildTrainingGraphs(**mlp, pipelineOptionsFor(o), diag);
      ASSERT_TRUE(t.hasValue()) << (t ? "" : t.error()) << diag.str();
      CompileOptions tco = trainingCompileOptions(0);
      tco.arch = "sm_90a";
      Expected<CompiledGraph> f = compileToPlan(*t->forward, tco);
      ASSERT_TRUE(f.hasValue()) << f.error();
      Expected<CompiledGraph> b = compileToPlan(*t->backward, tco);
      ASSERT_TRUE(b.hasValue()) << b.error();
      std::map<std::string, TensorType> fwdIn, fwdOut, gradIn, gradOut;
      for (const BufferDesc &d : f->plan.buffers)
        if (d.role == BufferRole::Input || d.role == BufferRole::Param)
          fwdIn.emplace(t->forward->input(unsigned(d.graphIndex))->name(), d.type);
        else if (d.role == BufferRole::Output &&
                 !t->forward->resultAttrs()[unsigned(d.outputIndex)].has("fp8.saved"))
          fwdOut.emplace(resultName(*t->forward, unsigned(d.outputIndex)), d.type);
      for (const BufferDesc &d : b->plan.buffers)
        if (d.role == BufferRole::Input || d.role == BufferRole::Param) {
          const AttrDict &a = t->backward->inputAttrs(unsigned(d.graphIndex));
          if (const Attribute *g = a.get("fp8.grad"))
            gradIn.emplace(g->asString(), d.type);
        } else if (d.role == BufferRole::Output) {
          gradOut.emplace(resultName(*t->backward, unsigned(d.outputIndex)), d.type);
        }
      EXPECT_EQ(fwdIn, inputs);
      EXPECT_EQ(fwdOut, typesOf({{"y", {s.batch, s.out}, bf}}));
      EXPECT_EQ(gradIn, typesOf({{"y", {s.batch, s.out}, bf}}));
      // The backward returns the parameters' gradients (and x's, which the backend binds to a
      // scratch buffer when present).
      std::map<std::string, TensorType> gotParams = gradOut;
      gotParams.erase("x");
      EXPECT_EQ(gotParams, params);
      if (gradOut.count("x"))
        EXPECT_EQ(gradOut.at("x"), grads.at("x"));
    }
  }
}

TEST(TrainMlpUpdateGraphs, EveryLaunchCompilesForSm90a) {
  const MlpSizes real{8192, 4096, 14336, 4096};
  for (const MlpSizes &s : {kSmall, real}) {
    auto lg = buildLossGraph(s.batch, s.out, DType::BF16);
    auto sg = buildSgdGraph(mlpParamLayout(s).rows(), DType::BF16);
    ASSERT_TRUE(lg && sg);
    for (const Graph *g : {lg->get(), sg->get()}) {
      SCOPED_TRACE(g->name() + " batch " + std::to_string(s.batch));
      CompileOptions co;
      co.recipe = std::nullopt;
      co.arch = "sm_90a";
      Expected<CompiledGraph> cg = compileToPlan(*g, co);
      ASSERT_TRUE(cg.hasValue()) << cg.error();
      int launches = 0;
      for (const auto *steps : {&cg->plan.loadSteps, &cg->plan.steps})
        for (const GeneratedLaunch *l : launchesOf(*steps)) {
          Expected<NvrtcResult> r = compileLaunchForSm90a(*l);
          ASSERT_TRUE(r.hasValue()) << l->kernelName << ": " << r.error();
          EXPECT_FALSE(r->hasSpills()) << l->kernelName << ":\n" << r->log;
          ++launches;
        }
      EXPECT_GE(launches, 2);
    }
  }
}

} // namespace
} // namespace fp8c
