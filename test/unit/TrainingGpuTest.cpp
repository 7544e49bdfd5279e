// GPU training step (runtime/TrainingGpu.h) against the CPU reference InterpretedTraining
// (skipped with a message where no CUDA device answers): examples/linear.mlir and mlp.mlir,
// every recipe (none: the bf16 step), and a small SwiGLU MLP (swiglu_mlp.mlir's structure),
// 128 tokens. Same random inputs (never zero) on both,
// output and gradient buffers poisoned with NaN first; the delayed recipe runs 3 steps and
// checks that every amax history advances by one entry per step, equal on both sides (each
// step after the first starts the reference from the GPU's histories).
//
// Tolerances (relative Frobenius error against the interpreter): the GPU sums its GEMMs in
// another order (cuBLASLt), so a bf16 rounding of a GEMM output can flip; downstream, that
// flips FP8 roundings of the gradient it feeds (an e5m2 step is 12.5-25 % of one element) and
// col_sum adds in another order (colsum.cuh). Each flip moves a whole tensor by ~1e-3; wrong
// indexing, a missed scale or a missed transpose gives O(1). Bound: 2e-2 for the forward
// output (as GpuEndToEndTest's GpuExampleTest), 3e-2 for gradients (one more GEMM and cast
// downstream). The measured errors are printed.
#include "GpuTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "runtime/TrainingGpu.h"
#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/gpu/GemmSm90Step.h"
#include "runtime/jit/Nvrtc.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

using namespace fp8c;
using namespace fp8c::gputest;

namespace {

// A SwiGLU MLP with examples/swiglu_mlp.mlir's structure at a size the interpreter checks in
// seconds (the real size is timed by fp8c-train-bench); 200 and 300 are not multiples of any
// tile, so the backward's transposes and GEMMs see tails.
const char *kSmallSwiglu = R"(
func.func @swiglu_small(%x: tensor<?x200xbf16>, %w_gate: tensor<300x200xbf16>, %w_up: tensor<300x200xbf16>, %w_down: tensor<200x300xbf16>) -> tensor<?x200xbf16> {
  %gate = fp8.linear %x, %w_gate : (tensor<?x200xbf16>, tensor<300x200xbf16>) -> tensor<?x300xbf16>
  %up = fp8.linear %x, %w_up : (tensor<?x200xbf16>, tensor<300x200xbf16>) -> tensor<?x300xbf16>
  %h = fp8.swiglu %gate, %up : (tensor<?x300xbf16>, tensor<?x300xbf16>) -> tensor<?x300xbf16>
  %y = fp8.linear %h, %w_down : (tensor<?x300xbf16>, tensor<200x300xbf16>) -> tensor<?x200xbf16>
  return %y : tensor<?x200xbf16>
}
)";

// examples/mlp.mlir's structure (bias, GELU, bias: the bias gradients are column sums fused
// into the cast-transposes) at 200 -> 300 -> 200.
const char *kSmallMlp = R"(
func.func @mlp_small(%x: tensor<?x200xbf16>, %w1: tensor<300x200xbf16>, %b1: tensor<300xbf16>, %w2: tensor<200x300xbf16>, %b2: tensor<200xbf16>) -> tensor<?x200xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x200xbf16>, tensor<300x200xbf16>, tensor<300xbf16>) -> tensor<?x300xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x300xbf16>) -> tensor<?x300xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x300xbf16>, tensor<200x300xbf16>, tensor<200xbf16>) -> tensor<?x200xbf16>
  return %y : tensor<?x200xbf16>
}
)";

