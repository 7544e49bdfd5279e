// WeightCasts (training/Training.h): a training step built with weights=static quantizes its
// weights in steps of their own; a forward casts them (the default, so an in-place weight update
// is seen) or reuses the copies of the last Cast forward (gradient accumulation).
//
// On the CPU interpreter (the reference): a Reuse forward computes exactly what a Cast forward
// with the last cast weights computes, outputs, histories and the backward's gradients bit for
// bit, and Reuse is refused without weights=static, before any cast, or where the step reads a
// weight besides its cast (a weight added to the activation).
// On the GPU (skipped with a message where no CUDA device answers): weights overwritten in place
// are cast again by a Cast forward (the executable's load steps rerun although the pointers are
// the same) and are not by a Reuse forward; both are checked against the interpreter with
// TrainingGpuTest.cpp's bounds, and the GPU refuses Reuse in the same cases, and for a weight
// bound to another buffer than the one that was cast.
#include "unit/training/TrainingTestSupport.h"

#include "runtime/DeviceTensorIO.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"
#include "training/Training.h"
#include "unit/support/RecipeTestSupport.h"

using namespace fp8c;
using namespace fp8c::gputest;
using namespace fp8c::trainingtest;

namespace {

constexpr int64_t kTokens = 128;

std::unique_ptr<Module> smallMlp() {
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(kSmallMlp, "mlp_small", diag);
  EXPECT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  return mod;
}

TrainingOptions delayedStaticWeights() {
  TrainingOptions o;
  o.recipe = testRecipe("delayed", "weights=static");
  o.tokens = kTokens;
  o.fuse = true;
  return o;
}

// The forward's inputs: activations from `xSeed`, weights and biases from `wSeed` (never zero).
NamedTensors inputsOf(const Graph &fg, uint64_t xSeed, uint64_t wSeed) {
  std::vector<HostTensor> x = randomInputs(fg, xSeed, kTokens);
  std::vector<HostTensor> w = randomInputs(fg, wSeed, kTokens);
  NamedTensors in;
  for (unsigned i = 0; i < fg.numInputs(); ++i) {
    const std::string &name = fg.input(i)->name();
    if (fg.inputAttrs(i).has("fp8.state"))
      continue;
    HostTensor h = (name == "x" ? x : w)[i];
    for (float &v : h.data)
      if (v == 0.0f)
        v = roundToDType(0.01f, h.dtype);
    in[name] = h;
  }
  return in;
}

NamedTensors gradsOf(const InterpretedTraining &t) {
  NamedTensors dy;
  uint64_t seed = 500;
  const Graph &fg = *t.graphs().forward;
  const std::vector<Value *> outs = fg.outputs();
  for (unsigned i = 0; i < outs.size(); ++i) {
    const bool kept = i < fg.resultAttrs().size() && (fg.resultAttrs()[i].has("fp8.state") ||
                                                      fg.resultAttrs()[i].has("fp8.saved"));
    if (!kept) // an output the caller receives: its gradient is a backward input
      dy[resultName(fg, i)] =
          nonZeroTensor(outs[i]->type().shape(), outs[i]->type().dtype(), seed++, 0.5);
  }
  return dy;
}

void expectSameTensors(const NamedTensors &a, const NamedTensors &b, const std::string &what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto &[name, t] : a) {
    ASSERT_TRUE(b.count(name)) << what << " " << name;
    EXPECT_EQ(t.shape, b.at(name).shape) << what << " " << name;
    EXPECT_TRUE(t.data == b.at(name).data) << what << " " << name << " differs";
  }
}

