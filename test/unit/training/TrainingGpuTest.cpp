// GPU training step (training/TrainingGpu.h) against the CPU reference InterpretedTraining
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
// downstream); the largest element error too, per recipe (TrainingTestSupport.h's
// trainingOutputBounds / trainingGradientBounds), so that one wrong column or row cannot hide
// under the Frobenius norm. The measured errors are printed.
#include "unit/training/TrainingTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "training/TrainingGpu.h"
#include "unit/support/RecipeTestSupport.h"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

using namespace fp8c;
using namespace fp8c::gputest;
using namespace fp8c::trainingtest;

namespace {

struct TrainCase;
std::string optionsName(const TrainCase &c);

struct TrainCase {
  const char *file;
  const char *recipe;
  int64_t tokens = 128;
  /// The FP8 GEMM backend ("" auto: below 256 tokens untuned, so cuBLASLt with its fallbacks;
  /// "generated": the generated GEMM, e.g. the delayed MLP's fused first GEMM).
  const char *backend = "";
  /// More quantize options of the recipe (parsed into TrainingOptions::recipe).
  const char *recipeOptions = "";
};

class GpuTrainingTest : public ::testing::TestWithParam<TrainCase> {};

TEST_P(GpuTrainingTest, ForwardAndBackwardMatchInterpretedTraining) {
  FP8C_REQUIRE_GPU();
  const TrainCase c = GetParam();
  const std::string recipe = c.recipe;
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(readExample(c.file), c.file, diag);
  ASSERT_TRUE(mod && verifyModule(*mod, diag)) << diag.str();
  const Graph &g = *mod->graphs()[0];
  TrainingOptions o;
  o.recipe = testRecipe(recipe, c.recipeOptions);
  o.tokens = c.tokens;
  o.fuse = true;
  o.gemmBackend = *c.backend ? parseGemmBackend(c.backend).value() : GemmBackend::Auto;
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
    if (step > 0) {
      continueFromGpuState(G, C, stream);
      if (HasFatalFailure())
        return;
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
    const std::string label =
        std::string("[ training ] ") + c.file + " " + recipe + " step " + std::to_string(step);
    expectStepNearReference(keep, G, *ref, *refGrad, recipe, label);
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
// launch. The MLP's hidden amax comes from the first GEMM's epilogue, whose last block pushes it
// (the generated GEMM: pushAmaxWhenLast); dh's from the dgrad GEMM's epilogue, or on cuBLASLt
// from the gelu_grad launch after it, and whichever of the two runs pushes it. So neither of the
// MLP's halves runs a state launch either.
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
  const std::vector<LaunchPlan> mlp = halves("mlp.mlir");
  ASSERT_EQ(mlp.size(), 2u);
  const Count mf = count(mlp[0]), mb = count(mlp[1]);
  EXPECT_EQ(mf.state, 0);
  EXPECT_EQ(mf.pushing, 3) << "x, w1 and w2";
  EXPECT_EQ(mb.state, 0);
  EXPECT_EQ(mb.pushing, 1) << "dY";
  // The GEMM steps that push: the forward's first GEMM (generated only: its epilogue writes the
  // GELU input's e4m3 copy and D^T) and the backward's dgrad GEMM with the gelu_grad epilogue.
  auto pushingGemm = [](const LaunchPlan &p, const std::string &history) -> const GemmStep * {
    const GemmStep *found = nullptr;
    for (const Step &s : p.steps)
      if (const auto *c = std::get_if<GemmStep>(&s); c && c->pushHistory >= 0) {
        EXPECT_EQ(found, nullptr) << "one pushing GEMM per half";
        found = c;
        EXPECT_EQ(p.buffers[c->pushHistory].name, history);
        EXPECT_EQ(p.buffers[c->pushHistory].role, BufferRole::State);
        EXPECT_EQ(c->pushLen, 16);
        // An amax of a bf16 value, as the state launch rounded it.
        EXPECT_EQ(c->pushRound, DType::BF16);
        // The amax is the GEMM's own: Scratch, put back to zero after the push.
        EXPECT_TRUE(c->pushResetAmax);
        EXPECT_EQ(p.buffers[c->amaxD].role, BufferRole::Scratch);
        EXPECT_EQ(p.buffers[c->pushCounter].role, BufferRole::Scratch);
        // Where the GEMM has no rows: one block pushes the amax left at zero, then zeroes it.
        EXPECT_EQ(c->pushFallback.size(), 1u);
        for (const GeneratedLaunch &f : c->pushFallback) {
          EXPECT_NE(f.source.find("fp8c::historyPushInPlace<16>"), std::string::npos);
          EXPECT_NE(f.source.find("fp8c::roundTo<fp8c::Dt::BF16>"), std::string::npos);
          EXPECT_NE(f.source.find("[0] = 0.0f;"), std::string::npos);
          EXPECT_FALSE(f.grid.persistent);
        }
      }
    return found;
  };
  const GemmStep *g1 = pushingGemm(mlp[0], "g_amax_history");
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g1->backend, GemmBackend::Generated);
  EXPECT_FALSE(g1->pushInFallback);
  const GemmStep *dgrad = pushingGemm(mlp[1], "h_grad_amax_history");
  ASSERT_NE(dgrad, nullptr);
  EXPECT_NE(dgrad->backend, GemmBackend::Generated);
  // On cuBLASLt (and the unfused form), the gelu_grad cast-transpose after it pushes.
  EXPECT_TRUE(dgrad->pushInFallback);
  ASSERT_EQ(dgrad->epiFallback.size(), 1u);
  EXPECT_NE(dgrad->epiFallback[0].source.find("fp8c::PushDesc::to("), std::string::npos);
  EXPECT_NE(dgrad->epiFallback[0].description.find("fp8.history_push"), std::string::npos);
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
      const auto *gemm = std::get_if<GemmStep>(&steps[i + 1]);
      ASSERT_NE(gemm, nullptr) << "the GEMM follows the launch that computes its scale";
      EXPECT_NE(gemm->description.find("fp8.cast %g_fp8"), std::string::npos);
    }
    EXPECT_EQ(hosts, 1) << tokens << " tokens";
  }
}

