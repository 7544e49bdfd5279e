// The graph variants (bf16, unfused, fp8c configurations) and the shared input sets: see
// Variants.h. The cuBLASLt GEMM peer is in GemmOnly.cpp.
#include "bench/Variants.h"

#include "bench/DeviceFill.h"
#include "bench/Unfused.h"
#include "driver/Compile.h"
#include "ir/Clone.h"
#include "ir/Parser.h"
#include "runtime/DeviceTensorIO.h"
#include "runtime/StepProfiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fp8c::bench {
namespace {

std::vector<int64_t> concrete(const TensorType &t, int64_t m) {
  std::vector<int64_t> s = t.shape();
  for (int64_t &d : s)
    if (d == kDynamic)
      d = m;
  return s;
}

/// One row of kGraphVariants: how the graph is transformed and compiled.
struct GraphVariant {
  const char *name;
  bool perRecipe;
  const char *description;
  /// The graph to compile (a clone of `g`, possibly rewritten).
  std::function<Expected<std::unique_ptr<Graph>>(const Graph &g, const std::string &recipe)> graph;
  std::function<CompileOptions(const std::string &recipe)> options;
  int weightBytes; ///< bytes per weight element the floor counts
};

Expected<std::unique_ptr<Graph>> asIs(const Graph &g, const std::string &) { return cloneGraph(g); }

CompileOptions withPasses(std::string passes) {
  CompileOptions o;
  o.passes = std::move(passes);
  return o;
}
CompileOptions withRecipe(const std::string &recipe) {
  CompileOptions o;
  o.recipe = recipeKindNamed(recipe); // "none": no recipe
  return o;
}
std::string quantizePipeline(const std::string &recipe, const std::string &extra) {
  return "shape-infer,canonicalize,quantize{recipe=" + recipe + "," + extra +
         "},canonicalize,cse,fuse,dce";
}

// clang-format off
const GraphVariant kGraphVariants[] = {
  {"bf16", false,
   "the bf16 graph through fp8c with no recipe: cuBLASLt bf16 GEMMs with its bias/GELU "
   "epilogues, generated kernels for other pointwise ops",
   asIs, [](const std::string &) { return withRecipe("none"); }, 2},
  {"unfused", true,
   "the quantized graph, one kernel per op (as an eager framework runs it): amax, scale and "
   "cast kernels per tensor, weights quantized every run, cuBLASLt FP8 GEMM with its bias/GELU "
   "epilogue, pointwise ops one kernel each",
   [](const Graph &g, const std::string &r) { return unfusedGraph(g, r); },
   [](const std::string &) { return withPasses("fuse,dce"); }, 2},
  {"fp8c", true,
   "fp8c::compile with the recipe (weights=dynamic: weights quantized every run)",
   asIs, withRecipe, 2},
  {"fp8c.static", true,
   "fp8c::compile with the recipe and weights=static (weights quantized once, at the first run)",
   asIs, [](const std::string &r) { return withPasses(quantizePipeline(r, "weights=static")); }, 1},
  {"fp8c.gen", true,
   "fp8c::compile with the recipe and backend=generated: every FP8 GEMM on fp8c's own Hopper "
   "kernel (TMA + wgmma) instead of cuBLASLt (weights quantized every run)",
   asIs,
   [](const std::string &r) {
     CompileOptions o = withRecipe(r);
     o.backend = GemmBackend::Generated;
     return o;
   },
   2},
  {"fp8c.lt", true,
   "fp8c::compile with the recipe and backend=cublaslt: every FP8 GEMM on cuBLASLt, and what "
   "only the generated GEMM fuses (the SwiGLU MLP's dual GEMM, row-scaled epilogues) as "
   "separate GEMMs and launches (weights quantized every run)",
   asIs,
   [](const std::string &r) {
     CompileOptions o = withRecipe(r);
     o.backend = GemmBackend::CublasLt;
     return o;
   },
   2},
  {"fp8c.static.gen", true,
   "fp8c::compile with the recipe, weights=static and backend=generated (the inference form of "
   "a Linear or MLP on fp8c's own GEMM: only the activations are quantized per run)",
   asIs,
   [](const std::string &r) {
     CompileOptions o = withPasses(quantizePipeline(r, "weights=static"));
     o.backend = GemmBackend::Generated;
     return o;
   },
   1},
};
// clang-format on

class GraphPrepared : public Prepared {
public:
  GraphPrepared(const Shape &s, int weightBytes) : shape_(s), weightBytes_(weightBytes) {}