TEST(TrainingOptionsFor, RecipeThenQuantizeOptionsAfterPlus) {
  Expected<TrainingOptions> o = trainingOptionsFor("delayed+weights=static+history_len=4");
  ASSERT_TRUE(o.hasValue()) << o.error();
  ASSERT_TRUE(o->recipe.has_value());
  EXPECT_EQ(o->recipe->kind, RecipeKind::Delayed);
  EXPECT_TRUE(o->recipe->staticWeights);
  EXPECT_EQ(o->recipe->historyLen, 4);
  EXPECT_EQ(o->recipe->str(), testRecipe("delayed", "weights=static history_len=4")->str());
  o = trainingOptionsFor("none");
  ASSERT_TRUE(o.hasValue()) << o.error();
  EXPECT_FALSE(o->recipe.has_value());
  EXPECT_EQ(o->gemmBackend, GemmBackend::Auto);
  // The spec is parsed once, here: a bad recipe or option is its error.
  o = trainingOptionsFor("delayed+history_len=zero");
  ASSERT_FALSE(o.hasValue());
  EXPECT_NE(o.error().find("history_len"), std::string::npos) << o.error();
  EXPECT_FALSE(trainingOptionsFor("fastest").hasValue());
}

TEST(InterpretedWeightCasts, ReuseComputesWithTheLastCastWeights) {
  std::unique_ptr<Module> mod = smallMlp();
  ASSERT_TRUE(mod);
  const Graph &g = *mod->graphs()[0];
  auto make = [&] {
    Expected<std::unique_ptr<InterpretedTraining>> t =
        InterpretedTraining::create(g, delayedStaticWeights());
    EXPECT_TRUE(t.hasValue()) << (t ? "" : t.error());
    return t ? t.take() : nullptr;
  };
  std::unique_ptr<InterpretedTraining> reuse = make(), castSame = make(), castNew = make();
  ASSERT_TRUE(reuse && castSame && castNew);
  const Graph &fg = *reuse->graphs().forward;
  const NamedTensors first = inputsOf(fg, 1, 11), second = inputsOf(fg, 2, 11);
  NamedTensors secondNewW = second; // the weights (fp8.param: w1, w2) of seed 12
  const NamedTensors seed12 = inputsOf(fg, 2, 12);
  int params = 0;
  for (unsigned i = 0; i < fg.numInputs(); ++i)
    if (fg.inputAttrs(i).has("fp8.param") && ++params)
      secondNewW[fg.input(i)->name()] = seed12.at(fg.input(i)->name());
  ASSERT_EQ(params, 2);
  // The same first micro-batch on all three.
  for (InterpretedTraining *t : {reuse.get(), castSame.get(), castNew.get()}) {
    Expected<NamedTensors> out = t->forward(first);
    ASSERT_TRUE(out.hasValue()) << out.error();
  }
  // Second: weights changed (seed 12) but reused, against the first weights cast again, and
  // against the new weights cast.
  Expected<NamedTensors> r = reuse->forward(secondNewW, WeightCasts::Reuse);
  Expected<NamedTensors> s = castSame->forward(second);
  Expected<NamedTensors> n = castNew->forward(secondNewW);
  ASSERT_TRUE(r && s && n);
  expectSameTensors(*r, *s, "outputs");
  EXPECT_FALSE(r->at("y").data == n->at("y").data) << "Reuse read the new weights";
  for (const std::string &key : reuse->stateKeys())
    EXPECT_TRUE(reuse->state(key)->data == castSame->state(key)->data) << key;
  const NamedTensors dy = gradsOf(*reuse);
  Expected<NamedTensors> gr = reuse->backward(dy), gs = castSame->backward(dy);
  ASSERT_TRUE(gr && gs);
  expectSameTensors(*gr, *gs, "gradients");
}

TEST(InterpretedWeightCasts, ReuseIsRefusedWithoutStaticWeightsOrBeforeACast) {
  std::unique_ptr<Module> mod = smallMlp();
  ASSERT_TRUE(mod);
  const Graph &g = *mod->graphs()[0];
  TrainingOptions plain = delayedStaticWeights();
  plain.recipe->staticWeights = false;
  for (const TrainingOptions &o : {plain, delayedStaticWeights()}) {
    Expected<std::unique_ptr<InterpretedTraining>> t = InterpretedTraining::create(g, o);
    ASSERT_TRUE(t.hasValue()) << t.error();
    Expected<NamedTensors> out =
        (*t)->forward(inputsOf(*(*t)->graphs().forward, 1, 11), WeightCasts::Reuse);
    ASSERT_FALSE(out.hasValue());
    EXPECT_NE(out.error().find(!o.recipe->staticWeights ? "weights=static"
                                                         : "before any forward cast the weights"),
              std::string::npos)
        << out.error();
  }
}