// The cast-transposes of the MLP's step, every recipe: one with a tensor scale takes its Args as
// a __grid_constant__ parameter, while the per-output-row ones (the unskewed tile) take them
// plainly (EmitLaunch). A launch with fused column sums splits its tile rows into chunks
// (LaunchGroup): at 8192 tokens units of at least 256 rows (the general form's dY: 32 chunks of
// 4 tile rows, not 66; the byte-staged form's 128-row tiles: 16 chunks of 4); at 512 tokens
// (fewer units than resident blocks) one tile row each. The
// launches a GEMM step runs after cuBLASLt (the delayed gelu_grad's) count too.
// The byte-staged cast-transposes take their loops without bounds checks unless
// ElementwiseTuning::insideTiles is 0, which their Specs then say (kInsideTiles = false); the
// other launches are the same either way.
TEST(TrainingGpuPlan, InsideTilesKnobReachesTheByteStagedLaunches) {
  for (const char *file : {"linear.mlir", "mlp.mlir"}) {
    SCOPED_TRACE(file);
    std::optional<LoweredTraining> on = lowerTraining(file, "delayed", 8192);
    std::optional<LoweredTraining> off = lowerTraining(file, "delayed", 8192, false, 0);
    ASSERT_TRUE(on.has_value() && off.has_value());
    int byteStaged = 0;
    for (const auto &[a, b] : {std::pair{&on->forward.plan, &off->forward.plan},
                               std::pair{&on->backward.plan, &off->backward.plan}}) {
      ASSERT_EQ(a->steps.size(), b->steps.size());
      for (size_t i = 0; i < a->steps.size(); ++i) {
        const auto *la = std::get_if<GeneratedLaunch>(&a->steps[i]);
        const auto *lb = std::get_if<GeneratedLaunch>(&b->steps[i]);
        ASSERT_EQ(la == nullptr, lb == nullptr);
        if (!la)
          continue;
        const bool staged = la->source.find("kByteStaged = true") != std::string::npos;
        byteStaged += staged;
        EXPECT_EQ(la->source.find("kInsideTiles"), std::string::npos) << la->entry;
        EXPECT_EQ(lb->source.find("kInsideTiles = false") != std::string::npos, staged)
            << lb->entry;
      }
    }
    EXPECT_GE(byteStaged, 3) << "x, the weights and dY";
  }
}

TEST(TrainingGpuPlan, CastTransposeEntriesAndColumnSumUnits) {
  for (const int64_t tokens : {8192, 512})
    for (const char *recipe : {"tensorwise", "delayed", "rowwise", "blockwise"}) {
      SCOPED_TRACE(std::string(recipe) + " " + std::to_string(tokens) + " tokens");
      std::optional<LoweredTraining> l = lowerTraining("mlp.mlir", recipe, tokens);
      ASSERT_TRUE(l.has_value());
      int transposes = 0, withSums = 0;
      std::vector<const GeneratedLaunch *> launches;
      for (const LaunchPlan *p : {&l->forward.plan, &l->backward.plan})
        for (const Step &s : p->steps) {
          if (const auto *gl = std::get_if<GeneratedLaunch>(&s))
            launches.push_back(gl);
          else
            for (const GeneratedLaunch &f : std::get<GemmStep>(s).epiFallback)
              launches.push_back(&f);
        }
      for (const GeneratedLaunch *gl : launches) {
        if (gl->source.find("fp8c::transposeKernel<") == std::string::npos)
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
        // (The byte-staged form's tiles are 128 rows high, the general form's 64.)
        const int tileHeight = src.find("kByteStaged = true") != std::string::npos ? 128 : 64;
        const int tileRows = static_cast<int>(tokens / tileHeight),
                  perUnit = (tileRows + chunks - 1) / chunks;
        if (tokens == 8192)
          EXPECT_GE(perUnit * tileHeight, 256) << gl->entry << ": " << chunks << " chunks";
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
