// The generated Hopper FP8 GEMM (runtime/gpu/GemmSm90.h) on the GPU against an f64 reference
// of the dequantized operands: random FP8 operands (never all zero) with garbage in the row
// padding, D poisoned with 0xFF (NaN in every float format) and one spare row and padded
// columns that must stay poisoned; M in {1, 7, 100, 8191, 8192}, N and K not multiples of the
// tile; every scale mode, epilogue and tile shape, in both consumer schedules (cooperative and
// ping-pong, the latter also with few persistent blocks so that each warpgroup runs many tiles,
// and K < 128 so that a tile is one ring stage). Error: relative Frobenius norm of D - ref
// (in D's stored units, i.e. times scaleD for an FP8 D). An f32 D must be within 1e-3; a
// narrower D within 1e-3 plus the error of rounding the exact result to D's dtype
// (||round(ref) - ref|| / ||ref||, about 1.1e-3 for bf16), which no kernel can avoid. Fast
// accumulation (the tensor cores' own FP8 accumulation, bit-identical to cuBLASLt's fast
// accumulation) was measured at about 4e-4 for K = 1000 (f32 D); promotion per K block adds
// in f32 (the test prints every case's error).
#include "unit/runtime/GemmSm90GpuCase.h"
#include "unit/runtime/GemmSm90GpuAux.h"
#include "unit/runtime/GemmSm90GpuBlockCast.h"
#include "unit/runtime/GemmSm90GpuBytes.h"
#include "unit/runtime/GemmSm90GpuCastAhead.h"

#include "runtime/cuda/DeviceBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace fp8c::sm90test {
namespace {

double act(double x, Activation a) {
  switch (a) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return x > 0 ? x : 0;
  case Activation::GeluTanh:
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  case Activation::GeluErf:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case Activation::Silu:
    return x / (1 + std::exp(-x));
  }
  return x;
}

/// d/dx of the tanh GELU.
double geluTanhDeriv(double x) {
  const double c = 0.7978845608028654, t = std::tanh(c * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
}

std::vector<uint8_t> bytesOf(const std::vector<float> &v, DType t) {
  std::vector<uint8_t> out(v.size() * dtypeBytes(t));
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits = encodeBits(v[i], t);
    std::memcpy(out.data() + i * dtypeBytes(t), &bits, dtypeBytes(t));
  }
  return out;
}

} // namespace

int64_t lddFor(int64_t n) { return n % 16 == 0 ? n + 16 : n % 8 == 0 ? n + 8 : n + 3; }