std::string readExample(const std::string &name) {
  if (name == "swiglu_small")
    return kSmallSwiglu;
  if (name == "mlp_small")
    return kSmallMlp;
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

HostTensor nonZeroTensor(std::vector<int64_t> shape, DType t, uint64_t seed, double stddev) {
  HostTensor h = randomTensor(shape, t, seed, stddev);
  for (float &v : h.data)
    if (v == 0.0f)
      v = roundToDType(static_cast<float>(stddev), t);
  return h;
}

struct TrainCase;
std::string optionsName(const TrainCase &c);

struct TrainCase {
  const char *file;
  const char *recipe;
  int64_t tokens = 128;
  /// The FP8 GEMM backend ("" auto: below 256 tokens untuned, so cuBLASLt with its fallbacks;
  /// "generated": the generated GEMM, e.g. the delayed MLP's fused first GEMM).
  const char *backend = "";
  /// More quantize options of the recipe (TrainingOptions::recipeOptions).
  const char *recipeOptions = "";
};

class GpuTrainingTest : public ::testing::TestWithParam<TrainCase> {};

// Uploads `h`, keeping the buffer in `keep`; returns its binding.
DeviceTensor upload(const std::string &name, const HostTensor &h,
                    std::map<std::string, DeviceBuffer> &keep) {
  Expected<DeviceBuffer> b = uploadTensor(h);
  EXPECT_TRUE(b.hasValue()) << (b ? "" : b.error());
  DeviceTensor t{b ? b->data() : nullptr, h.shape, h.dtype};
  if (b)
    keep.insert_or_assign(name, b.take());
  return t;
}

DeviceTensor poisoned(const std::string &name, const TensorType &type,
                      std::map<std::string, DeviceBuffer> &keep) {
  size_t bytes = static_cast<size_t>(type.numElements()) * dtypeBytes(type.dtype());
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(std::max<size_t>(bytes, 16));
  EXPECT_TRUE(b.hasValue());
  if (!b)
    return {};
  EXPECT_TRUE(b->fill(0xFF).isOk());
  DeviceTensor t{b->data(), type.shape(), type.dtype()};
  keep.insert_or_assign(name, b.take());
  return t;
}

HostTensor download(const std::map<std::string, DeviceBuffer> &keep, const std::string &name,
                    const TensorType &type) {
  Expected<HostTensor> h = downloadTensor(keep.at(name), type.shape(), type.dtype());
  EXPECT_TRUE(h.hasValue());
  return h ? h.take() : HostTensor{};
}

TEST_P(GpuTrainingTest, ForwardAndBackwardMatchInterpretedTraining) {
  FP8C_REQUIRE_GPU();
  const TrainCase c = GetParam();
  const std::string recipe = c.recipe;
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(readExample(c.file), c.file, diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  const Graph &g = *mod->graphs()[0];
  TrainingOptions o;
  o.recipe = recipe;
  o.tokens = c.tokens;
  o.fuse = true;
  o.gemmBackend = c.backend;
  o.recipeOptions = c.recipeOptions;
  Expected<std::unique_ptr<GpuTraining>> gpu = compileTraining(g, o);
  ASSERT_TRUE(gpu.hasValue()) << gpu.error();
  Expected<std::unique_ptr<InterpretedTraining>> cpu = InterpretedTraining::create(g, o);
  ASSERT_TRUE(cpu.hasValue()) << cpu.error();
  GpuTraining &G = **gpu;
  InterpretedTraining &C = **cpu;
  const Graph &fg = *G.graphs().forward;
  CUstream stream = nullptr;
  const int steps = recipe == "delayed" ? 3 : 1;
  std::map<std::string, DeviceBuffer> keep;
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE(std::string(c.file) + " " + recipe + " step " + std::to_string(step));
    // From the second step on, the reference continues from the GPU's histories: an amax of a
    // GEMM output differs by the GEMM's rounding (checked below), and a scale computed from
    // another history quantizes every element differently, which is not what this compares.
    if (step > 0)
      for (const std::string &key : G.stateKeys()) {
        Expected<std::vector<float>> h = G.readState(key, stream);
        ASSERT_TRUE(h.hasValue()) << h.error();
        const HostTensor *cur = C.state(key);
        ASSERT_TRUE(cur) << key;
        HostTensor next = *cur;
        next.data = *h;
        ASSERT_TRUE(C.setState(key, next).isOk()) << key;
      }
    // Inputs: weights fixed across steps (seed 11), activations new each step.
    std::vector<HostTensor> w = randomInputs(fg, 11, o.tokens);
    std::vector<HostTensor> a = randomInputs(fg, 100 + step, o.tokens);
    NamedTensors hostIn;
    Bindings devIn;
    for (unsigned i = 0; i < fg.numInputs(); ++i) {
      const std::string &name = fg.input(i)->name();
      if (!G.forwardInputs().count(name))
        continue; // a state
      HostTensor h = (name.rfind("x", 0) == 0 ? a : w)[i];
      for (float &v : h.data)
        if (v == 0.0f)
          v = roundToDType(0.01f, h.dtype);
      hostIn[name] = h;
      devIn[name] = upload("in:" + name, h, keep);
    }
    Bindings devOut;
    for (const auto &[name, type] : G.forwardOutputs())
      devOut[name] = poisoned("out:" + name, type, keep);
    Status fwd = G.forward(devIn, devOut, stream);
    ASSERT_TRUE(fwd.isOk()) << fwd.message();
    Expected<NamedTensors> ref = C.forward(hostIn);
    ASSERT_TRUE(ref.hasValue()) << ref.error();
    NamedTensors dy;
    Bindings devDy;
    uint64_t seed = 500 + static_cast<uint64_t>(step);
    for (const auto &[name, type] : G.outputGrads()) {
      dy[name] = nonZeroTensor(type.shape(), type.dtype(), seed++, 0.5);
      devDy[name] = upload("dy:" + name, dy[name], keep);
    }
    Bindings devGrad;
    for (const auto &[name, type] : G.inputGrads())
      devGrad[name] = poisoned("grad:" + name, type, keep);
    Status st = G.backward(devDy, devGrad, stream);
    ASSERT_TRUE(st.isOk()) << st.message();
    Expected<NamedTensors> refGrad = C.backward(dy);
    ASSERT_TRUE(refGrad.hasValue()) << refGrad.error();
    ASSERT_EQ((*CudaDriver::get())->cuStreamSynchronize(stream), CUDA_SUCCESS);
    auto check = [&](const std::string &what, const std::string &name, const TensorType &type,
                     const HostTensor &want, double bound) {
      HostTensor got = download(keep, what + ":" + name, type);
      EXPECT_EQ(nanCount(got), 0) << "unwritten (poisoned) values remain in " << name;
      double rel = relativeFrobeniusError(got, want);
      EXPECT_LT(rel, bound) << c.file << " " << recipe << " " << what << " " << name;
      std::cout << "[ training ] " << c.file << " " << recipe << " step " << step << " " << what
                << " " << name << ": relative error vs InterpretedTraining " << rel << "\n";
    };
    for (const auto &[name, type] : G.forwardOutputs())
      check("out", name, type, ref->at(name), 2e-2);
    for (const auto &[name, type] : G.inputGrads())
      check("grad", name, type, refGrad->at(name), 3e-2);
    // Delayed scaling: each history holds step + 1 amaxes, equal to the interpreter's.
    for (const std::string &key : G.stateKeys()) {
      Expected<std::vector<float>> h = G.readState(key, stream);
      ASSERT_TRUE(h.hasValue()) << h.error();
      const HostTensor *want = C.state(key);
      ASSERT_TRUE(want) << key;
      ASSERT_EQ(h->size(), want->data.size()) << key;
      double worst = 0;
      for (size_t i = 0; i < h->size(); ++i) {
        const float gv = (*h)[i], cv = want->data[i];
        if (static_cast<int>(i) <= step)
          EXPECT_GT(gv, 0.0f) << key << "[" << i << "] after step " << step;
        else
          EXPECT_EQ(gv, 0.0f) << key << "[" << i << "] after step " << step;
        const double d = std::abs(gv - cv) / std::max(std::abs(cv), 1e-30f);
        worst = std::max(worst, d);
      }
      // Amaxes of inputs are exact; those of GEMM outputs (mlp's hidden gradient) move with
      // the GEMM's sum order (~1e-3).
      EXPECT_LT(worst, 1e-2) << key;
      std::cout << "[ training ] " << c.file << " " << recipe << " step " << step << " history "
                << key << ": " << (*h)[0] << " (newest), max relative difference " << worst
                << "\n";
    }
  }
}

// A training example's two fused halves lowered for sm_90a as compileTraining lowers them
// (128 tokens unless told), with the graphs they came from; nullopt (and a failure) when a stage
// fails.
struct LoweredTraining {
  std::unique_ptr<Module> module;
  TrainingGraphs graphs;
  CompiledGraph forward, backward;
};
std::optional<LoweredTraining> lowerTraining(const char *file, const std::string &recipe,
                                             int64_t tokens = 128, bool sideLaunches = false) {
  DiagnosticEngine diag;
  LoweredTraining l;
  l.module = parseModule(readExample(file), file, diag);
  if (!l.module || !verifyModule(*l.module, diag)) {
    ADD_FAILURE() << file << ": " << diag.str();
    return std::nullopt;
  }
  TrainingOptions o;
  o.recipe = recipe;
  o.tokens = tokens;
  o.fuse = true;
  Expected<TrainingGraphs> t =
      buildTrainingGraphs(*l.module->graphs()[0], pipelineOptionsFor(o), diag);
  if (!t) {
    ADD_FAILURE() << file << " " << recipe << ": " << t.error();
    return std::nullopt;
  }
  l.graphs = std::move(*t);
  CompileOptions co = trainingCompileOptions(o.tokens);
  co.arch = "sm_90a";
  co.sideLaunches = sideLaunches;
  Expected<CompiledGraph> f = compileToPlan(*l.graphs.forward, co);
  Expected<CompiledGraph> b = compileToPlan(*l.graphs.backward, co);
  if (!f || !b) {
    ADD_FAILURE() << file << " " << recipe << ": " << (f ? b.error() : f.error());
    return std::nullopt;
  }
  l.forward = std::move(*f);
  l.backward = std::move(*b);
  return l;
}

// Device-free half of compileTraining: both fused halves of every example x recipe go through
// compileToPlan with trainingCompileOptions, and the plans bind what GpuTraining binds: every
// saved tensor is a forward output and a backward input, each state buffer is named by its key.
TEST(TrainingGpuPlan, BothHalvesLowerAndShareTheSavedTensors) {
  for (const char *file :
       {"linear.mlir", "mlp.mlir", "swiglu_mlp.mlir", "swiglu_small", "mlp_small"})
    for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise", "none"}) {
      SCOPED_TRACE(std::string(file) + " " + recipe);
      std::optional<LoweredTraining> l = lowerTraining(file, recipe);
      ASSERT_TRUE(l.has_value());
      const TrainingGraphs *t = &l->graphs;
      const CompiledGraph *f = &l->forward, *b = &l->backward;
      std::set<std::string> savedOut, savedIn, states;
      for (const BufferDesc &d : f->plan.buffers)
        if (d.role == BufferRole::Output) {
          std::string n = resultName(*t->forward, static_cast<unsigned>(d.outputIndex));
          for (const SavedTensor &s : t->saved)
            if (s.key == n)
              savedOut.insert(n);
        } else if (d.role == BufferRole::State) {
          states.insert(d.name);
        }
      for (const BufferDesc &d : b->plan.buffers)
        if (d.role == BufferRole::Input) {
          const Attribute *a =
              t->backward->inputAttrs(static_cast<unsigned>(d.graphIndex)).get("fp8.saved");
          if (a)
            savedIn.insert(a->asString());
        } else if (d.role == BufferRole::State) {
          states.insert(d.name);
        }
      EXPECT_EQ(savedOut.size(), t->saved.size());
      EXPECT_EQ(savedIn.size(), t->saved.size());
      if (std::string(recipe) != "none")
        EXPECT_FALSE(t->saved.empty()) << "an FP8 recipe saves FP8 copies";
      if (std::string(recipe) == "delayed")
        EXPECT_TRUE(states.count("x_amax_history")) << "states are bound by their key";
    }
}

