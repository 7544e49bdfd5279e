// The promotion-interval probe's operands and readout (PromotionProbe.h).
#include "bench/PromotionProbe.h"

#include "runtime/cuda/CudaDriver.h"

namespace fp8c::bench {

Expected<PromotionProbe> PromotionProbe::create() {
  std::vector<uint8_t> ha(size_t(kM * kK), 0x38), hb(size_t(kN * kK), 0x04); // 1.0, 2^-7
  for (int64_t n = 0; n < kN; ++n)
    hb[size_t(n * kK + 32 * n)] = 0x7E; // 448
  const float unit = 1.0f;
  PromotionProbe p;
  auto upload = [](DeviceBuffer &dst, const void *src, size_t bytes) -> Status {
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(bytes);
    if (!buf)
      return Error("promotion probe: " + buf.error());
    dst = buf.take();
    return src ? dst.upload(src, bytes) : Status::ok();
  };
  for (Status st : {upload(p.a, ha.data(), ha.size()), upload(p.b, hb.data(), hb.size()),
                    upload(p.d, nullptr, size_t(kM * kN * 4)), upload(p.one, &unit, 4)})
    if (!st)
      return Error(st.message());
  return p;
}

CublasLtGemmConfig PromotionProbe::cublasConfig(bool fastAccum) const {
  CublasLtGemmConfig c;
  c.m = kM;
  c.n = kN;
  c.k = kK;
  c.lda = c.ldb = kK;
  c.ldd = kN;
  c.dType = DType::F32;
  c.fastAccum = fastAccum;
  return c;
}

CublasLtGemmPointers PromotionProbe::cublasPointers() const {
  CublasLtGemmPointers p;
  p.a = a.data();
  p.b = b.data();
  p.d = d.data();
  p.invScaleA = p.invScaleB = static_cast<const float *>(one.data());
  return p;
}

GemmSm90Problem PromotionProbe::problem() const { return {kM, kN, kK, kK, kK, kN}; }

GemmSm90Pointers PromotionProbe::sm90Pointers() const {
  GemmSm90Pointers p;
  p.a = a.data();
  p.b = b.data();
  p.d = d.data();
  p.invScaleA = p.invScaleB = static_cast<const float *>(one.data());
  return p;
}

Status PromotionProbe::clear() { return d.fill(0); }

Expected<std::vector<double>> PromotionProbe::lostProducts() const {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  FP8C_CU_TRY(*drv, cuCtxSynchronize);
  std::vector<float> row(static_cast<size_t>(kN));
  if (Status st = d.download(row.data(), row.size() * 4); !st)
    return Error("promotion probe: " + st.message());
  std::vector<double> lost(row.size());
  for (size_t n = 0; n < row.size(); ++n)
    lost[n] = (448.0 + double(kK - 1) / 128 - double(row[n])) * 128;
  return lost;
}

} // namespace fp8c::bench