// A weight that the step also adds to the activation: a Reuse forward would read the bound
// weight there and the cast copy in the GEMM, so both sides refuse it (after a Cast forward).
const char *const kTiedWeight = R"(
func.func @tied(%x: tensor<?x32xbf16>, %w: tensor<64x32xbf16>) -> tensor<?x64xbf16> {
  %xw = fp8.add %x, %w : (tensor<?x32xbf16>, tensor<64x32xbf16>) -> tensor<?x32xbf16>
  %y = fp8.linear %xw, %w : (tensor<?x32xbf16>, tensor<64x32xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
)";

std::unique_ptr<Module> tiedWeight() {
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(kTiedWeight, "tied", diag);
  EXPECT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  return mod;
}

TrainingOptions tiedOptions(bool fuse) {
  TrainingOptions o = delayedStaticWeights();
  o.tokens = 64;
  o.fuse = fuse;
  return o;
}

TEST(InterpretedWeightCasts, ReuseIsRefusedForAWeightReadBesideItsCast) {
  std::unique_ptr<Module> mod = tiedWeight();
  ASSERT_TRUE(mod);
  for (bool fuse : {false, true}) {
    SCOPED_TRACE(fuse ? "fused" : "unfused");
    Expected<std::unique_ptr<InterpretedTraining>> t =
        InterpretedTraining::create(*mod->graphs()[0], tiedOptions(fuse));
    ASSERT_TRUE(t.hasValue()) << t.error();
    const Graph &fg = *(*t)->graphs().forward;
    NamedTensors in;
    std::vector<HostTensor> r = randomInputs(fg, 3, 64);
    for (unsigned i = 0; i < fg.numInputs(); ++i)
      if (!fg.inputAttrs(i).has("fp8.state"))
        in[fg.input(i)->name()] = r[i];
    ASSERT_TRUE((*t)->forward(in).hasValue());
    Expected<NamedTensors> out = (*t)->forward(in, WeightCasts::Reuse);
    ASSERT_FALSE(out.hasValue());
    EXPECT_NE(out.error().find("weight 'w' is also read outside its cast"), std::string::npos)
        << out.error();
  }
}

// Writes `h` into the device buffer `keep[name]` in place (same pointer).
void overwrite(std::map<std::string, DeviceBuffer> &keep, const std::string &name,
               const HostTensor &h) {
  std::vector<unsigned char> bytes = encodeTensor(h);
  ASSERT_LE(bytes.size(), keep.at(name).bytes()) << name;
  ASSERT_TRUE(keep.at(name).upload(bytes.data(), bytes.size()).isOk()) << name;
}

TEST(GpuWeightCasts, CastSeesInPlaceUpdatesAndReuseKeepsTheCopies) {
  FP8C_REQUIRE_GPU();
  std::unique_ptr<Module> mod = smallMlp();
  ASSERT_TRUE(mod);
  const Graph &g = *mod->graphs()[0];
  const TrainingOptions o = delayedStaticWeights();
  Expected<std::unique_ptr<GpuTraining>> gpu = compileTraining(g, o);
  ASSERT_TRUE(gpu.hasValue()) << gpu.error();
  Expected<std::unique_ptr<InterpretedTraining>> cpu = InterpretedTraining::create(g, o);
  ASSERT_TRUE(cpu.hasValue()) << cpu.error();
  GpuTraining &G = **gpu;
  InterpretedTraining &C = **cpu;
  ASSERT_TRUE(G.forwardExecutable().hasLoadSteps());
  const Graph &fg = *G.graphs().forward;
  CUstream stream = nullptr;
  std::map<std::string, DeviceBuffer> keep;
  Bindings devIn, devOut, devDy, devGrad;
  for (const auto &[name, type] : G.forwardOutputs())
    devOut[name] = poisoned("out:" + name, type, keep);
  for (const auto &[name, type] : G.inputGrads())
    devGrad[name] = poisoned("grad:" + name, type, keep);
  const NamedTensors dy = gradsOf(C);
  for (const auto &[name, t] : dy)
    devDy[name] = upload("dy:" + name, t, keep);

  // Step 0 casts the weights of seed 11; step 1 overwrites them in place with seed 12's and
  // casts; step 2 overwrites them with seed 13's and reuses step 1's copies.
  const WeightCasts casts[] = {WeightCasts::Cast, WeightCasts::Cast, WeightCasts::Reuse};
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    continueFromGpuState(G, C, stream); // the reference continues from the GPU's histories
    if (HasFatalFailure())
      return;
    // Outputs and gradients poisoned (NaN) again before each step: a value the step does not
    // write must not pass as the previous step's.
    for (const auto &[name, type] : G.forwardOutputs())
      ASSERT_TRUE(keep.at("out:" + name).fill(0xFF).isOk());
    for (const auto &[name, type] : G.inputGrads())
      ASSERT_TRUE(keep.at("grad:" + name).fill(0xFF).isOk());
    const NamedTensors in = inputsOf(fg, 100 + uint64_t(step), 11 + uint64_t(step));
    for (const auto &[name, h] : in) {
      if (step == 0)
        devIn[name] = upload("in:" + name, h, keep);
      else
        overwrite(keep, "in:" + name, h);
    }
    Status st = G.forward(devIn, devOut, stream, casts[step]);
    ASSERT_TRUE(st.isOk()) << st.message();
    ASSERT_TRUE((st = G.backward(devDy, devGrad, stream)).isOk()) << st.message();
    Expected<NamedTensors> ref = C.forward(in, casts[step]);
    ASSERT_TRUE(ref.hasValue()) << ref.error();
    Expected<NamedTensors> refGrad = C.backward(dy);
    ASSERT_TRUE(refGrad.hasValue()) << refGrad.error();
    ASSERT_EQ((*CudaDriver::get())->cuStreamSynchronize(stream), CUDA_SUCCESS);
    const std::string label = "[ weight casts ] step " + std::to_string(step);
    expectStepNearReference(keep, G, *ref, *refGrad, "delayed", label);
  }

  // Refusals: a weight bound to another buffer; a step without weights=static; no cast yet.
  Bindings moved = devIn;
  moved["w1"] = upload("other:w1", inputsOf(fg, 1, 11).at("w1"), keep);
  Status st = G.forward(moved, devOut, stream, WeightCasts::Reuse);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("'w1' is bound to another buffer"), std::string::npos)
      << st.message();
  {
    std::unique_ptr<Module> tied = tiedWeight();
    ASSERT_TRUE(tied);
    Expected<std::unique_ptr<GpuTraining>> t =
        compileTraining(*tied->graphs()[0], tiedOptions(true));
    ASSERT_TRUE(t.hasValue()) << t.error();
    std::map<std::string, DeviceBuffer> tk;
    Bindings tin, tout;
    for (const auto &[name, type] : (*t)->forwardInputs())
      tin[name] = poisoned("in:" + name, type, tk); // (values do not matter here)
    for (const auto &[name, type] : (*t)->forwardOutputs())
      tout[name] = poisoned("out:" + name, type, tk);
    for (auto &[name, b] : tk)
      ASSERT_TRUE(b.fill(0).isOk()) << name;
    ASSERT_TRUE((st = (*t)->forward(tin, tout, stream)).isOk()) << st.message();
    st = (*t)->forward(tin, tout, stream, WeightCasts::Reuse);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("weight 'w' is also read outside its cast"), std::string::npos)
        << st.message();
  }
  TrainingOptions plain = o;
  plain.recipe->staticWeights = false;
  for (const TrainingOptions &opts : {plain, o}) {
    Expected<std::unique_ptr<GpuTraining>> fresh = compileTraining(g, opts);
    ASSERT_TRUE(fresh.hasValue()) << fresh.error();
    st = (*fresh)->forward(devIn, devOut, stream, WeightCasts::Reuse);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find(!opts.recipe->staticWeights ? "weights=static"
                                                             : "before any forward cast"),
              std::string::npos)
        << st.message();
  }
}

} // namespace