// Delayed scaling in training: the Linear's cast-transposes (x and w forward, dY backward) each
// push their tensor amax into its history from their last block, so neither half runs a state
// launch; the MLP's forward keeps one (its hidden's amax comes from the first GEMM's epilogue),
// pushing every history of its half.
TEST(TrainingGpuPlan, DelayedCastTransposesPushTheirHistories) {
  auto halves = [](const char *file) {
    std::vector<LaunchPlan> plans;
    if (std::optional<LoweredTraining> l = lowerTraining(file, "delayed"))
      plans = {l->forward.plan, l->backward.plan};
    return plans;
  };
  struct Count {
    int state = 0, pushing = 0;
  };
  auto count = [](const LaunchPlan &p) {
    Count c;
    for (const Step &s : p.steps)
      if (const auto *gl = std::get_if<GeneratedLaunch>(&s)) {
        c.state += gl->entry.find("_state") != std::string::npos;
        if (gl->source.find("fp8c::PushDesc::to(") != std::string::npos) {
          ++c.pushing;
          EXPECT_NE(gl->source.find("fp8c::transposeKernel<"), std::string::npos)
              << gl->entry << ": the pushes are the cast-transposes'";
          EXPECT_NE(gl->description.find("fp8.history_push"), std::string::npos) << gl->entry;
        }
      }
    return c;
  };
  const std::vector<LaunchPlan> linear = halves("linear.mlir");
  ASSERT_EQ(linear.size(), 2u);
  const Count lf = count(linear[0]), lb = count(linear[1]);
  EXPECT_EQ(lf.state, 0);
  EXPECT_EQ(lf.pushing, 2) << "x and w";
  EXPECT_EQ(lb.state, 0);
  EXPECT_EQ(lb.pushing, 1) << "dY";
  // The MLP's backward's amaxes both come from cast-transposes (dY, and dh from the gelu_grad
  // launch that reads the saved e4m3 copy of the GELU's input, gelu_saved=e4m3), which push.
  const std::vector<LaunchPlan> mlp = halves("mlp.mlir");
  ASSERT_EQ(mlp.size(), 2u);
  const Count mf = count(mlp[0]), mb = count(mlp[1]);
  EXPECT_EQ(mf.state, 1);
  EXPECT_EQ(mf.pushing, 0);
  EXPECT_EQ(mb.state, 0);
  EXPECT_EQ(mb.pushing, 2) << "dY and dh";
}

