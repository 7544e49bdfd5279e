// makeGpuBackend (MlpGpuBackend.h).
#include "MlpGpuBackend.h"

#include "MlpUpdateGraphs.h"

#include "training/TrainingGpu.h"

#include <cmath>
#include <cstring>

namespace fp8c::example {
namespace {

constexpr DType kDType = DType::BF16; // the graph's dtype
constexpr size_t kQBytes = 2;         // bytes of one bf16

Expected<DeviceBuffer> allocate(size_t bytes, const std::string &what) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(std::max<size_t>(bytes, 256));
  if (!b)
    return Error("allocating " + what + ": " + b.error());
  return b;
}

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

class GpuBackend final : public MlpStepBackend {
public:
  ~GpuBackend() override {
    if (stream_) {
      drv_->cuStreamSynchronize(stream_); // nothing to report from a destructor
      drv_->cuStreamDestroy(stream_);
    }
  }
  Status init(const MlpProblem &p);
  std::string description() const override { return device_.str(); }
  int poolSize() const override { return pool_; }
  Status begin(const std::string &recipe, int steps, int microBatches) override;
  Status step(const std::vector<int> &batches, float lr) override;
  Expected<std::vector<double>> losses() override;
  WeightCastCounts weightCastCounts() const override { return counts_; }
  Expected<std::map<std::string, std::vector<float>>> masterWeights() override;

private:
  Status checkBindings() const;
  DeviceTensor slice(const DeviceBuffer &flat, const std::string &name) const;
  void *at(const DeviceBuffer &b, size_t byteOffset) const {
    return reinterpret_cast<char *>(b.data()) + byteOffset;
  }

