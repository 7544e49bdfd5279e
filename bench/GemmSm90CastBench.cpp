// fp8c-gemm-bench's bf16-A section (--cast-shape, --hbm-tbs): the generated GEMM that reads A
// as bf16 and casts it to e4m3 itself, in its prologue (castA) or ahead of its main loop into
// an FP8 copy (castAhead), against cuBLASLt and the generated GEMM on a pre-quantized e4m3 A.
// main (GemmSm90Bench.cpp) runs it after the other sections.
#include "bench/GemmSm90BenchCommon.h"

#include "ir/DType.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace fp8c::gemmbench {

// The bf16-A prologue (castA: A read as bf16 and cast to e4m3 in the GEMM) at one shape:
// cuBLASLt and the generated kernel on a pre-quantized e4m3 A (what a separate cast kernel
// would feed them), then the castA kernels (tensor scale, with the amax of A, row scales; the
// heuristic's config and a few others), then the cast-ahead kernels on the e4m3-A kernel's
// tiles (tensor scale, with the amax of A, row scales). A standalone cast moves 3 bytes per element of A (read
// bf16, write e4m3) and the GEMM then reads 1; printed as its floor at the HBM bandwidth given
// by --hbm-tbs (default 4.8, the H200's). The tensor-scale configs' D that cast A are compared
// byte for byte with each other (the GPU tests check both forms against the e4m3-A kernel).
void benchCastA(GemmSm90Runner &g, CublasLtRunner &lt, const Shape &s, double hbmTBs,
                bool prologue, double soakS) {
  Operands o = makeOperands(s, g.device());
  const double flop = 2.0 * s.m * s.n * s.k;
  const int reps = repsFor(s);
  std::printf("\n[t=%.1fs] bf16 A cast in the GEMM's prologue, M=%lld K=%lld N=%lld "
              "(ratios: cuBLASLt on pre-quantized e4m3 A / generated)\n",
              elapsedS(), (long long)s.m, (long long)s.k, (long long)s.n);
  DeviceBuffer a16 = randomBf16(size_t(s.m * s.k), 11);
  DeviceBuffer quant = scalars({64.0f}), invQuant = scalars({1.0f / 64.0f});
  DeviceBuffer rowQuant = scalars(std::vector<float>(size_t(s.m), 64.0f));
  DeviceBuffer rowInv = scalars(std::vector<float>(size_t(s.m), 1.0f / 64.0f));
  DeviceBuffer rowB = scalars(std::vector<float>(size_t(s.n), 0.25f));
  DeviceBuffer amaxA = alloc(16);
  amaxA.fill(0);
  // Cast-ahead A: the FP8 copy the kernel writes and its counters (zero; each run leaves them so).
  DeviceBuffer aCast = alloc(size_t(s.m * s.k));
  DeviceBuffer aReady = alloc(size_t(gemmSm90CastAheadCounters(s.m) * 4));
  aReady.fill(0);
  GemmSm90Problem prob{s.m, s.n, s.k, s.k, s.k, s.n};
  prob.ldaCast = s.k;
  std::printf("  a standalone cast of A (3 bytes per element at %.1f TB/s): >= %.1f us\n",
              hbmTBs, 3.0 * double(s.m * s.k) / (hbmTBs * 1e12) * 1e6);

  const CublasLtGemmConfig c = plainLtConfig(s);
  auto ltPtrs = [&](int i) { return plainLtPointers(o, i, invQuant); };
  const double ltMs = timeMs(reps, [&](int i) { return lt.run(c, ltPtrs(i), nullptr); });
  std::printf("  %-48s %9.1f us %7.0f TFLOP/s\n", "cuBLASLt e4m3 A (pre-quantized)", ltMs * 1e3,
              flop / ltMs / 1e9);

  struct Variant {
    std::string label;
    GemmSm90Spec k;
  };
  std::vector<Variant> vs;
  GemmSm90Spec fp8 = chooseGemmSm90Tiles(GemmSm90Spec{}, prob, g.device());
  vs.push_back({"e4m3 A (pre-quantized)", fp8});
  GemmSm90Spec cast;
  cast.castA = true;
  cast = chooseGemmSm90Tiles(cast, prob, g.device());
  vs.push_back({"bf16 A, tensor scale [heuristic]", cast});
  GemmSm90Spec k = cast;
  k.amaxA = true;
  vs.push_back({"bf16 A, tensor scale + amax of A", k});
  k = cast;
  k.scaleMode = GemmScaleMode::OuterVector; // the column buffers may cost a stage
  vs.push_back({"bf16 A, row scales", chooseGemmSm90Tiles(k, prob, g.device())});
  for (int slots : {3}) {
    k = cast;
    k.castSlots = slots;
    while (k.stages > 2 && k.sharedBytes() > 232448)
      --k.stages;
    vs.push_back({"bf16 A, tensor scale, " + std::to_string(slots) + " slots", k});
  }
  if (cast.schedule == GemmSchedule::PingPong) {
    k = cast;
    k.schedule = GemmSchedule::Cooperative;
    k.bn = 256;
    k.stages = 3;
    vs.push_back({"bf16 A, tensor scale, coop 128 x 256", k});
  } else if (cast.bm == 128) {
    k = cast;
    k.schedule = GemmSchedule::PingPong;
    k.bn = 128;
    k.stages = 4;
    vs.push_back({"bf16 A, tensor scale, pp 128 x 128", k});
  }
  GemmSm90Spec ahead = fp8;
  ahead.castAhead = true;
  vs.push_back({"bf16 A cast ahead, tensor scale", ahead});
  k = ahead;
  k.amaxA = true;
  vs.push_back({"bf16 A cast ahead, tensor scale + amax of A", k});
  k = ahead;
  k.scaleMode = GemmScaleMode::OuterVector;
  vs.push_back({"bf16 A cast ahead, row scales", k});
  const size_t dBytes = size_t(s.m * s.n) * 2;
  std::vector<uint8_t> fp8Out;
  for (Variant &v : vs) {
    if (v.k.castA && !prologue)
      continue;
    const bool row = v.k.scaleMode == GemmScaleMode::OuterVector;
    auto gp = [&](int i) {
      GemmSm90Pointers p;
      p.a = v.k.castA || v.k.castAhead ? a16.data() : o.a.data();
      p.aCast = aCast.data();
      p.aReady = static_cast<uint32_t *>(aReady.data());
      p.b = o.b[size_t(i) % o.b.size()].data();
      p.d = o.d.data();
      p.invScaleA = static_cast<const float *>((row ? rowInv : invQuant).data());
      p.invScaleB = static_cast<const float *>((row ? rowB : o.sb).data());
      p.quantScaleA = static_cast<const float *>((row ? rowQuant : quant).data());
      p.amaxA = static_cast<float *>(amaxA.data());
      return p;
    };
    if (Status st = checkGemmSm90Spec(v.k); !st) {
      std::printf("  %-48s skipped: %s\n", v.label.c_str(), st.message().c_str());
      continue;
    }
    dumpCubin(g, v.k);
    const double ms = timeMs(reps, [&](int i) { return g.run(v.k, prob, gp(i), nullptr); });
    std::string same;
    if ((v.k.castA || v.k.castAhead) && !row) {
      // D on B set 0, byte for byte against the first tensor-scale castA config's (the
      // quantized A and the accumulation order over K are the same in every config).
      if (Status st = g.run(v.k, prob, gp(0), nullptr); !st)
        die(st.message());
      drv->cuCtxSynchronize();
      std::vector<uint8_t> out(dBytes);
      if (Status st = o.d.download(out.data(), dBytes); !st)
        die(st.message());
      if (fp8Out.empty()) {
        fp8Out = std::move(out);
        same = "  (reference of the next)";
      } else {
        size_t diff = 0;
        for (size_t i = 0; i < dBytes; ++i)
          diff += out[i] != fp8Out[i];
        same = diff == 0 ? "  D identical" : "  D differs in " + std::to_string(diff) + " bytes";
      }
    }
    const std::string cfg = std::string(v.k.schedule == GemmSchedule::PingPong ? "pp" : "coop") +
                            " m" + std::to_string(v.k.bm) + " n" + std::to_string(v.k.bn) +
                            " s" + std::to_string(v.k.stages);
    std::printf("  %-48s %-16s %9.1f us %7.0f TFLOP/s  %.3fx cuBLASLt%s\n", v.label.c_str(),
                cfg.c_str(), ms * 1e3, flop / ms / 1e9, ltMs / ms, same.c_str());
    if (soakS > 0 && !v.k.castA && !row)
      soak(v.k.name(), soakS, [&](int i) { return g.run(v.k, prob, gp(i), nullptr); });
  }
}

} // namespace fp8c::gemmbench