// The delayed MLP's first GEMM casts its GELU with a scale from the GELU's history. That scale
// is computed by block 0 of the cast-transpose right before the GEMM (Lowerer::foldScalarLaunch),
// not by a launch of its own, at every token count.
TEST(TrainingGpuPlan, GemmOutputScaleJoinsTheCastTransposeBeforeIt) {
  for (int64_t tokens : {8192, 1000, 16}) {
    std::optional<LoweredTraining> l = lowerTraining("mlp.mlir", "delayed", tokens);
    ASSERT_TRUE(l);
    const std::vector<Step> &steps = l->forward.plan.steps;
    int hosts = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      const auto *gl = std::get_if<GeneratedLaunch>(&steps[i]);
      if (!gl)
        continue;
      EXPECT_EQ(gl->entry.find("_scales"), std::string::npos) << gl->entry;
      if (gl->description.find("fp8.history_scale %g_scale") == std::string::npos)
        continue;
      ++hosts;
      EXPECT_NE(gl->source.find("fp8c::transposeKernel<"), std::string::npos) << gl->entry;
      EXPECT_NE(gl->description.find("fp8.cast %w2_fp8"), std::string::npos) << gl->entry;
      // Its block 0 writes the scale, in a scope of its own after the launch's own scale.
      EXPECT_NE(gl->source.find("if (leader) {\n      float slot[1];"), std::string::npos)
          << gl->source;
      ASSERT_LT(i + 1, steps.size());
      const auto *gemm = std::get_if<CublasLtGemm>(&steps[i + 1]);
      ASSERT_NE(gemm, nullptr) << "the GEMM follows the launch that computes its scale";
      EXPECT_NE(gemm->description.find("fp8.cast %g_fp8"), std::string::npos);
    }
    EXPECT_EQ(hosts, 1) << tokens << " tokens";
  }
}

