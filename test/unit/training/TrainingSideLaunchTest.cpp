// The delayed MLP backward's gelu_grad cast-transpose beside the second layer's weight-gradient
// GEMM (GemmStep::side, codegen/LowerSide.cpp, codegen/kernels/gemm_sm90_side.cuh): the
// plan and every kernel it can pick compiled without a GPU, and on the GPU the step with it
// against the step without it, bit for bit.
#include "unit/training/TrainingTestSupport.h"

#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/gpu/GemmSm90Step.h"
#include "runtime/jit/Nvrtc.h"
#include "unit/support/RecipeTestSupport.h"

#include <algorithm>
#include <set>

using namespace fp8c;
using namespace fp8c::gputest;
using namespace fp8c::trainingtest;

namespace {

// The delayed MLP backward's gelu_grad cast-transpose shares no buffer with the second layer's
// weight-gradient GEMM before it, so it runs beside that GEMM (GemmStep::side,
// codegen/LowerSide.cpp): on the generated GEMM by its idle producer warps. Each tile config the
// step can pick with it compiles for sm_90a without spills or a stack frame, its PTX running the
// side Spec (side launches keep the gelu_grad out of the dgrad GEMM's epilogue: the fuse pass's
// grad-epilogue=off); the tensorwise backward's (a cooperative launch) and a cuBLASLt-only plan
// keep it a launch of its own, and by default (CompileOptions::sideLaunches off) it joins the
// dgrad GEMM, with the launch as the cuBLASLt form's fallback.
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
      const auto &g = std::get<GemmStep>(s);
      if (g.side.empty())
        continue;
      ++sides;
      const GeneratedLaunch &side = g.side.front();
      EXPECT_NE(side.description.find("fp8.gelu_grad %h_grad"), std::string::npos);
      EXPECT_NE(g.description.find("%w2_grad"), std::string::npos) << g.description;
      EXPECT_EQ(side.source.rfind(side.sideSpec, 0), 0u) << "the Spec is the launch's own";
      EXPECT_EQ(side.sideSpec.find("extern \"C\""), std::string::npos);
      GemmStep bare = g;
      bare.side.clear();
      const std::vector<int> gemmBufs = buffersOf(Step(bare));
      for (int b : side.buffers)
        EXPECT_EQ(std::count(gemmBufs.begin(), gemmBufs.end(), b), 0) << plan.buffers[b].name;
      if (tokens != 8192)
        continue;
      Expected<std::vector<GemmSm90Spec>> ks = gemmSm90KernelsFor(g, plan, tokens, h200);
      ASSERT_TRUE(ks.hasValue()) << ks.error();
      std::vector<GemmSm90Spec> all = *ks;
      const GemmSm90Problem prob = gemmSm90ProblemOf(g, plan, tokens);
      for (const GemmSm90Spec &c : gemmSm90Candidates(ks->front(), prob, h200))
        all.push_back(c);
      std::set<std::string> done;
      for (const GemmSm90Spec &k : all) {
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
      if (const auto *g = std::get_if<GemmStep>(&s))
        EXPECT_TRUE(g->side.empty()) << recipe << " " << g->name;
  }
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(readExample("mlp.mlir"), "mlp.mlir", diag);
  ASSERT_TRUE(m) << diag.str();
  for (GemmBackend backend : {GemmBackend::CublasLt, GemmBackend::Auto}) {
    // Fused for the backend: each gemm kernel carries it (gemm_backend, ir/KernelPlan.h).
    TrainingOptions o;
    o.recipe = recipeDefaults(RecipeKind::Delayed);
    o.tokens = 8192;
    o.fuse = true;
    o.gemmBackend = backend;
    Expected<TrainingGraphs> t =
        buildTrainingGraphs(*m->graphs()[0], pipelineOptionsFor(o), diag);
    ASSERT_TRUE(t) << t.error();
    CompileOptions co = trainingCompileOptions(o.tokens);
    co.arch = "sm_90a";
    co.backend = backend;
    co.sideLaunches = backend != GemmBackend::Auto; // auto: the default, off
    Expected<CompiledGraph> b = compileToPlan(*t->backward, co);
    ASSERT_TRUE(b) << b.error();
    int launches = 0, fallbacks = 0;
    for (const Step &s : b->plan.steps) {
      if (const auto *g = std::get_if<GemmStep>(&s)) {
        EXPECT_TRUE(g->side.empty()) << gemmBackendName(backend) << " " << g->name;
        for (const GeneratedLaunch &l : g->epiFallback)
          fallbacks += l.description.find("fp8.gelu_grad") != std::string::npos;
      } else {
        launches +=
            std::get<GeneratedLaunch>(s).description.find("fp8.gelu_grad") != std::string::npos;
      }
    }
    const bool cublas = backend == GemmBackend::CublasLt;
    EXPECT_EQ(launches, cublas ? 1 : 0) << gemmBackendName(backend);
    EXPECT_EQ(fallbacks, cublas ? 0 : 1) << gemmBackendName(backend);
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
      o.recipe = recipeDefaults(RecipeKind::Delayed);
      o.tokens = tokens;
      o.gemmBackend = GemmBackend::Generated;
      o.sideLaunches = side == 1;
      o.gradEpilogue = false; // the reference runs the launch on its own, not in the dgrad GEMM
      Expected<std::unique_ptr<GpuTraining>> t = compileTraining(g, o);
      ASSERT_TRUE(t.hasValue()) << t.error();
      T[side] = t.take();
    }
    int besides = 0;
    for (const Step &s : T[1]->backwardExecutable().plan().steps)
      if (const auto *c = std::get_if<GemmStep>(&s))
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
        // Both steps wrote every element of their poisoned gradients.
        EXPECT_TRUE(testcmp::allFinite(got)) << name << " with the side launch";
        EXPECT_TRUE(testcmp::allFinite(want)) << name << " without it";
        const testcmp::Comparison cmp = testcmp::compare(got, want);
        std::cout << "[ side launch ] " << tokens << " tokens step " << step << " " << name
                  << ": relative difference " << cmp.relFrobenius() << "\n";
        // W1's gradient (a GEMM tiled per compile) and b1's (column sums in another order): the
        // same FP8 operands summed in f32 in another order, then one bf16 rounding, which may
        // land one bf16 step (2^-7 of the element) apart: the largest element within two steps.
        if (name.find("w1") != std::string::npos || name.find("b1") != std::string::npos)
          EXPECT_TRUE(cmp.within({1e-3, 2 * testcmp::fullStep(DType::BF16)})) << name;
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

} // namespace
