// fp8c-gemm-bench's gelu_grad section (--dgelu-shape M K N): the MLP backward's second dgrad GEMM in its three forms on the same operands, so the
// extra-output epilogue's cost is read against the plain GEMM's:
//   - the plain promoting GEMM into bf16 (the unfused form's GEMM; the cast-transpose launch
//     after it is not timed here), also at 128 x 128 with the offloaded epilogue's 4-stage ring,
//   - the fused form with the epilogue on the consumer warps (the heuristic's 128 x 192 x 5 and
//     128 x 128 x 5),
//   - the fused form with the epilogue on the producer's idle warps (epilogueWarps, 128 x 128
//     x 4; gemm_sm90_offload.cuh), reading the saved input in bf16 and as its e4m3 copy (the
//     delayed recipe's gelu_saved=e4m3; the derivative from tables).
// The fused forms write the FP8 gelu_grad, its amax, its transpose and the column sums, reading
// the GELU's saved input (bf16 [M, N], a constant pattern; the e4m3 copy: codes of N(0, 1)
// values, so the table lookups meet the bank conflicts of real data). A e4m3 (the step's is
// e5m2; the wgmma rate is the same), tensor scales, no fast accumulation. The fused forms' D,
// D^T and sums over the bf16 input are compared byte for byte with the first fused form's.
#include "bench/GemmSm90BenchCommon.h"

#include "ir/DType.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace fp8c::gemmbench {

void benchGeluGrad(GemmSm90Runner &g, const Shape &s) {
  Operands o = makeOperands(s, g.device());
  const double flop = 2.0 * s.m * s.n * s.k;
  const int reps = repsFor(s);
  std::printf("\n[t=%.1fs] gelu_grad dgrad GEMM forms, M=%lld K=%lld N=%lld (promotion)\n",
              elapsedS(), (long long)s.m, (long long)s.k, (long long)s.n);
  if (s.n % 16 != 0)
    die("--dgelu-shape: N must be a multiple of 16 (D^T and the TMA stores)");
  const int64_t ldDT = (s.m + 15) / 16 * 16;
  DeviceBuffer x = alloc(size_t(s.m * s.n * 2));
  x.fill(0x3F); // bf16 0x3F3F = 0.748
  DeviceBuffer x8 = alloc(size_t(s.m * s.n));
  {
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<uint8_t> codes(size_t(s.m * s.n));
    for (uint8_t &c : codes)
      c = floatToFp8(nd(rng), DType::F8E4M3FN);
    if (Status st = x8.upload(codes.data(), codes.size()); !st)
      die(st.message());
  }
  DeviceBuffer d8 = alloc(size_t(s.m * s.n)), dT = alloc(size_t(s.n * ldDT));
  DeviceBuffer sums = alloc(size_t(s.n * 2)), part = alloc(size_t(gemmSm90ColPartials(s.m, s.n) * 4));
  DeviceBuffer amax = alloc(16), scaleD = scalars({0.5f});
  amax.fill(0);

  GemmSm90Problem prob{s.m, s.n, s.k, s.k, s.k, s.n};
  prob.ldDT = ldDT;
  prob.ldIn = s.n;
  GemmSm90Spec plain;
  plain.fastAccum = false;
  GemmSm90Spec fused = plain;
  fused.dType = DType::F8E4M3FN;
  fused.amaxD = fused.transD = fused.geluGradIn = true;
  fused.colSumType = DType::BF16;
  GemmSm90Spec fused8 = fused;
  fused8.geluGradInFp8 = true;
  struct Form {
    std::string label;
    GemmSm90Spec k;
  };
  auto tile = [](GemmSm90Spec k, int bn, int stages, bool ew = false) {
    k.schedule = GemmSchedule::Cooperative;
    k.bm = 128;
    k.bn = bn;
    k.stages = stages;
    k.overlap = false;
    k.epilogueWarps = ew;
    return k;
  };
  const std::vector<Form> forms{
      {"plain, bf16 D, 128 x 192 x 5", tile(plain, 192, 5)},
      {"plain, bf16 D, 128 x 128 x 6", tile(plain, 128, 6)},
      {"plain, bf16 D, 128 x 128 x 4 (EW's ring)", tile(plain, 128, 4)},
      {"fused, consumer warps, 128 x 192 x 5", tile(fused, 192, 5)},
      {"fused, consumer warps, 128 x 128 x 5", tile(fused, 128, 5)},
      {"fused, epilogue warps, 128 x 128 x 4", tile(fused, 128, 4, true)},
      {"fused, e4m3 input, epilogue warps", tile(fused8, 128, 4, true)},
  };
  std::vector<uint8_t> firstD, firstT, firstSums;
  for (const Form &f : forms) {
    if (Status st = checkGemmSm90(f.k, prob); !st) {
      std::printf("  %-40s (%s)\n", f.label.c_str(), st.message().c_str());
      continue;
    }
    const bool isFused = f.k.geluGradIn;
    auto ptrs = [&](int i) {
      GemmSm90Pointers p;
      p.a = o.a.data();
      p.b = o.b[size_t(i) % o.b.size()].data();
      p.d = isFused ? d8.data() : o.d.data();
      p.invScaleA = static_cast<const float *>(o.sa.data());
      p.invScaleB = static_cast<const float *>(o.sb.data());
      if (isFused) {
        p.amaxD = static_cast<float *>(amax.data());
        p.scaleD = static_cast<const float *>(scaleD.data());
        p.dT = dT.data();
        p.epiIn = f.k.geluGradInFp8 ? x8.data() : x.data();
        p.colSums = sums.data();
        p.colPartials = static_cast<float *>(part.data());
      }
      return p;
    };
    dumpCubin(g, f.k);
    const double ms = timeMs(reps, [&](int i) { return g.run(f.k, prob, ptrs(i), nullptr); });
    std::string same;
    if (isFused && !f.k.geluGradInFp8) {
      if (Status st = g.run(f.k, prob, ptrs(0), nullptr); !st)
        die(st.message());
      drv->cuCtxSynchronize();
      std::vector<uint8_t> outD(size_t(s.m * s.n)), outT(size_t(s.n * ldDT)), outS(size_t(s.n * 2));
      if (!d8.download(outD.data(), outD.size()) || !dT.download(outT.data(), outT.size()) ||
          !sums.download(outS.data(), outS.size()))
        die("download of the fused outputs failed");
      if (firstD.empty()) {
        firstD = std::move(outD);
        firstT = std::move(outT);
        firstSums = std::move(outS);
      } else {
        same = outD == firstD && outT == firstT ? "  D, D^T identical to the first fused"
                                                : "  D or D^T DIFFER from the first fused";
        same += outS == firstSums ? ", sums identical" : ", sums differ (summation order)";
      }
    }
    std::printf("  %-40s %-64s %9.1f us %7.0f TFLOP/s%s\n", f.label.c_str(), f.k.name().c_str(),
                ms * 1e3, flop / ms / 1e9, same.c_str());
  }
}

} // namespace fp8c::gemmbench