// The delayed MLP backward's gelu_grad cast-transpose shares no buffer with the second layer's
// weight-gradient GEMM before it, so it runs beside that GEMM (CublasLtGemm::side,
// codegen/LowerSide.cpp): on the generated GEMM by its idle producer warps. Each tile config the
// step can pick with it compiles for sm_90a without spills or a stack frame, its PTX running the
// side Spec; the tensorwise backward's (a cooperative launch), a cuBLASLt-only plan and the
// default (CompileOptions::sideLaunches off) keep it a launch of its own.
TEST(TrainingGpuPlan, GeluGradCastTransposeRunsBesideTheWeightGradientGemm) {
  Device h200;
  h200.ccMajor = 9;
  h200.arch = "sm_90a";
  h200.smCount = 132;
  for (int64_t tokens : {8192, 1000}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens");
    std::optional<LoweredTraining> l = lowerTraining("mlp.mlir", "delayed", tokens, true);
    ASSERT_TRUE(l);
    const LaunchPlan &plan = l->backward.plan;
    int sides = 0;
    for (const Step &s : plan.steps) {
      if (const auto *gl = std::get_if<GeneratedLaunch>(&s)) {
        EXPECT_EQ(gl->description.find("fp8.gelu_grad"), std::string::npos)
            << "gelu_grad still a launch of its own: " << gl->entry;
        continue;
      }
      const auto &g = std::get<CublasLtGemm>(s);
      if (g.side.empty())
        continue;
      ++sides;
      const GeneratedLaunch &side = g.side.front();
      EXPECT_NE(side.description.find("fp8.gelu_grad %h_grad"), std::string::npos);
      EXPECT_NE(g.description.find("%w2_grad"), std::string::npos) << g.description;
      EXPECT_EQ(side.source.rfind(side.sideSpec, 0), 0u) << "the Spec is the launch's own";
      EXPECT_EQ(side.sideSpec.find("extern \"C\""), std::string::npos);
      CublasLtGemm bare = g;
      bare.side.clear();
      const std::vector<int> gemmBufs = buffersOf(Step(bare));
      for (int b : side.buffers)
        EXPECT_EQ(std::count(gemmBufs.begin(), gemmBufs.end(), b), 0) << plan.buffers[b].name;
      if (tokens != 8192)
        continue;
      Expected<std::vector<GemmSm90Kernel>> ks = gemmSm90KernelsFor(g, plan, tokens, h200);
      ASSERT_TRUE(ks.hasValue()) << ks.error();
      std::vector<GemmSm90Kernel> all = *ks;
      const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan, tokens);
      for (const GemmSm90Kernel &c : gemmSm90Candidates(ks->front(), prob, h200))
        all.push_back(c);
      std::set<std::string> done;
      for (const GemmSm90Kernel &k : all) {
        if (!done.insert(k.name()).second)
          continue;
        SCOPED_TRACE(k.name());
        EXPECT_EQ(k.sideSpec, side.sideSpec);
        EXPECT_NE(k.name().find("_side"), std::string::npos);
        ASSERT_TRUE(checkGemmSm90(k, prob).isOk()) << checkGemmSm90(k, prob).message();
        NvrtcRequest req = gemmSm90Request(k);
        req.wantPtx = true;
        Expected<NvrtcResult> r = compileWithNvrtc(req);
        ASSERT_TRUE(r.hasValue()) << r.error();
        EXPECT_FALSE(r->hasSpills()) << r->log;
        for (const PtxasEntryInfo &e : r->entries)
          EXPECT_EQ(e.stackFrameBytes, 0) << r->log;
        for (const char *code : {"C7519", "C7508", "C7510", "C7515"})
          EXPECT_EQ(r->log.find(code), std::string::npos) << code << ":\n" << r->log;
        // The side warps' streaming loads and stores, and their byte transposes.
        EXPECT_NE(r->ptx.find("ld.global.cs.v4"), std::string::npos);
        EXPECT_NE(r->ptx.find("st.global.cs.v4"), std::string::npos);
        EXPECT_NE(r->ptx.find("prmt.b32"), std::string::npos);
        EXPECT_NE(r->ptx.find("%dynamic_smem_size"), std::string::npos);
        // Its inputs copied ahead into the warp's ring, waited for per pass.
        EXPECT_NE(r->ptx.find("cp.async.cg.shared.global"), std::string::npos);
        EXPECT_NE(r->ptx.find("cp.async.wait_group 7"), std::string::npos);
      }
      EXPECT_GE(done.size(), 2u);
    }
    EXPECT_EQ(sides, 1);
  }
  // Not beside a GEMM: the tensorwise gelu_grad (current scaling: a cooperative launch), and
  // every launch of a plan whose GEMMs are cuBLASLt's alone.
  for (const char *recipe : {"tensorwise", "rowwise", "blockwise"}) {
    std::optional<LoweredTraining> l = lowerTraining("mlp.mlir", recipe, 8192, true);
    ASSERT_TRUE(l);
    for (const Step &s : l->backward.plan.steps)
      if (const auto *g = std::get_if<CublasLtGemm>(&s))
        EXPECT_TRUE(g->side.empty()) << recipe << " " << g->name;
  }
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(readExample("mlp.mlir"), "mlp.mlir", diag);
  ASSERT_TRUE(m) << diag.str();
  TrainingOptions o;
  o.recipe = "delayed";
  o.tokens = 8192;
  o.fuse = true;
  Expected<TrainingGraphs> t = buildTrainingGraphs(*m->graphs()[0], pipelineOptionsFor(o), diag);
  ASSERT_TRUE(t) << t.error();
  for (const char *backend : {"cublaslt", "auto"}) {
    CompileOptions co = trainingCompileOptions(o.tokens);
    co.arch = "sm_90a";
    co.backend = backend;
    co.sideLaunches = std::string(backend) != "auto"; // auto: the default, off
    Expected<CompiledGraph> b = compileToPlan(*t->backward, co);
    ASSERT_TRUE(b) << b.error();
    int launches = 0;
    for (const Step &s : b->plan.steps) {
      if (const auto *g = std::get_if<CublasLtGemm>(&s))
        EXPECT_TRUE(g->side.empty()) << backend << " " << g->name;
      else
        launches +=
            std::get<GeneratedLaunch>(s).description.find("fp8.gelu_grad") != std::string::npos;
    }
    EXPECT_EQ(launches, 1) << backend;
  }
}

