// Helpers of the GPU training tests (TrainingGpuTest.cpp, TrainingSideLaunchTest.cpp): the small
// example graphs, device tensors for bindings (uploaded, or poisoned with NaN), and a training
// example's two halves lowered for sm_90a as compileTraining lowers them.
#pragma once

#include "unit/runtime/GpuTestSupport.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "training/TrainingGpu.h"
#include "unit/support/RecipeTestSupport.h"

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace fp8c::trainingtest {

using namespace fp8c::gputest;

// A SwiGLU MLP with examples/swiglu_mlp.mlir's structure at a size the interpreter checks in
// seconds (the real size is timed by fp8c-train-bench); 200 and 300 are not multiples of any
// tile, so the backward's transposes and GEMMs see tails.
inline const char *const kSmallSwiglu = R"(
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
inline const char *const kSmallMlp = R"(
func.func @mlp_small(%x: tensor<?x200xbf16>, %w1: tensor<300x200xbf16>, %b1: tensor<300xbf16>, %w2: tensor<200x300xbf16>, %b2: tensor<200xbf16>) -> tensor<?x200xbf16> {
  %h = fp8.linear %x, %w1, %b1 : (tensor<?x200xbf16>, tensor<300x200xbf16>, tensor<300xbf16>) -> tensor<?x300xbf16>
  %g = fp8.gelu %h {approximate = "tanh"} : (tensor<?x300xbf16>) -> tensor<?x300xbf16>
  %y = fp8.linear %g, %w2, %b2 : (tensor<?x300xbf16>, tensor<200x300xbf16>, tensor<200xbf16>) -> tensor<?x200xbf16>
  return %y : tensor<?x200xbf16>
}
)";