  Status init(const Graph &g, const CompileOptions &opts, ShapeInputs &in) {
    Expected<std::unique_ptr<Executable>> first = compile(g, opts);
    if (!first)
      return Error(first.error());
    exes_.push_back(first.take());
    // Parameters quantized at load are constants of the executable: one executable per input
    // set, so that rotating the weights does not re-run the load steps.
    sets_ = in.sets;
    if (!exes_[0]->parameterNames().empty())
      for (int i = 1; i < sets_; ++i) {
        Expected<std::unique_ptr<Executable>> e = compile(g, opts);
        if (!e)
          return Error(e.error());
        exes_.push_back(e.take());
      }
    const Executable &exe = *exes_[0];
    for (const BufferDesc &b : exe.plan().buffers) {
      if (b.role != BufferRole::Output)
        continue;
      std::vector<int64_t> shape = concrete(b.type, shape_.m);
      Expected<DeviceBuffer> buf =
          allocateFor(numElementsOf(shape) * dtypeBytes(b.type.dtype()), "output " + b.name);
      if (!buf)
        return Error(buf.error());
      outputs_.push_back({b.name, {buf->data(), shape, b.type.dtype()}});
      outBufs_.push_back(buf.take());
    }
    for (int set = 0; set < sets_; ++set) {
      Bindings bs;
      for (const std::string &name : exe.inputNames()) {
        auto it = std::find(in.names.begin(), in.names.end(), name);
        if (it == in.names.end())
          return Error("no input buffer for '" + name + "'");
        size_t i = static_cast<size_t>(it - in.names.begin());
        bs[name] = {in.buffers[set][i].data(), in.shapes[i], DType::BF16};
      }
      for (const auto &[name, t] : outputs_)
        bs[name] = t;
      bindings_.push_back(std::move(bs));
    }
    return Status::ok();
  }

  Status run(int set, CUstream stream) override {
    Executable &e = *exes_[exes_.size() == 1 ? 0 : static_cast<size_t>(set)];
    return e.run(bindings_[static_cast<size_t>(set)], stream);
  }
  int sets() const override { return sets_; }
  int launches() const override { return static_cast<int>(exes_[0]->plan().steps.size()); }
  double floorBytes() const override { return ioBytesOf(shape_, weightBytes_); }
  Expected<std::vector<float>> outputRows(int64_t rows, CUstream stream) override {
    if (Status s = run(0, stream); !s)
      return Error(s.message());
    Expected<CudaDriver *> drv = CudaDriver::get();
    FP8C_CU_TRY(*drv, cuStreamSynchronize, stream);
    const DeviceTensor &t = outputs_[0].second;
    rows = std::min(rows, t.shape[0]);
    Expected<HostTensor> h = downloadTensor(outBufs_[0], {rows, t.shape[1]}, t.dtype);
    if (!h)
      return Error(h.error());
    return h->data;
  }

  Expected<std::vector<std::string>> profileLines(CUstream stream) override {
    Expected<std::vector<StepTime>> steps = medianStepTimes(*exes_[0], bindings_[0], 7, stream);
    if (!steps)
      return Error("profile: " + steps.error());
    std::vector<std::string> out;
    double total = 0;
    for (const StepTime &s : *steps) {
      total += s.us;
      out.push_back(fmt::format("{:9.1f} us  {:<28} {}", s.us, s.name.substr(0, 28),
                                s.what.rfind("gemm:", 0) == 0 ? s.what : s.what.substr(0, 100)));
    }
    out.push_back(fmt::format("{:9.1f} us  (sum of the step medians)", total));
    return out;
  }

private:
  Shape shape_;
  int weightBytes_;
  int sets_ = 1;
  std::vector<std::unique_ptr<Executable>> exes_;
  std::vector<std::pair<std::string, DeviceTensor>> outputs_;
  std::vector<DeviceBuffer> outBufs_;
  std::vector<Bindings> bindings_;
};

std::string planSummary(const LaunchPlan &p) {
  std::string names;
  for (const Step &st : p.steps) {
    names += names.empty() ? "" : " ";
    if (std::holds_alternative<GemmStep>(st))
      names += "cublasLt";
    else
      names += std::get<GeneratedLaunch>(st).kernelName;
  }
  return fmt::format("{} launches ({} at load): {}", p.steps.size(), p.loadSteps.size(), names);
}

Expected<std::unique_ptr<Graph>> parseShapeGraph(const Shape &s) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(graphText(s), "<" + s.name + ">", diag);
  if (!mod || mod->graphs().empty())
    return Error("parsing the graph of " + s.name + ":\n" + diag.str());
  return std::move(mod->graphs()[0]);
}