  CudaDriver *drv_ = nullptr;
  CUstream stream_ = nullptr;
  Device device_;
  MlpSizes s_;
  int pool_ = 0;
  ParamLayout layout_;
  std::unique_ptr<Graph> mlp_;
  std::unique_ptr<Executable> loss_, sgd_;
  std::unique_ptr<GpuTraining> train_;
  // Device data: the pool, the initial and the master weights (f32, two buffers used in
  // turn), the bf16 weights and gradients (flat), the activations' buffers, the scalars c =
  // 2/n and -lr / N, the per-micro-batch column sums of the squared error, and (N > 1 only)
  // the scratch the sgd graph's bf16 output goes to on micro-batches 1..N-1.
  DeviceBuffer xPool_, ntPool_, init_, master_[2], initQ_, wq_, grads_, y_, dy_, dx_, scalars_,
      colSums_, wqScratch_;
  int cur_ = 0, steps_ = 0, maxSteps_ = 0, micro_ = 1;
  bool staticWeights_ = false;
  WeightCastCounts counts_;
  float nlrLr_ = std::nanf(""), hostNlr_ = 0; ///< the lr and N the device's -lr / N is for
  int nlrMicro_ = 0;
};

Status GpuBackend::init(const MlpProblem &p) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  drv_ = *drv;
  if (Status st = drv_->makeCurrent(0); !st)
    return st;
  Expected<Device> dev = drv_->device(0);
  if (!dev)
    return Error(dev.error());
  device_ = *dev;
  FP8C_CU_TRY(drv_, cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  s_ = p.sizes;
  pool_ = static_cast<int>(p.pool.size());
  layout_ = mlpParamLayout(s_);
  Expected<std::unique_ptr<Graph>> mlp = buildMlpGraph(s_, kDType);
  if (!mlp)
    return Error(mlp.error());
  mlp_ = mlp.take();
  // The loss and sgd graphs, compiled once for every recipe.
  CompileOptions co;
  co.recipe = std::nullopt; // no recipe: the graphs run in their own precision
  Expected<std::unique_ptr<Graph>> lg = buildLossGraph(s_.batch, s_.out, kDType);
  if (!lg)
    return Error(lg.error());
  Expected<std::unique_ptr<Executable>> le = compile(**lg, co);
  if (!le)
    return Error("compiling the loss graph: " + le.error());
  loss_ = le.take();
  Expected<std::unique_ptr<Graph>> sg = buildSgdGraph(layout_.rows(), kDType);
  if (!sg)
    return Error(sg.error());
  Expected<std::unique_ptr<Executable>> se = compile(**sg, co);
  if (!se)
    return Error("compiling the sgd graph: " + se.error());
  sgd_ = se.take();

  // Buffers.
  const size_t xElems = size_t(s_.batch * s_.in), yElems = size_t(s_.batch * s_.out);
  const size_t total = size_t(layout_.total);
  struct Want {
    DeviceBuffer *buf;
    size_t bytes;
    const char *what;
  };
  for (const Want &w :
       std::vector<Want>{{&xPool_, xElems * kQBytes * size_t(pool_), "the input pool"},
                         {&ntPool_, yElems * 4 * size_t(pool_), "the target pool"},
                         {&init_, total * 4, "the initial weights"},
                         {&master_[0], total * 4, "the master weights"},
                         {&master_[1], total * 4, "the master weights"},
                         {&initQ_, total * kQBytes, "the initial bf16 weights"},
                         {&wq_, total * kQBytes, "the bf16 weights"},
                         {&grads_, total * kQBytes, "the gradients"},
                         {&y_, yElems * kQBytes, "y"},
                         {&dy_, yElems * kQBytes, "dy"},
                         {&dx_, xElems * kQBytes, "dx"},
                         {&scalars_, 2 * 4, "the scalars"}}) {
    Expected<DeviceBuffer> b = allocate(w.bytes, w.what);
    if (!b)
      return Error(b.error());
    *w.buf = b.take();
  }
  // Uploads (synchronous), converted on the host in parallel.
  std::vector<uint16_t> q(std::max(xElems, total));
  std::vector<float> f(yElems);
  for (int b = 0; b < pool_; ++b) {
    const MlpBatch &d = p.pool[size_t(b)];
    if (d.x.size() != xElems || d.t.size() != yElems)
      return Error("pool batch " + std::to_string(b) + " has the wrong size");
    parallelFor(int64_t(xElems), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i)
        q[size_t(i)] = floatToBf16(d.x[size_t(i)]);
    });
    parallelFor(int64_t(yElems), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i)
        f[size_t(i)] = -d.t[size_t(i)];
    });
    if (Status st = xPool_.upload(q.data(), xElems * kQBytes, size_t(b) * xElems * kQBytes); !st)
      return st;
    if (Status st = ntPool_.upload(f.data(), yElems * 4, size_t(b) * yElems * 4); !st)
      return st;
  }
  std::vector<float> flat = packInitialParams(p, layout_);
  parallelFor(int64_t(total), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      q[size_t(i)] = floatToBf16(flat[size_t(i)]);
  });
  if (Status st = init_.upload(flat.data(), total * 4); !st)
    return st;
  if (Status st = initQ_.upload(q.data(), total * kQBytes); !st)
    return st;
  // The gradients' padding is never written: zero once. What a step writes is poisoned first
  // (0xFF bytes: NaN), so that a part left unwritten shows as a NaN loss. c = 2 / n.
  if (Status st = grads_.fill(0, stream_); !st)
    return st;
  for (const ParamSlot &ps : layout_.slots)
    FP8C_CU_TRY(drv_, cuMemsetD8Async, grads_.ptr() + size_t(ps.offset) * kQBytes, 0xFF,
                size_t(ps.elements()) * kQBytes, stream_);
  for (DeviceBuffer *b : {&y_, &dy_, &dx_, &master_[1]})
    if (Status st = b->fill(0xFF, stream_); !st)
      return st;
  const float c = static_cast<float>(2.0 / double(yElems));
  if (Status st = scalars_.upload(&c, 4); !st)
    return st;
  // The synchronous uploads ran on the legacy stream, which stream_ (non-blocking) does not
  // wait for: wait for every stream of the context.
  FP8C_CU_TRY(drv_, cuCtxSynchronize);
  return Status::ok();
}

DeviceTensor GpuBackend::slice(const DeviceBuffer &flat, const std::string &name) const {
  const ParamSlot *s = layout_.find(name);
  return {at(flat, size_t(s->offset) * kQBytes), s->shape, kDType};
}

// The training step binds what this backend provides: x, the parameters, y and their
// gradients, each with the shape and dtype it allocated.
Status GpuBackend::checkBindings() const {
  auto check = [&](const std::map<std::string, TensorType> &names, const char *what) -> Status {
    for (const auto &[name, type] : names) {
      std::vector<int64_t> want;
      if (const ParamSlot *s = layout_.find(name))
        want = s->shape;
      else if (name == "x")
        want = {s_.batch, s_.in};
      else if (name == "y")
        want = {s_.batch, s_.out};
      else
        return Error(std::string("the training step has an unexpected ") + what + " '" + name +
                     "'");
      if (type.shape() != want || type.dtype() != kDType)
        return Error(std::string("the training step's ") + what + " '" + name + "' is " +
                     type.str() + ", expected " + shapeStr(want) + " bf16");
    }
    return Status::ok();
  };
  if (Status st = check(train_->forwardInputs(), "input"); !st)
    return st;
  if (Status st = check(train_->forwardOutputs(), "output"); !st)
    return st;
  if (Status st = check(train_->outputGrads(), "output gradient"); !st)
    return st;
  if (Status st = check(train_->inputGrads(), "input gradient"); !st)
    return st;
  if (train_->forwardOutputs().size() != 1 || !train_->forwardOutputs().count("y") ||
      train_->outputGrads().size() != 1 || !train_->outputGrads().count("y"))
    return Error("the training step should have the one output 'y'");
  for (const ParamSlot &s : layout_.slots)
    if (!train_->inputGrads().count(s.name))
      return Error("the training step gives no gradient for '" + s.name + "'");
  return Status::ok();
}