void runCase(GemmSm90Runner &runner, const Case &c, std::mt19937 &rng) {
  const GemmSm90Spec &k = c.k;
  SCOPED_TRACE(k.name() + " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
               " K=" + std::to_string(c.kk) + " blocks=" + std::to_string(c.maxBlocks));
  const int64_t M = c.m, N = c.n, K = c.kk;
  const int64_t lda = (K + 15) / 16 * 16 + 16, ldb = (K + 15) / 16 * 16;
  const int64_t ldd = lddFor(N);
  const int64_t kBlocks = (K + 127) / 128, nBlocks = (N + 127) / 128;
  std::uniform_real_distribution<float> val(-3.0f, 3.0f), scale(0.25f, 2.0f);
  std::uniform_int_distribution<int> byte(0, 255);

  // FP8 operands with random garbage (never NaN) in the padding columns past K.
  auto operand = [&](int64_t rows, int64_t ld, DType t, std::vector<uint8_t> &bytes,
                     std::vector<double> &deq) {
    bytes.assign(size_t(rows * ld), 0);
    deq.assign(size_t(rows * K), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < ld; ++j) {
        uint8_t q = floatToFp8(val(rng), t);
        if (j >= K)
          q = uint8_t(byte(rng) & 0x3F); // finite garbage the kernel must not read
        else
          deq[size_t(r * K + j)] = fp8ToFloat(q, t);
        bytes[size_t(r * ld + j)] = q;
      }
  };
  std::vector<uint8_t> aBytes, bBytes;
  std::vector<double> a, b;
  operand(M, lda, k.aType, aBytes, a);
  operand(N, ldb, k.bType, bBytes, b);
  // The dual GEMM (swiglu): the up weight, [N, K] like the gate's B, with its own scale; D's
  // reference is bf16(silu(gate) * up) of the bf16-rounded f64 gate and up (the graph's
  // roundings).
  std::vector<uint8_t> b2Bytes;
  std::vector<double> b2;
  if (k.swiglu)
    operand(N, ldb, k.bType, b2Bytes, b2);
  // The bf16-A prologue (castA) and cast-ahead A (castAhead): A is bf16 (NaN garbage past K,
  // about 1 % of the elements large enough to saturate), quantized by the kernel with quantA
  // (tensor or per row); the reference quantizes it on the host the same way (f32 product,
  // RNE, saturating) into aBytes / a, and the kernel's D must equal, bit for bit, the same
  // config's D on those FP8 bytes (cast off), besides the f64 reference's tolerance. Cast-ahead
  // A's FP8 copy must equal aBytes within K, and its counters must be zero after every run.
  const bool bf16A = k.castA || k.castAhead;
  std::vector<uint16_t> a16;
  std::vector<float> quantA;
  float amaxA = 0;
  if (bf16A) {
    const int64_t ld16 = lda; // elements; a multiple of 8
    a16.assign(size_t(M * ld16), 0);
    std::uniform_real_distribution<float> q(0.5f, 40.0f);
    std::uniform_int_distribution<int> pct(0, 99);
    quantA.assign(k.scaleMode == GemmScaleMode::OuterVector ? size_t(M) : 1, 0.0f);
    for (float &x : quantA)
      x = q(rng);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < ld16; ++j) {
        float v = val(rng) * 4.0f;
        if (pct(rng) == 0)
          v *= 100.0f;
        const uint16_t h = floatToBf16(v);
        a16[size_t(r * ld16 + j)] = j < K ? h : uint16_t(0x7F80 | (byte(rng) & 0x3F)); // NaN pad
        if (j >= K)
          continue;
        const float x = bf16ToFloat(h);
        amaxA = std::max(amaxA, std::fabs(x));
        const float s = quantA[quantA.size() == 1 ? 0 : size_t(r)];
        const uint8_t q8 = floatToFp8(x * s, k.aType);
        aBytes[size_t(r * lda + j)] = q8;
        a[size_t(r * K + j)] = fp8ToFloat(q8, k.aType);
      }
  }

  GemmSm90Problem prob{M, N, K, lda, ldb, ldd};
  std::vector<float> sa, sb;
  if (k.scaleMode == GemmScaleMode::Tensor) {
    sa = {scale(rng)};
    sb = {scale(rng), scale(rng)}; // [1]: the up weight's scale (swiglu)
  } else if (k.scaleMode == GemmScaleMode::OuterVector) {
    for (int64_t i = 0; i < M; ++i)
      sa.push_back(scale(rng));
    // With swiglu, the up weight's N scales follow the gate weight's.
    for (int64_t i = 0; i < (k.swiglu ? 2 : 1) * N; ++i)
      sb.push_back(scale(rng));
  } else {
    prob.ldsa = (M + 3) / 4 * 4;
    prob.ldsb = (kBlocks + 3) / 4 * 4;
    sa.resize(size_t(kBlocks * prob.ldsa));
    // With swiglu, the up weight's grid follows the gate weight's.
    sb.resize(size_t((k.swiglu ? 2 : 1) * nBlocks * prob.ldsb));
    for (float &x : sa)
      x = scale(rng);
    for (float &x : sb)
      x = scale(rng);
  }
  std::vector<float> bias;
  if (k.biasType)
    for (int64_t i = 0; i < N; ++i)
      bias.push_back(roundToDType(val(rng), *k.biasType));
  // An FP8 D's scale: 0.75, or for swiglu (products of two K-long dot products, far past the
  // FP8 range) 256 / the reference's amax, set once the reference is known.
  float scaleD = 0.75f;
  // The epilogue's input x: bf16 [M, N], pitch N + 8, NaN in the padding (the kernel must not
  // read it); D's reference is then y * gelu'(x) (gelu_grad), or bf16(act(y)) + x (the
  // residual add). With geluGradInFp8, x is e4m3 [M, N] (pitch N + 16, NaN codes in the
  // padding), and every code but the NaNs occurs (every seventh element a random code: values
  // up to 448 in magnitude, zeros and subnormals).
  const bool fp8In = k.geluGradIn && k.geluGradInFp8;
  prob.ldIn = N + (fp8In ? 16 : 8);
  std::vector<uint16_t> xin;
  std::vector<uint8_t> xin8;
  if (fp8In) {
    xin8.assign(size_t(M * prob.ldIn), uint8_t(0x7F));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        xin8[size_t(i * prob.ldIn + j)] =
            (i * N + j) % 7 == 3 ? uint8_t(rng() % 127u | (rng() & 0x80u))
                                 : floatToFp8(2.0f * val(rng), DType::F8E4M3FN);
  } else if (k.geluGradIn || k.residualIn) {
    xin.assign(size_t(M * prob.ldIn), uint16_t(0x7FC1));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        xin[size_t(i * prob.ldIn + j)] = floatToBf16(2.0f * val(rng));
  }
  auto inputAt = [&](int64_t i, int64_t j) -> double {
    if (fp8In)
      return fp8ToFloat(xin8[size_t(i * prob.ldIn + j)], DType::F8E4M3FN);
    return k.geluGradIn || k.residualIn ? bf16ToFloat(xin[size_t(i * prob.ldIn + j)]) : 0.0;
  };

  // f64 reference (threads over rows); `pre` before the activation.
  std::vector<double> ref(size_t(M * N)), pre(size_t(M * N));
  // Row i of A times row j of `w` (B or B2), each 128-wide K block scaled by its 1x128 and
  // 128x128 block scales with Block128 (B2's grid follows B's, from grid row nb0).
  auto dot = [&](const std::vector<double> &w, int64_t i, int64_t j, int64_t nb0) {
    double acc = 0;
    for (int64_t kb = 0; kb < kBlocks; ++kb) {
      double part = 0;
      for (int64_t x = kb * 128; x < std::min(K, kb * 128 + 128); ++x)
        part += a[size_t(i * K + x)] * w[size_t(j * K + x)];
      if (k.scaleMode == GemmScaleMode::Block128)
        part *= double(sa[size_t(kb * prob.ldsa + i)]) *
                double(sb[size_t((nb0 + j / 128) * prob.ldsb + kb)]);
      acc += part;
    }
    return acc;
  };
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = dot(b, i, j, 0);
        if (k.scaleMode == GemmScaleMode::Tensor)
          acc *= double(sa[0]) * double(sb[0]);
        else if (k.scaleMode == GemmScaleMode::OuterVector)
          acc *= double(sa[size_t(i)]) * double(sb[size_t(j)]);
        if (k.biasType)
          acc += bias[size_t(j)];
        if (k.swiglu) {
          double up = dot(b2, i, j, nBlocks);
          if (k.scaleMode == GemmScaleMode::Tensor)
            up *= double(sa[0]) * double(sb[1]);
          else if (k.scaleMode == GemmScaleMode::OuterVector)
            up *= double(sa[size_t(i)]) * double(sb[size_t(N + j)]);
          const double g = bf16ToFloat(floatToBf16(float(acc)));
          const double u = bf16ToFloat(floatToBf16(float(up)));
          acc = g / (1 + std::exp(-g)) * u;
        }
        pre[size_t(i * N + j)] = acc;
        const double x = inputAt(i, j);
        ref[size_t(i * N + j)] =
            k.geluGradIn   ? acc * geluTanhDeriv(x)
            : k.residualIn ? bf16ToFloat(floatToBf16(float(act(acc, k.activation)))) + x
                           : act(acc, k.activation);
      }
  };
  {
    const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 32);
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t)
      pool.emplace_back(rows, M * t / threads, M * (t + 1) / threads);
    for (std::thread &t : pool)
      t.join();
  }

  if (k.swiglu && isFloat8(k.dType)) {
    double top = 0;
    for (double r : ref)
      top = std::max(top, std::fabs(r));
    scaleD = float(256.0 / std::max(top, 1e-30));
  }
  DeviceBuffer dA = upload(aBytes.data(), aBytes.size()), dB = upload(bBytes.data(), bBytes.size());
  // A MN-major (aTransposed): the kernel reads A^T [K, M] (pitch M rounded up to 16, plus 16;
  // finite garbage past M), and its D must equal, bit for bit, the same config's on the K-major
  // A (the fragments hold the same values in the same K order).
  const int64_t ldaT = (M + 15) / 16 * 16 + 16;
  const std::vector<uint8_t> atBytes =
      k.aTransposed ? transposedOperand(aBytes, M, K, lda, ldaT, rng) : std::vector<uint8_t>{};
  DeviceBuffer dAT = upload(atBytes.data(), atBytes.size());
  if (k.aTransposed)
    prob.lda = ldaT;
  DeviceBuffer dB2 = upload(b2Bytes.data(), b2Bytes.size());
  DeviceBuffer dA16 = upload(a16.data(), a16.size() * 2);
  DeviceBuffer dQuantA = upload(quantA.data(), quantA.size() * 4);
  const float zeroA = 0;
  DeviceBuffer dAmaxA = upload(&zeroA, 4);
  DeviceBuffer dSa = upload(sa.data(), sa.size() * 4), dSb = upload(sb.data(), sb.size() * 4);
  std::vector<uint8_t> biasBytes = k.biasType ? bytesOf(bias, *k.biasType) : std::vector<uint8_t>{};
  DeviceBuffer dBias = upload(biasBytes.data(), biasBytes.size());
  const float zero = 0;
  // amaxD: one f32, or with amaxRows one per row of D (zeroed).
  const std::vector<float> zeros(k.amaxRows ? size_t(M) : 1, 0.0f);
  DeviceBuffer dAmax = upload(zeros.data(), zeros.size() * 4), dScaleD = upload(&scaleD, 4);
  const int eb = dtypeBytes(k.dType);
  const size_t dBytes = size_t((M + 1) * ldd * eb);
  Expected<DeviceBuffer> dD = DeviceBuffer::allocate(dBytes);
  ASSERT_TRUE(dD.hasValue());
  ASSERT_TRUE(dD->fill(0xFF).isOk());

  GemmSm90Pointers p;
  p.a = bf16A ? dA16.data() : k.aTransposed ? dAT.data() : dA.data();
  p.quantScaleA = bf16A ? static_cast<const float *>(dQuantA.data()) : nullptr;
  // Cast-ahead A: the FP8 copy (A's pitch, poisoned, a spare row) and its counters (zero, one
  // spare counter poisoned after them).
  const int64_t counters = gemmSm90CastAheadCounters(M);
  Expected<DeviceBuffer> dACast = DeviceBuffer::allocate(size_t((M + 1) * lda));
  ASSERT_TRUE(dACast.hasValue());
  ASSERT_TRUE(dACast->fill(0xFF).isOk());
  std::vector<uint32_t> readyInit(size_t(counters + 1), 0u);
  readyInit.back() = 0xFFFFFFFFu;
  DeviceBuffer dReady = upload(readyInit.data(), readyInit.size() * 4);
  if (k.castAhead) {
    prob.ldaCast = lda;
    p.aCast = dACast->data();
    p.aReady = static_cast<uint32_t *>(dReady.data());
  }
  p.amaxA = k.amaxA ? static_cast<float *>(dAmaxA.data()) : nullptr;
  p.b = dB.data();
  p.d = dD->data();
  p.invScaleA = static_cast<const float *>(dSa.data());
  p.invScaleB = static_cast<const float *>(dSb.data());
  if (k.swiglu) {
    p.b2 = dB2.data();
    p.invScaleB2 = static_cast<const float *>(dSb.data()) +
                   (k.scaleMode == GemmScaleMode::Block128     ? nBlocks * prob.ldsb
                    : k.scaleMode == GemmScaleMode::OuterVector ? N
                                                                : 1);
  }
  p.bias = k.biasType ? dBias.data() : nullptr;
  p.amaxD = k.amaxD ? static_cast<float *>(dAmax.data()) : nullptr;
  p.scaleD = static_cast<const float *>(dScaleD.data());
  // Extra outputs: the bf16 pre-activation [M, N] (pitch N + 8; its e4m3 copy: N + 16) and D^T
  // [N, M] (pitch of whole 16-byte units with 16 to 31 spare columns), each with a spare row,
  // poisoned.
  const int auxElem = k.auxFp8 ? 1 : 2;
  prob.ldAux = N + 16 / auxElem;
  prob.ldDT = (M + 15) / 16 * 16 + 16;
  const size_t auxBytes = size_t((M + 1) * prob.ldAux * auxElem),
               dtBytes = size_t((N + 1) * prob.ldDT);
  Expected<DeviceBuffer> dAux = DeviceBuffer::allocate(k.auxOut ? auxBytes : 16);
  Expected<DeviceBuffer> dDT = DeviceBuffer::allocate(k.transD ? dtBytes : 16);
  ASSERT_TRUE(dAux.hasValue() && dDT.hasValue());
  ASSERT_TRUE(dAux->fill(0xFF).isOk() && dDT->fill(0xFF).isOk());
  p.aux = k.auxOut ? dAux->data() : nullptr;
  p.dT = k.transD ? dDT->data() : nullptr;
  DeviceBuffer dIn = fp8In ? upload(xin8.data(), xin8.size()) : upload(xin.data(), xin.size() * 2);
  p.epiIn = k.geluGradIn || k.residualIn ? dIn.data() : nullptr;
  // Column sums: [N] with a spare element, and the partials' workspace with a spare 64-row
  // slice after it, both poisoned.
  const int sumBytes = k.colSumType ? dtypeBytes(*k.colSumType) : 4;
  const size_t partBytes = size_t(gemmSm90ColPartials(M, N) * 4);
  Expected<DeviceBuffer> dSums = DeviceBuffer::allocate(size_t((N + 1) * sumBytes));
  Expected<DeviceBuffer> dPart = DeviceBuffer::allocate(partBytes + size_t(N * 4));
  ASSERT_TRUE(dSums.hasValue() && dPart.hasValue());
  ASSERT_TRUE(dSums->fill(0xFF).isOk() && dPart->fill(0xFF).isOk());
  p.colSums = k.colSumType ? dSums->data() : nullptr;
  p.colPartials = k.colSumType ? static_cast<float *>(dPart->data()) : nullptr;
  // The 1x128-block cast: the scales [M, nBlocks] and inverses [nBlocks, M] with a spare
  // column / row past each, poisoned; margin and power-of-two rounding varied with the case.
  const int64_t ldbs = nBlocks + 1, ldbi = M + 3;
  prob.ldBlockScale = ldbs;
  prob.ldBlockInv = ldbi;
  prob.castMargin = M % 3 == 0 ? 1 : 0;
  prob.castPow2 = M % 2 == 1;
  const size_t bsBytes = size_t((M + 1) * ldbs * 4), biBytes = size_t((nBlocks + 1) * ldbi * 4);
  Expected<DeviceBuffer> dBs = DeviceBuffer::allocate(k.blockCast ? bsBytes : 16);
  Expected<DeviceBuffer> dBi = DeviceBuffer::allocate(k.blockCast ? biBytes : 16);
  ASSERT_TRUE(dBs.hasValue() && dBi.hasValue());
  ASSERT_TRUE(dBs->fill(0xFF).isOk() && dBi->fill(0xFF).isOk());
  p.blockScale = k.blockCast ? static_cast<float *>(dBs->data()) : nullptr;
  p.blockInv = k.blockCast ? static_cast<float *>(dBi->data()) : nullptr;
  Status st = runner.run(k, prob, p, nullptr, 0, c.maxBlocks);
  ASSERT_TRUE(st.isOk()) << st.message();
  CudaDriver *drv = *CudaDriver::get();
  ASSERT_EQ(drv->cuCtxSynchronize(), CUDA_SUCCESS);
  if (k.blockCast) {
    checkBlockCast(k, prob, pre, [&](double x) { return act(x, k.activation); }, *dBs, *dBi, ref);
    scaleD = 1.0f; // ref now holds v * its block's scale
  }
  if (k.auxOut)
    checkPreActivation(
        k, prob, pre, [&](double x) { return act(x, k.activation); }, *dAux, c.tol, ref);

  std::vector<uint8_t> out(dBytes);
  ASSERT_TRUE(dD->download(out.data(), dBytes).isOk());
  double norm = 0, roundErr = 0, roundMax = 0, refAmax = 0;
  std::vector<double> refRowAmax(size_t(M), 0.0), gotRowMax(size_t(M), 0.0);
  std::vector<double> gots(size_t(M * N)), wants(size_t(M * N));
  int64_t clobbered = 0;
  for (int64_t i = 0; i <= M; ++i)
    for (int64_t j = 0; j < ldd; ++j) {
      const uint8_t *e = out.data() + size_t((i * ldd + j) * eb);
      bool poisoned = true;
      for (int x = 0; x < eb; ++x)
        poisoned &= e[x] == 0xFF;
      if (i == M || j >= N) {
        clobbered += !poisoned;
        continue;
      }
      uint32_t bits = 0;
      std::memcpy(&bits, e, size_t(eb));
      const float got = decodeBits(bits, k.dType);
      const double r = ref[size_t(i * N + j)];
      refAmax = std::max(refAmax, std::fabs(r));
      refRowAmax[size_t(i)] = std::max(refRowAmax[size_t(i)], std::fabs(r));
      gotRowMax[size_t(i)] =
          std::max(gotRowMax[size_t(i)], std::fabs(double(got)) / (isFloat8(k.dType) ? scaleD : 1.0));
      const double want = isFloat8(k.dType) ? r * scaleD : r;
      const double rounded = double(roundToDType(float(want), k.dType));
      gots[size_t(i * N + j)] = got;
      wants[size_t(i * N + j)] = want;
      roundErr += (rounded - want) * (rounded - want);
      roundMax = std::max(roundMax, std::fabs(rounded - want));
      norm += want * want;
    }
  EXPECT_EQ(clobbered, 0) << "writes outside [M, N]";
  const double relRound = std::sqrt(roundErr / std::max(norm, 1e-300));
  EXPECT_GT(norm, 0);
  // The largest element error, relative to max |want|: D's own rounding (half a step of D's
  // dtype, relative to the element, or the largest rounding of the exact result where it
  // saturates an FP8 D), the accumulation's error (Compare.h's tail factor times the
  // case's Frobenius tolerance), and one bf16 step (2^-7 of the value) for each bf16 rounding of
  // an intermediate value that the kernel, from sums in another order, may land one step away
  // from the reference's: the extra-output epilogue's activation of the bf16 pre-activation, the
  // amax-side roundings and gelu_grad's (as the amax bound below), the residual add's rounded
  // activation, swiglu's gate and up, and the 1x128 block cast's two roundings (v = bf16(act(
  // bf16(y)))). One wrong column, row or tile moves an element by O(max |want|).
  const bool roundedPre =
      k.extraOutputs() && (!k.auxOut || k.auxFp8) && k.activation != Activation::None;
  const double bf16Step = testcmp::fullStep(DType::BF16);
  double wantMax = 0;
  for (double w : wants)
    wantMax = std::max(wantMax, std::fabs(w));
  const double maxTol = std::max(testcmp::halfStep(k.dType), roundMax / std::max(wantMax, 1e-300)) +
                        testcmp::kAccumulationTail * c.tol +
                        (k.geluGradIn || roundedPre || k.auxBesideBf16D() ? bf16Step : 0.0) +
                        (k.residualIn ? bf16Step : 0.0) + (k.swiglu ? 2 * bf16Step : 0.0) +
                        (k.blockCast ? 2 * bf16Step : 0.0);
  const testcmp::Comparison cmp = testcmp::compare(gots, wants, {M, N});
  const double rel = cmp.relFrobenius();
  EXPECT_TRUE(cmp.within({relRound + c.tol, maxTol}))
      << "D against the f64 reference (Frobenius bound: the output rounding's " << relRound
      << " plus " << c.tol << ")";
  std::vector<float> amaxes(zeros.size(), 0.0f);
  if (k.amaxD) {
    ASSERT_TRUE(dAmax.download(amaxes.data(), amaxes.size() * 4).isOk());
    // The largest element carries the tensor cores' accumulation error: with fast accumulation
    // (FP8 wgmma's own sums over all of K) it was seen at 1.3e-3 of the f64 value at K = 1000
    // (bias + GELU, FP8 D); promoted sums stay within 1e-3. Per row, the same bound.
    // With geluGradIn, residualIn or swiglu the amax is of bf16-rounded values (for swiglu, of
    // bf16-rounded gate and up too; for the residual add, of the rounded activation and sum),
    // and the extra-output epilogue activates the bf16-rounded pre-activation (the reference
    // here, without auxOut, the f64 one): plus 2^-8 relative per rounding.
    const bool roundedAct =
        k.extraOutputs() && (!k.auxOut || k.auxFp8) && k.activation != Activation::None;
    // A bf16 D beside the pre-activation: the amax is of the bf16 values stored (plus 2^-8
    // against the unrounded reference), and equal to the largest stored magnitude.
    const double tol = (k.promotes() ? 1e-3 : 2e-3) +
                       (k.geluGradIn || roundedAct || k.auxBesideBf16D() ? 0x1p-8 : 0.0) +
                       (k.residualIn ? 0x1p-7 : 0.0) + (k.swiglu ? 0x1p-7 : 0.0);
    if (!k.amaxRows) {
      EXPECT_NEAR(amaxes[0], refAmax, tol * refAmax);
      if (k.auxBesideBf16D())
        EXPECT_EQ(double(amaxes[0]), *std::max_element(gotRowMax.begin(), gotRowMax.end()))
            << "the amax is not the largest bf16 magnitude stored";
    } else {
      // Per row: the row's largest element, with its accumulation error, against the f64
      // reference (a max over 8191 rows meets the tail of that error: 2 rows beyond 2e-3 were
      // seen at K = 1000 with fast accumulation, so 1e-2 here); and against the largest
      // magnitude the kernel stored in that row, within the rounding to D's dtype (which
      // catches a wrong row or a missed column exactly).
      const double unit = k.dType == DType::BF16       ? 0x1p-8
                          : k.dType == DType::F16      ? 0x1p-11
                          : k.dType == DType::F8E4M3FN ? 0x1p-3
                          : k.dType == DType::F8E5M2   ? 0x1p-2
                                                       : 1e-6;
      // With the residual add, the row's largest sum may partly cancel its GEMM value (whose
      // error then weighs more) and goes through two bf16 roundings: plus 2^-7 (one row of
      // 777 was seen 1e-2 off with row scales, bias and GELU).
      // With swiglu the row's largest h goes through three bf16 roundings (gate, up, h) of
      // values that differ from the reference's by the GEMM's error, so each may land one bf16
      // step (2^-8 relative) away from the reference's: plus 3 * 2^-8 (the rowwise dual GEMM
      // at M 8191, K 1000 had 21 rows beyond 1e-2).
      const double rowTol = 1e-2 + (k.residualIn ? 0x1p-7 : 0.0) + (k.swiglu ? 3 * 0x1p-8 : 0.0);
      int64_t offRef = 0, offStored = 0;
      double worst = 0;
      for (int64_t i = 0; i < M; ++i) {
        const double a = amaxes[size_t(i)], dev = std::fabs(a - refRowAmax[size_t(i)]);
        worst = std::max(worst, dev / std::max(refRowAmax[size_t(i)], 1e-30));
        offRef += dev > rowTol * refRowAmax[size_t(i)] + 1e-30;
        offStored += std::fabs(a - gotRowMax[size_t(i)]) > unit * gotRowMax[size_t(i)] + 1e-30;
      }
      std::printf("[ gemm sm90 ] row amax: largest deviation from the reference %.2e of the "
                  "row's amax (bound %.2e)\n", worst, rowTol);
      EXPECT_EQ(offRef, 0) << "rows whose amax is off the reference";
      EXPECT_EQ(offStored, 0) << "rows whose amax is off the row's largest stored magnitude";
    }
  }
  if (k.transD) {
    // D^T: bit for bit D transposed; its columns from M to M rounded up to 16 are written as
    // zeros; the rest of the padding and the spare row are untouched.
    std::vector<uint8_t> dt(dtBytes);
    ASSERT_TRUE(dDT->download(dt.data(), dtBytes).isOk());
    int64_t differ = 0, badPad = 0;
    const int64_t unitEnd = (M + 15) / 16 * 16;
    for (int64_t j = 0; j <= N; ++j)
      for (int64_t i = 0; i < prob.ldDT; ++i) {
        const uint8_t v = dt[size_t(j * prob.ldDT + i)];
        if (j < N && i < M)
          differ += v != out[size_t(i * ldd + j)];
        else if (j < N && i < unitEnd)
          badPad += v != 0;
        else
          badPad += v != 0xFF;
      }
    EXPECT_EQ(differ, 0) << "bytes of D^T that differ from D transposed";
    EXPECT_EQ(badPad, 0) << "D^T pad columns not zero, or writes past them";
  }
  if (k.colSumType) {
    // The column sums of the epilogue's values over the M rows against the f64 ones: as a
    // vector within 1e-2 relative (Frobenius; the bf16 roundings of y and of each value, 2^-9
    // each, the output's rounding and the accumulation error: a missed 64-row slice or column
    // is far beyond it), and each column within 2e-2 of its sum of magnitudes plus the output's
    // rounding (a single row's value, M = 1, carries the GEMM's accumulation error relative to
    // its dot product, not to itself); the spare element untouched; and a second run writes
    // the same bytes (the partials are added in a fixed order).
    const size_t bytes = size_t((N + 1) * sumBytes);
    std::vector<uint8_t> sums(bytes), again(bytes);
    ASSERT_TRUE(dSums->download(sums.data(), bytes).isOk());
    const double unit = *k.colSumType == DType::BF16 ? 0x1p-8 : *k.colSumType == DType::F16 ? 0x1p-11 : 0;
    std::vector<double> wants(size_t(N), 0.0), mags(size_t(N), 0.0), gots(size_t(N), 0.0);
    double e2 = 0, w2 = 0;
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t i = 0; i < M; ++i) {
        wants[size_t(j)] += ref[size_t(i * N + j)];
        mags[size_t(j)] += std::fabs(ref[size_t(i * N + j)]);
      }
      uint32_t bits = 0;
      std::memcpy(&bits, sums.data() + size_t(j * sumBytes), size_t(sumBytes));
      gots[size_t(j)] = decodeBits(bits, *k.colSumType);
      e2 += (gots[size_t(j)] - wants[size_t(j)]) * (gots[size_t(j)] - wants[size_t(j)]);
      w2 += wants[size_t(j)] * wants[size_t(j)];
    }
    // Per column, also 1e-2 of the sums' RMS: a value whose dot product cancels (M = 1 saw one
    // column 2.4 % off its own small value) carries an error relative to the products.
    const double rms = std::sqrt(w2 / double(N));
    int64_t off = 0;
    for (int64_t j = 0; j < N; ++j)
      off += !(std::fabs(gots[size_t(j)] - wants[size_t(j)]) <=
               2e-2 * mags[size_t(j)] + unit * std::fabs(wants[size_t(j)]) + 1e-2 * rms + 1e-30);
    EXPECT_EQ(off, 0) << "columns whose sum is off the reference";
    EXPECT_LT(std::sqrt(e2 / std::max(w2, 1e-300)), 1e-2) << "column sums' relative error";
    uint32_t spare = 0;
    std::memcpy(&spare, sums.data() + size_t(N * sumBytes), size_t(sumBytes));
    EXPECT_EQ(spare, sumBytes == 4 ? 0xFFFFFFFFu : 0xFFFFu) << "column sums written past N";
    // The workspace holds ceil(M/64) slices: a tile's 64-row half at or past M writes none.
    std::vector<uint32_t> spareSlice(static_cast<size_t>(N));
    ASSERT_TRUE(dPart->download(spareSlice.data(), size_t(N * 4), partBytes).isOk());
    EXPECT_EQ(int64_t(std::count(spareSlice.begin(), spareSlice.end(), 0xFFFFFFFFu)), N)
        << "column partial sums written past ceil(M/64) slices";
    ASSERT_TRUE(runner.run(k, prob, p, nullptr, 0, c.maxBlocks).isOk());
    ASSERT_EQ(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_TRUE(dSums->download(again.data(), bytes).isOk());
    EXPECT_EQ(sums, again) << "column sums differ between two runs";
  }
  if (k.aTransposed) {
    GemmSm90Spec kMajor = k;
    kMajor.aTransposed = false;
    GemmSm90Pointers pk = p;
    pk.a = dA.data();
    GemmSm90Problem probKMajor = prob;
    probKMajor.lda = lda;
    sameBytes(runner, kMajor, probKMajor, pk, c.maxBlocks, dBytes, dAmax, out,
              "bytes of D that differ from the K-major A kernel " + kMajor.name());
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
  } else if (launchedGemmSm90Kernel(k, prob).epilogueBuffers() > 0 && !k.extraOutputs()) {
    // The TMA-store epilogue against the register epilogue of the same config: D (padding
    // included) and amax bit for bit.
    GemmSm90Spec regs = k;
    regs.tmaStore = false;
    sameBytes(runner, regs, prob, p, c.maxBlocks, dBytes, dAmax, out,
              "bytes of D that differ from the register epilogue's");
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    if (k.amaxD) {
      std::vector<float> amaxR(amaxes.size(), -1.0f);
      ASSERT_TRUE(dAmax.download(amaxR.data(), amaxR.size() * 4).isOk());
      EXPECT_EQ(amaxes, amaxR) << "amax of the TMA-store and register epilogues";
    }
  }
  if (k.amaxA) {
    float got = -1;
    ASSERT_TRUE(dAmaxA.download(&got, 4).isOk());
    EXPECT_EQ(got, amaxA) << "amax of the bf16 A";
  }
  if (k.castAhead) {
    checkCastAhead(*dACast, dReady, aBytes, M, K, lda, counters);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
  }
  if (bf16A) {
    // The same config on the host-quantized FP8 A: D bit for bit (amaxD starts again at 0).
    GemmSm90Spec fp8 = k;
    fp8.castA = false;
    fp8.castAhead = false;
    fp8.amaxA = false;
    GemmSm90Pointers p8 = p;
    p8.a = dA.data();
    p8.quantScaleA = nullptr;
    p8.amaxA = nullptr;
    sameBytes(runner, fp8, prob, p8, c.maxBlocks, dBytes, dAmax, out,
              "bytes of D that differ from the FP8-A kernel " + fp8.name());
  }
  std::printf("[ gemm sm90 ] %-62s M=%-5lld N=%-4lld K=%-4lld rel err %.2e (rounding to D "
              "alone %.2e)\n",
              k.name().c_str(), (long long)M, (long long)N, (long long)K, rel, relRound);
}

std::unique_ptr<GemmSm90Runner> makeRunner() {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv || !(*drv)->makeCurrent(0))
    return nullptr;
  Expected<std::unique_ptr<GemmSm90Runner>> r = GemmSm90Runner::create();
  return r ? r.take() : nullptr;
}

} // namespace fp8c::sm90test