inline std::string readExample(const std::string &name) {
  if (name == "swiglu_small")
    return kSmallSwiglu;
  if (name == "mlp_small")
    return kSmallMlp;
  std::ifstream f(std::string(FP8C_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline HostTensor nonZeroTensor(std::vector<int64_t> shape, DType t, uint64_t seed, double stddev) {
  HostTensor h = randomTensor(shape, t, seed, stddev);
  for (float &v : h.data)
    if (v == 0.0f)
      v = roundToDType(static_cast<float>(stddev), t);
  return h;
}

// Uploads `h`, keeping the buffer in `keep`; returns its binding.
inline DeviceTensor upload(const std::string &name, const HostTensor &h,
                           std::map<std::string, DeviceBuffer> &keep) {
  Expected<DeviceBuffer> b = uploadTensor(h);
  EXPECT_TRUE(b.hasValue()) << (b ? "" : b.error());
  DeviceTensor t{b ? b->data() : nullptr, h.shape, h.dtype};
  if (b)
    keep.insert_or_assign(name, b.take());
  return t;
}

inline DeviceTensor poisoned(const std::string &name, const TensorType &type,
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

inline HostTensor download(const std::map<std::string, DeviceBuffer> &keep, const std::string &name,
                           const TensorType &type) {
  Expected<HostTensor> h = downloadTensor(keep.at(name), type.shape(), type.dtype());
  EXPECT_TRUE(h.hasValue());
  return h ? h.take() : HostTensor{};
}

// Sets the reference's histories to the GPU's (a scale computed from another history would
// quantize every element differently, which is not what the training tests compare).
inline void continueFromGpuState(GpuTraining &G, InterpretedTraining &C, CUstream stream) {
  for (const std::string &key : G.stateKeys()) {
    Expected<std::vector<float>> h = G.readState(key, stream);
    ASSERT_TRUE(h.hasValue()) << h.error();
    const HostTensor *cur = C.state(key);
    ASSERT_TRUE(cur) << key;
    HostTensor next = *cur;
    next.data = *h;
    ASSERT_TRUE(C.setState(key, next).isOk()) << key;
  }
}

// Downloads `keep[what:name]` and holds it to `want` within `bounds` (Compare.h: relative
// Frobenius error, largest element error, no NaN: no poisoned value left); prints the errors
// after `label`.
inline void expectNearReference(const std::map<std::string, DeviceBuffer> &keep,
                                const std::string &what, const std::string &name,
                                const TensorType &type, const HostTensor &want,
                                testcmp::Bounds bounds, const std::string &label) {
  HostTensor got = download(keep, what + ":" + name, type);
  const testcmp::Comparison cmp = testcmp::compare(got, want);
  EXPECT_TRUE(cmp.within(bounds)) << label << " " << what << " " << name;
  std::cout << label << " " << what << " " << name << ": relative error vs InterpretedTraining "
            << cmp.relFrobenius() << ", largest element " << cmp.maxElement() << "\n";
}

// The bounds of a training step's outputs and gradients against InterpretedTraining.
// Frobenius: 2e-2 for outputs, 3e-2 for gradients (TrainingGpuTest.cpp's header justifies both).
// Largest element, relative to the reference's largest magnitude:
//   - FP8 recipes, outputs: Compare.h's kFp8VsInterpreter, 2^-4 (a flipped e4m3 rounding of the
//     hidden activation reaches an output through one product).
//   - FP8 recipes, gradients: an e5m2 gradient element whose rounding flips moves by one e5m2
//     step, up to 2^-2 of itself, and reaches dx, dw or db through one product or one term of a
//     column sum: |d dw_jk| <= 2^-2 |dh_ij| |x_ik|, while max|dw| grows with sqrt(tokens)
//     (>= 128) times |dh| |x|: one flip at two of the largest operands stays under 2^-4, and
//     flips are rare and of either sign. Bound 2^-3, one e4m3 step at full scale.
//   - recipe none (the bf16 step): every rounding is bf16, so a flip moves a value by one bf16
//     step (2^-7 of it): outputs 2^-6 (Compare.h's kBf16VsInterpreter), gradients 2^-5 (their
//     own rounding and flips of the rounded h or dh upstream, each weighed down by a product).
// A wrong column or row of a gradient, a missed transpose or scale moves elements by
// O(max|ref|).
inline testcmp::Bounds trainingOutputBounds(const std::string &recipe) {
  return {2e-2, recipe == "none" ? 0x1p-6 : testcmp::kFp8VsInterpreter.maxElement};
}
inline testcmp::Bounds trainingGradientBounds(const std::string &recipe) {
  return {3e-2, recipe == "none" ? 0x1p-5 : 0x1p-3};
}

// One step's GPU outputs ("out:NAME") and input gradients ("grad:NAME") of recipe `recipe`
// against the reference's, within trainingOutputBounds and trainingGradientBounds.
inline void expectStepNearReference(const std::map<std::string, DeviceBuffer> &keep,
                                    const GpuTraining &G, const NamedTensors &outs,
                                    const NamedTensors &grads, const std::string &recipe,
                                    const std::string &label) {
  for (const auto &[name, type] : G.forwardOutputs())
    expectNearReference(keep, "out", name, type, outs.at(name), trainingOutputBounds(recipe),
                        label);
  for (const auto &[name, type] : G.inputGrads())
    expectNearReference(keep, "grad", name, type, grads.at(name), trainingGradientBounds(recipe),
                        label);
}

// A training example's two fused halves lowered for sm_90a as compileTraining lowers them
// (128 tokens unless told), with the graphs they came from; nullopt (and a failure) when a stage
// fails.
struct LoweredTraining {
  std::unique_ptr<Module> module;
  TrainingGraphs graphs;
  CompiledGraph forward, backward;
};
inline std::optional<LoweredTraining> lowerTraining(const char *file, const std::string &recipe,
                                                    int64_t tokens = 128, bool sideLaunches = false,
                                                    int insideTiles = -1) {
  DiagnosticEngine diag;
  LoweredTraining l;
  l.module = parseModule(readExample(file), file, diag);
  if (!l.module || !verifyModule(*l.module, diag)) {
    ADD_FAILURE() << file << ": " << diag.str();
    return std::nullopt;
  }
  TrainingOptions o;
  o.recipe = testRecipe(recipe);
  o.tokens = tokens;
  o.fuse = true;
  o.sideLaunches = sideLaunches;
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
  co.tuning.insideTiles = insideTiles;
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

} // namespace fp8c::trainingtest