Status GpuBackend::begin(const std::string &recipe, int steps, int microBatches) {
  if (steps < 0)
    return Error("negative step count");
  if (microBatches < 1)
    return Error("begin: " + std::to_string(microBatches) + " micro-batches per step");
  FP8C_CU_TRY(drv_, cuStreamSynchronize, stream_); // the last run's work is done
  train_.reset();
  Expected<TrainingOptions> o = trainingOptionsFor(recipe);
  if (!o)
    return Error(o.error());
  Expected<std::unique_ptr<GpuTraining>> t = compileTraining(*mlp_, *o);
  if (!t)
    return Error(t.error());
  train_ = t.take();
  if (Status st = checkBindings(); !st)
    return st;
  if (Status st = train_->resetState(stream_); !st)
    return st;
  const size_t total = size_t(layout_.total);
  FP8C_CU_TRY(drv_, cuMemcpyDtoDAsync, master_[0].ptr(), init_.ptr(), total * 4, stream_);
  FP8C_CU_TRY(drv_, cuMemcpyDtoDAsync, wq_.ptr(), initQ_.ptr(), total * kQBytes, stream_);
  cur_ = 0;
  micro_ = microBatches;
  staticWeights_ = castsWeightsAtLoad(train_->graphs());
  counts_ = {};
  if (micro_ > 1 && wqScratch_.bytes() < total * kQBytes) {
    Expected<DeviceBuffer> b = allocate(total * kQBytes, "the bf16 weights' scratch");
    if (!b)
      return Error(b.error());
    wqScratch_ = b.take();
  }
  const size_t bytes = size_t(std::max(steps, 1)) * size_t(micro_) * size_t(s_.out) * 4;
  if (colSums_.bytes() < bytes) {
    colSums_ = DeviceBuffer();
    Expected<DeviceBuffer> b = allocate(bytes, "the loss array");
    if (!b)
      return Error(b.error());
    colSums_ = b.take();
  }
  if (Status st = colSums_.fill(0xFF, stream_); !st) // NaN: a step that wrote nothing shows
    return st;
  steps_ = 0;
  maxSteps_ = steps;
  return Status::ok();
}