std::vector<Variant> buildVariants() {
  std::vector<Variant> out;
  auto addGraphVariant = [&](const GraphVariant &gv) {
    out.push_back({gv.name, gv.perRecipe, gv.description,
                   [gv](const Shape &s, const std::string &recipe,
                        ShapeInputs &in) -> Expected<std::unique_ptr<Prepared>> {
                     Expected<std::unique_ptr<Graph>> base = parseShapeGraph(s);
                     if (!base)
                       return Error(base.error());
                     Expected<std::unique_ptr<Graph>> g = gv.graph(**base, recipe);
                     if (!g)
                       return Error(g.error());
                     CompileOptions o = gv.options(recipe);
                     o.load.maxTokens = s.m;
                     auto p = std::make_unique<GraphPrepared>(s, gv.weightBytes);
                     if (Status st = p->init(**g, o, in); !st)
                       return Error(st.message());
                     return std::unique_ptr<Prepared>(std::move(p));
                   },
                   [gv](const Shape &s, const std::string &recipe) -> Expected<std::string> {
                     Expected<std::unique_ptr<Graph>> base = parseShapeGraph(s);
                     if (!base)
                       return Error(base.error());
                     Expected<std::unique_ptr<Graph>> g = gv.graph(**base, recipe);
                     if (!g)
                       return Error(g.error());
                     CompileOptions o = gv.options(recipe);
                     o.load.maxTokens = s.m;
                     Expected<CompiledGraph> cg = compileToPlan(**g, o);
                     if (!cg)
                       return Error(cg.error());
                     return planSummary(cg->plan);
                   }});
  };
  addGraphVariant(kGraphVariants[0]);
  out.push_back({"fp8-gemm", true,
                 "cuBLASLt FP8 GEMMs alone on pre-quantized random e4m3 operands (bf16 out, "
                 "bias epilogue where the graph has a bias; no activation, no quantization): "
                 "the floor of the unfused path",
                 [](const Shape &s, const std::string &recipe, ShapeInputs &in) {
                   return prepareGemmOnly(s, recipe, in.l2Bytes);
                 },
                 nullptr});
  for (size_t i = 1; i < std::size(kGraphVariants); ++i)
    addGraphVariant(kGraphVariants[i]);
  return out;
}

} // namespace

Expected<ShapeInputs> makeInputs(const Graph &g, int64_t m, int64_t l2Bytes) {
  ShapeInputs in;
  in.l2Bytes = l2Bytes;
  double setBytes = 0;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    const Value *v = g.input(i);
    in.names.push_back(v->name());
    in.shapes.push_back(concrete(v->type(), m));
    setBytes += double(numElementsOf(in.shapes.back())) * dtypeBytes(v->type().dtype());
  }
  in.sets = std::clamp(static_cast<int>(std::ceil(3.0 * double(l2Bytes) / setBytes)), 1, 8);
  for (int set = 0; set < in.sets; ++set) {
    std::vector<DeviceBuffer> bufs;
    for (unsigned i = 0; i < g.numInputs(); ++i) {
      const Value *v = g.input(i);
      const std::vector<int64_t> &shape = in.shapes[i];
      DType t = v->type().dtype();
      int64_t n = numElementsOf(shape);
      Expected<DeviceBuffer> b = allocateFor(n * dtypeBytes(t), "input " + v->name());
      if (!b)
        return Error(b.error());
      // As interp/RandomInputs.h: weights N(0, 1/K), biases 0.1 N(0, 1), activations N(0, 1).
      bool weight = shape.size() == 2 && v->type().shape()[0] != kDynamic;
      double stddev = weight ? 1.0 / std::sqrt(double(shape[1])) : shape.size() == 1 ? 0.1 : 1.0;
      if (Status s = fillRandom(*b, n, t, stddev, static_cast<uint64_t>(set * 16 + i)); !s)
        return Error(s.message());
      bufs.push_back(b.take());
    }
    in.buffers.push_back(std::move(bufs));
  }
  return in;
}

Expected<std::unique_ptr<Graph>> shapeGraph(const Shape &s) { return parseShapeGraph(s); }

const std::vector<Variant> &allVariants() {
  static const std::vector<Variant> v = buildVariants();
  return v;
}

} // namespace fp8c::bench