// The gelu_grad cast-transpose run beside the weight-gradient GEMM on its idle warps
// (gemm_sm90_side.cuh) against the same launch run on its own, both steps on the generated
// GEMM at 128 and 1000 tokens (a row tail), three delayed steps from the same inputs: the
// input gradient (from the FP8 copies the side launch writes, through the same untuned dgrad
// GEMM) and every amax history match bit for bit; W1's gradient (the weight-gradient GEMM of
// the transposed copy, tuned per compile) and b1's (column sums added in another order) within
// 1e-3.
TEST(GpuSideLaunch, MatchesTheLaunchItReplaces) {
  FP8C_REQUIRE_GPU();
  for (int64_t tokens : {int64_t(128), int64_t(1000)}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens");
    DiagnosticEngine diag;
    std::unique_ptr<Module> mod = parseModule(readExample("mlp.mlir"), "mlp.mlir", diag);
    ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
    const Graph &g = *mod->graphs()[0];
    std::unique_ptr<GpuTraining> T[2];
    for (int side = 0; side < 2; ++side) {
      TrainingOptions o;
      o.recipe = "delayed";
      o.tokens = tokens;
      o.gemmBackend = "generated";
      o.sideLaunches = side == 1;
      Expected<std::unique_ptr<GpuTraining>> t = compileTraining(g, o);
      ASSERT_TRUE(t.hasValue()) << t.error();
      T[side] = t.take();
    }
    int besides = 0;
    for (const Step &s : T[1]->backwardExecutable().plan().steps)
      if (const auto *c = std::get_if<CublasLtGemm>(&s))
        besides += !c->side.empty();
    ASSERT_EQ(besides, 1);
    const Graph &fg = *T[0]->graphs().forward;
    std::map<std::string, DeviceBuffer> keep;
    CUstream stream = nullptr;
    for (int step = 0; step < 3; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      std::vector<HostTensor> w = randomInputs(fg, 11, tokens);
      std::vector<HostTensor> a = randomInputs(fg, 100 + step, tokens);
      std::map<std::string, HostTensor> grads[2];
      for (int side = 0; side < 2; ++side) {
        GpuTraining &G = *T[side];
        const std::string tag = std::to_string(side) + ":";
        Bindings devIn;
        for (unsigned i = 0; i < fg.numInputs(); ++i) {
          const std::string &name = fg.input(i)->name();
          if (G.forwardInputs().count(name))
            devIn[name] = upload(tag + "in:" + name, (name.rfind("x", 0) == 0 ? a : w)[i], keep);
        }
        Bindings devOut;
        for (const auto &[name, type] : G.forwardOutputs())
          devOut[name] = poisoned(tag + "out:" + name, type, keep);
        ASSERT_TRUE(G.forward(devIn, devOut, stream).isOk());
        Bindings devDy, devGrad;
        uint64_t seed = 500 + static_cast<uint64_t>(step);
        for (const auto &[name, type] : G.outputGrads())
          devDy[name] = upload(tag + "dy:" + name,
                               nonZeroTensor(type.shape(), type.dtype(), seed++, 0.5), keep);
        for (const auto &[name, type] : G.inputGrads())
          devGrad[name] = poisoned(tag + "grad:" + name, type, keep);
        Status st = G.backward(devDy, devGrad, stream);
        ASSERT_TRUE(st.isOk()) << st.message();
        ASSERT_EQ((*CudaDriver::get())->cuStreamSynchronize(stream), CUDA_SUCCESS);
        for (const auto &[name, type] : G.inputGrads())
          grads[side][name] = download(keep, tag + "grad:" + name, type);
      }
      for (const auto &[name, want] : grads[0]) {
        const HostTensor &got = grads[1].at(name);
        EXPECT_EQ(nanCount(got), 0) << name;
        const double rel = relativeFrobeniusError(got, want);
        std::cout << "[ side launch ] " << tokens << " tokens step " << step << " " << name
                  << ": relative difference " << rel << "\n";
        if (name.find("w1") != std::string::npos || name.find("b1") != std::string::npos)
          EXPECT_LT(rel, 1e-3) << name;
        else if (name.find("x") != std::string::npos)
          EXPECT_EQ(got.data, want.data) << name;
      }
      for (const std::string &key : T[0]->stateKeys()) {
        Expected<std::vector<float>> h0 = T[0]->readState(key, stream);
        Expected<std::vector<float>> h1 = T[1]->readState(key, stream);
        ASSERT_TRUE(h0 && h1) << key;
        EXPECT_EQ(*h1, *h0) << key;
        EXPECT_GT((*h1)[static_cast<size_t>(step)], 0.0f) << key;
      }
    }
  }
}

