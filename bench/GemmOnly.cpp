// The cuBLASLt FP8 GEMM peer: each GEMM of a shape on pre-quantized random e4m3 operands with
// the recipe's scale mode, straight through CublasLtRunner (runtime/gpu/CublasLtGemm.h). No
// amax, no scale computation, no cast, no activation: what the unfused path cannot go below.
#include "bench/DeviceFill.h"
#include "bench/Variants.h"
#include "runtime/DeviceTensorIO.h"
#include "runtime/gpu/CublasLtGemm.h"

#include <algorithm>
#include <cmath>

namespace fp8c::bench {
namespace {

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

class GemmOnly : public Prepared {
public:
  explicit GemmOnly(const Shape &s) : shape_(s) {}

  Status init(const std::string &recipe, int64_t l2Bytes) {
    Expected<std::unique_ptr<CublasLtRunner>> r = CublasLtRunner::create();
    if (!r)
      return Error(r.error());
    runner_ = r.take();
    GemmScaleMode mode = recipe == "rowwise"     ? GemmScaleMode::OuterVector
                         : recipe == "blockwise" ? GemmScaleMode::Block128
                                                 : GemmScaleMode::Tensor;
    std::vector<GemmDims> dims = gemmsOf(shape_);
    double setBytes = 0;
    for (const GemmDims &g : dims)
      setBytes += double(roundUp(g.k, 16)) * double(g.m + g.n);
    sets_ = std::clamp(static_cast<int>(std::ceil(3.0 * double(l2Bytes) / setBytes)), 1, 8);
    for (const GemmDims &g : dims) {
      Gemm G;
      CublasLtGemmConfig &c = G.cfg;
      int64_t ldk = roundUp(g.k, 16);
      c.m = g.m;
      c.n = g.n;
      c.k = ldk;
      c.lda = c.ldb = ldk;
      c.ldd = roundUp(g.n, 8);
      c.aType = c.bType = DType::F8E4M3FN;
      c.dType = DType::BF16;
      if (g.bias)
        c.biasType = DType::BF16;
      c.scaleMode = mode;
      c.epilogue = g.bias ? GemmEpilogue::Bias : GemmEpilogue::Default;
      c.fastAccum = mode != GemmScaleMode::Block128;
      int64_t kb = (ldk + 127) / 128;
      int64_t sa = mode == GemmScaleMode::Tensor        ? 1
                   : mode == GemmScaleMode::OuterVector ? g.m
                                                        : kb * roundUp(g.m, 4);
      int64_t sb = mode == GemmScaleMode::Tensor        ? 1
                   : mode == GemmScaleMode::OuterVector ? g.n
                                                        : ((g.n + 127) / 128) * roundUp(kb, 4);
      Expected<DeviceBuffer> d = allocateFor(size_t(g.m) * c.ldd * 2, "D");
      if (!d)
        return Error(d.error());
      DeviceBuffer bias;
      if (g.bias) {
        Expected<DeviceBuffer> b = allocateFor(size_t(g.n) * 2, "bias");
        if (!b)
          return Error(b.error());
        if (Status s = fillRandom(*b, g.n, DType::BF16, 0.1, 7); !s)
          return s;
        bias = b.take();
      }
      for (int set = 0; set < sets_; ++set) {
        // A holds x * s with x ~ N(0, 1) and s = 64 (amax about 5 sigma = 320 < 448); B holds
        // w * s with w ~ N(0, 1/K). The inverse scales undo that, so D is about x w^T.
        Expected<DeviceBuffer> a = allocateFor(size_t(g.m) * ldk, "A");
        Expected<DeviceBuffer> b = allocateFor(size_t(g.n) * ldk, "B");
        Expected<DeviceBuffer> ia = allocateFor(size_t(sa) * 4, "1/sA");
        Expected<DeviceBuffer> ib = allocateFor(size_t(sb) * 4, "1/sB");
        for (auto *x : {&a, &b, &ia, &ib})
          if (!*x)
            return Error(x->error());
        if (Status s = fillRandom(*a, g.m * ldk, DType::F8E4M3FN, 64.0, 11 + set); !s)
          return s;
        if (Status s = fillRandom(*b, g.n * ldk, DType::F8E4M3FN, 64.0, 13 + set); !s)
          return s;
        if (Status s = fillF32(*ia, sa, 1.0f / 64, nullptr); !s)
          return s;
        if (Status s = fillF32(*ib, sb, float(1.0 / (64 * std::sqrt(double(g.k)))), nullptr); !s)
          return s;
        CublasLtGemmPointers p;
        p.a = a->data();
        p.b = b->data();
        p.d = d->data();
        p.invScaleA = static_cast<const float *>(ia->data());
        p.invScaleB = static_cast<const float *>(ib->data());
        p.bias = g.bias ? bias.data() : nullptr;
        G.ptrs.push_back(p);
        for (auto *x : {&a, &b, &ia, &ib})
          bufs_.push_back(x->take());
      }
      bufs_.push_back(d.take());
      if (g.bias)
        bufs_.push_back(std::move(bias));
      if (Status s = checkCublasLtConfig(c, runner_->device().ccMajor, runner_->device().ccMinor);
          !s)
        return s;
      gemms_.push_back(std::move(G));
    }
    return Status::ok();
  }

  Status run(int set, CUstream stream) override {
    for (const Gemm &g : gemms_)
      if (Status s = runner_->run(g.cfg, g.ptrs[static_cast<size_t>(set)], stream); !s)
        return s;
    return Status::ok();
  }
  int sets() const override { return sets_; }
  int launches() const override { return static_cast<int>(gemms_.size()); }
  double floorBytes() const override { return fp8GemmBytesOf(shape_); }
  Expected<std::vector<float>> outputRows(int64_t, CUstream) override {
    return std::vector<float>{};
  }

private:
  struct Gemm {
    CublasLtGemmConfig cfg;
    std::vector<CublasLtGemmPointers> ptrs; ///< per input set
  };
  Shape shape_;
  int sets_ = 1;
  std::unique_ptr<CublasLtRunner> runner_;
  std::vector<Gemm> gemms_;
  std::vector<DeviceBuffer> bufs_;
};

} // namespace

Expected<std::unique_ptr<Prepared>> prepareGemmOnly(const Shape &s, const std::string &recipe,
                                                    int64_t l2Bytes) {
  auto p = std::make_unique<GemmOnly>(s);
  if (Status st = p->init(recipe, l2Bytes); !st)
    return Error(st.message());
  return std::unique_ptr<Prepared>(std::move(p));
}

} // namespace fp8c::bench