// Gradient accumulation over N micro-batches without a gradient accumulator: SGD is linear,
// so each micro-batch's sgd graph adds -lr/N times its gradient to the f32 master right after
// its backward, and the bf16 weights the forward and backward bind (wq_) stay those of the
// step's start until the last micro-batch, because the sgd graph's bf16 output goes to a
// scratch buffer on micro-batches 1..N-1 and to wq_ only on the last. Hence every micro-batch's
// gradient g_i is taken at the same bf16 weights, bf16(w0), as the N gradients of an
// accumulated step; after micro-batch i the master is w0 - (lr/N)(g_1 + ... + g_i); after the
// last, w0 - lr * mean(g_i), and wq_ = bf16 of it: the same as summing the gradients and
// stepping once, up to f32 rounding of the master sums (each of the N updates rounds its term
// (lr/N) g_i and the sum, half an f32 ulp of the master each, where one step rounds once; lr/N
// itself is exact for N a power of two), which can flip a bf16 weight that sits on a rounding
// boundary. The backward reads the weights bound at the last forward (wq_, unchanged until the
// last sgd graph, which runs after the last backward in stream order), and a Reuse forward
// needs the weights bound to the buffers it cast from: wq_'s slices every time.
Status GpuBackend::step(const std::vector<int> &batches, float lr) {
  if (!train_)
    return Error("MlpStepBackend::step before begin()");
  if (steps_ >= maxSteps_)
    return Error("more steps than begin() was given (" + std::to_string(maxSteps_) + ")");
  if (static_cast<int>(batches.size()) != micro_)
    return Error("a step of " + std::to_string(batches.size()) + " micro-batches, begin() said " +
                 std::to_string(micro_));
  for (int batch : batches)
    if (batch < 0 || batch >= pool_)
      return Error("batch " + std::to_string(batch) + " is not in the pool");
  if (lr != nlrLr_ || micro_ != nlrMicro_) {
    // The sgd graph reads -lr / N from the device: wait until no step reads it or the host
    // value, then copy in stream order (hostNlr_ outlives the copy).
    FP8C_CU_TRY(drv_, cuStreamSynchronize, stream_);
    hostNlr_ = -lr / float(micro_);
    FP8C_CU_TRY(drv_, cuMemcpyHtoDAsync, scalars_.ptr() + 4, &hostNlr_, 4, stream_);
    nlrLr_ = lr;
    nlrMicro_ = micro_;
  }
  const size_t xElems = size_t(s_.batch * s_.in), yElems = size_t(s_.batch * s_.out);
  const DeviceTensor y{y_.data(), {s_.batch, s_.out}, kDType};
  const DeviceTensor dy{dy_.data(), {s_.batch, s_.out}, kDType};
  const DeviceTensor c{scalars_.data(), {}, DType::F32};
  const DeviceTensor nlr{at(scalars_, 4), {}, DType::F32};
  const std::vector<int64_t> flat = {layout_.rows(), kSgdCols};

  Bindings in, grads;
  for (const ParamSlot &p : layout_.slots) {
    in[p.name] = slice(wq_, p.name);
    grads[p.name] = slice(grads_, p.name);
  }
  if (train_->inputGrads().count("x"))
    grads["x"] = {dx_.data(), {s_.batch, s_.in}, kDType};
  for (int m = 0; m < micro_; ++m) {
    const size_t batch = size_t(batches[size_t(m)]);
    const std::string what = micro_ > 1 ? "micro-batch " + std::to_string(m) + ": " : "";
    in["x"] = {at(xPool_, batch * xElems * kQBytes), {s_.batch, s_.in}, kDType};
    const DeviceTensor nt{at(ntPool_, batch * yElems * 4), {s_.batch, s_.out}, DType::F32};
    const size_t row = size_t(steps_) * size_t(micro_) + size_t(m);
    const DeviceTensor cs{at(colSums_, row * size_t(s_.out) * 4), {s_.out}, DType::F32};
    const WeightCasts casts = m > 0 && staticWeights_ ? WeightCasts::Reuse : WeightCasts::Cast;
    if (Status st = train_->forward(in, {{"y", y}}, stream_, casts); !st)
      return Error(what + "forward: " + st.message());
    ++(casts == WeightCasts::Reuse ? counts_.reuse : counts_.cast);
    if (Status st = loss_->run({{"y", y}, {"nt", nt}, {"c", c}, {"dy", dy}, {"cs", cs}}, stream_);
        !st)
      return Error(what + "loss: " + st.message());
    if (Status st = train_->backward({{"y", dy}}, grads, stream_); !st)
      return Error(what + "backward: " + st.message());
    DeviceBuffer &wq = m == micro_ - 1 ? wq_ : wqScratch_; // (see above)
    if (Status st = sgd_->run({{"w", {master_[cur_].data(), flat, DType::F32}},
                               {"g", {grads_.data(), flat, kDType}},
                               {"nlr", nlr},
                               {"wn", {master_[1 - cur_].data(), flat, DType::F32}},
                               {"wq", {wq.data(), flat, kDType}}},
                              stream_);
        !st)
      return Error(what + "sgd: " + st.message());
    cur_ = 1 - cur_;
  }
  ++steps_;
  return Status::ok();
}

// A step's loss: the mean of its micro-batches' losses, each sum(cs) / n.
Expected<std::vector<double>> GpuBackend::losses() {
  FP8C_CU_TRY(drv_, cuStreamSynchronize, stream_);
  const size_t rows = size_t(steps_) * size_t(micro_), out = size_t(s_.out);
  std::vector<float> cs(rows * out);
  if (Status st = colSums_.download(cs.data(), cs.size() * 4); !st)
    return Error(st.message());
  const double n = double(s_.batch) * double(s_.out);
  std::vector<double> losses(static_cast<size_t>(steps_));
  for (size_t s = 0; s < losses.size(); ++s) {
    double mean = 0;
    for (size_t m = 0; m < size_t(micro_); ++m) {
      double sum = 0;
      for (size_t j = 0; j < out; ++j)
        sum += cs[(s * size_t(micro_) + m) * out + j];
      mean += sum / n;
    }
    losses[s] = mean / double(micro_);
  }
  return losses;
}

Expected<std::map<std::string, std::vector<float>>> GpuBackend::masterWeights() {
  FP8C_CU_TRY(drv_, cuStreamSynchronize, stream_);
  std::vector<float> flat(size_t(layout_.total));
  if (Status st = master_[cur_].download(flat.data(), flat.size() * 4); !st)
    return Error(st.message());
  std::map<std::string, std::vector<float>> out;
  for (const ParamSlot &p : layout_.slots)
    out[p.name].assign(flat.begin() + p.offset, flat.begin() + p.offset + p.elements());
  return out;
}

} // namespace

Expected<std::unique_ptr<MlpStepBackend>> makeGpuBackend(const MlpProblem &problem) {
  auto b = std::make_unique<GpuBackend>();
  if (Status st = b->init(problem); !st)
    return Error(st.message());
  return std::unique_ptr<MlpStepBackend>(std::move(b));
}

} // namespace fp8c::example