// The cast-transposes of the MLP's step, every recipe: one with a tensor scale takes its Args as
// a __grid_constant__ parameter, while the per-output-row ones (the unskewed tile) take them
// plainly (EmitLaunch). A launch with fused column sums splits its tile rows into chunks
// (LaunchGroup): at 8192 tokens (128 tile rows) units of at least 4 tile rows (dY: 32 chunks,
// not 66); at 512 tokens (8 tile rows, fewer units than resident blocks) one tile row each.
TEST(TrainingGpuPlan, CastTransposeEntriesAndColumnSumUnits) {
  for (const int64_t tokens : {8192, 512})
    for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
      SCOPED_TRACE(std::string(recipe) + " " + std::to_string(tokens) + " tokens");
      std::optional<LoweredTraining> l = lowerTraining("mlp.mlir", recipe, tokens);
      ASSERT_TRUE(l.has_value());
      int transposes = 0, withSums = 0;
      for (const LaunchPlan *p : {&l->forward.plan, &l->backward.plan})
        for (const Step &s : p->steps) {
          const auto *gl = std::get_if<GeneratedLaunch>(&s);
          if (!gl || gl->source.find("fp8c::transposeKernel<") == std::string::npos)
            continue;
          ++transposes;
          const std::string &src = gl->source;
          const bool perRow = src.find("kSkewTile = false") != std::string::npos;
          EXPECT_EQ(src.find("(const __grid_constant__ fp8c::Args<") != std::string::npos, !perRow)
              << gl->entry;
          const size_t at = src.find("kColChunks = ");
          if (at == std::string::npos)
            continue;
          ++withSums;
          const int chunks = std::stoi(src.substr(at + 13));
          const int tileRows = static_cast<int>(tokens / 64),
                    perUnit = (tileRows + chunks - 1) / chunks;
          if (tokens == 8192)
            EXPECT_GE(perUnit, 4) << gl->entry << ": " << chunks << " chunks";
          else
            EXPECT_EQ(chunks, tileRows) << gl->entry;
          EXPECT_LE(chunks * perUnit - tileRows, perUnit - 1) << "no chunk without rows";
        }
      EXPECT_GE(transposes, 4) << "x, w1, w2 and dY at least";
      EXPECT_EQ(withSums, 2) << "b2's sums in dY's launch, b1's in the gelu_grad or GELU's one";
    }
}

// "_bwdfast" for bwd_fast_accum=true, "_e4m3" / "_input" for gelu_saved.
std::string optionsName(const TrainCase &c) {
  const std::string o = c.recipeOptions;
  std::string n;
  if (o.find("bwd_fast_accum=true") != std::string::npos)
    n += "_bwdfast";
  if (o.find("gelu_saved=e4m3") != std::string::npos)
    n += "_e4m3";
  if (o.find("gelu_saved=input") != std::string::npos)
    n += "_input";
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    ExamplesRecipes, GpuTrainingTest,
    ::testing::Values(
        TrainCase{"linear.mlir", "tensorwise"}, TrainCase{"linear.mlir", "delayed"},
        TrainCase{"linear.mlir", "rowwise"}, TrainCase{"linear.mlir", "blockwise"},
        TrainCase{"linear.mlir", "none"}, TrainCase{"mlp.mlir", "tensorwise"},
        TrainCase{"mlp.mlir", "delayed"}, TrainCase{"mlp.mlir", "rowwise"},
        TrainCase{"mlp.mlir", "blockwise"}, TrainCase{"mlp.mlir", "none"},
        TrainCase{"swiglu_small", "tensorwise"}, TrainCase{"swiglu_small", "delayed"},
        TrainCase{"swiglu_small", "rowwise"}, TrainCase{"swiglu_small", "blockwise"},
        TrainCase{"swiglu_small", "none"},
        // tile rows split into several column-sum chunks,
        // and a row tail (1000 = 15 * 64 + 40)
        TrainCase{"swiglu_small", "tensorwise", 1000}, TrainCase{"swiglu_small", "delayed", 1000},
        TrainCase{"mlp_small", "tensorwise", 1000}, TrainCase{"mlp_small", "delayed", 1000},
        // the bf16 step's standalone column sums
        // (colsum.cuh): 8 chunks of 125 rows, row lanes
        // of 8 rows (loads ahead) and of 7 (one at a
        // time), a column tail, an unaligned pitch (300)
        TrainCase{"mlp_small", "none", 1000},
        // rowwise / blockwise cast-transposes with local
        // per-column (per-128-row-block) scales: 1000
        // rows end in a partial 128-row block
        TrainCase{"swiglu_small", "rowwise", 1000}, TrainCase{"swiglu_small", "blockwise", 1000},
        TrainCase{"mlp_small", "rowwise", 1000}, TrainCase{"mlp_small", "blockwise", 1000},
        // the delayed MLP's first GEMM with the GELU, its
        // FP8 cast and transpose and the e4m3 copy of its
        // input (gelu_saved=e4m3) in the generated epilogue
        // (auto too: only it writes the copy), at a row tail
        // too; with gelu_saved=input it writes the bf16
        // input (auto: cuBLASLt plus a transpose launch at
        // 128 tokens, untuned)
        TrainCase{"mlp.mlir", "delayed", 128, "generated"},
        TrainCase{"mlp.mlir", "delayed", 1000, "generated"},
        TrainCase{"mlp.mlir", "delayed", 1000, "generated", "gelu_saved=input"},
        // on cuBLASLt the GELU cast-transpose writes the
        // e4m3 copy from the input it reads (kCopy); with
        // current scaling its cooperative second phase does
        TrainCase{"mlp.mlir", "delayed", 1000, "cublaslt"},
        TrainCase{"mlp.mlir", "tensorwise", 1000, "", "gelu_saved=e4m3"},
        // with current scaling the generated GEMM writes the bf16 GELU and its amax beside h,
        // and one launch casts and transposes the GELU (auto, tuned at a row tail)
        TrainCase{"mlp.mlir", "tensorwise", 1000},
        // the second layer's dgrad GEMM takes gelu_grad
        // (the saved h read in its epilogue), the cast,
        // amax, transpose and db1's column sums: above on
        // the generated GEMM, at 128 tokens (auto, untuned)
        // on cuBLASLt plus the cast-transpose launch, here
        // tuned (auto measures the two), with fast
        // accumulation in the backward
        TrainCase{"mlp.mlir", "delayed", 1000, "", "bwd_fast_accum=true gelu_saved=input"}),
    [](const auto &info) {
      std::string f = info.param.file;
      const std::string backend = info.param.backend;
      return f.substr(0, f.find('.')) + "_" + info.param.recipe +
             (info.param.tokens != 128 ? "_m" + std::to_string(info.param.tokens) : "") +
             (backend.empty() ? "" : "_" + backend) + optionsName(info.param);
    });

} // namespace
