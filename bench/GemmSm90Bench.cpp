// fp8c-gemm-bench: the generated Hopper FP8 GEMM (runtime/gpu/GemmSm90.h) against cuBLASLt
// (runtime/gpu/CublasLtGemm.h) on the same random FP8 operands, in the same process. For each
// shape, cuBLASLt (fast accumulation) is timed, then every candidate config of the generated
// kernel (tile shape, stages, overlap, tile order, consumer schedule), and each candidate's
// output is compared with cuBLASLt's. Then the fused epilogues (per-row scales + bias + GELU,
// FP8 output with amax) and the promoting scale modes against cuBLASLt's nearest equivalents,
// in each schedule that takes them. Timing: CUDA events around `reps` back-to-back launches
// (B rotated over several buffers when it would fit in L2), 3 warm-up batches excluded, median
// of 15 batches. FLOP = 2 M N K.
// The bf16-A prologue section is in GemmSm90CastBench.cpp, the pieces both use in
// GemmSm90BenchCommon.h.
//
//   fp8c-gemm-bench [--dump-cubin DIR] [--quick] [--schedule cooperative|pingpong|both]
//                   [--accum-probe]
//                   [--shape M K N]... [--epilogue-shape M K N]... [--soak SECONDS]
//                   [--cast-shape M K N]... [--hbm-tbs TB/s] [--no-plain] [--no-cast]
//                   [--no-prologue]
//                   [--variants row,fp8,precise,block] [--a-transposed] [--cublaslt-tune]
//                   [--dgelu-shape M K N]... [--json FILE]
// --shape / --epilogue-shape replace the default shapes (8192^3, M 8192 K 4096 N 14336,
// M 8192 K 14336 N 4096, M 16 K 4096 N 14336; epilogues at M 8192 K 4096 N 14336).
// --accum-probe first reads each GEMM's promotion interval from its output
// (GemmSm90AccumProbe.cpp).
// --dgelu-shape adds the gelu_grad dgrad GEMM's forms at that shape (GemmSm90GeluGradBench.cpp;
// none by default).
// --cast-shape replaces the shapes of the bf16-A section (M 8192 K 4096 N 14336 and
// M 8192 K 14336 N 4096; benchCastA: the bf16-A prologue and cast-ahead A); --no-prologue
// leaves the prologue's kernels out of it.
// --json writes the plain and epilogue sections' rows (bench/Report.h's gemmJson: each time, its
// TFLOP/s and its ratio to cuBLASLt in the same process) with the device, its driver and power
// limit, the date, the command and the device-to-device copy rate (measured first, for the
// memory-bound floor), for bench/report.py.
// --dump-cubin writes each compiled kernel's CUBIN as DIR/<kernel>.cubin (for cuobjdump -sass).
// --no-plain / --no-cast leave out the plain shapes' and the bf16-A prologue's sections;
// --variants keeps only the named epilogue variants (row scales + bias + GELU, FP8 D + amax,
// tensor scales without fast accumulation, blockwise scales; all by default).
// --a-transposed runs each epilogue config that takes it again with A MN-major (aTransposed:
// A^T [K, M], the weight gradient's untransposed dY), on the same values (D compared).
// --cublaslt-tune tunes cuBLASLt's algorithm per config on its first call (CublasLtRunner
// autotuning, sustained) and prints every candidate's time.
// --soak runs each epilogue config and its cuBLASLt peer (and the bf16-A section's e4m3-A and
// cast-ahead kernels) back to back for SECONDS more and prints the Unix times around it (to compare
// clocks and power between configs in an nvidia-smi log).
// --quick times the heuristic's config, ping-pong 128 x 128 x 6 (unless --schedule cooperative)
// and the clusters of two sharing B (TMA multicast): ping-pong 128 x 128 x 6 and cooperative
// 128 x 256 x 4 (64 x 128 x 8 for decode). --schedule picks the consumer schedules of the
// candidates (both).
#include "bench/CopyRate.h"
#include "bench/GemmSm90BenchCommon.h"
#include "bench/Report.h"

#include "ir/DType.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace fp8c;
using namespace fp8c::gemmbench;

namespace {

bool wantCoop = true, wantPingPong = true;
double soakS = 0;    ///< --soak: seconds of back-to-back launches per epilogue config
double hbmTBs = 4.8; ///< --hbm-tbs: the HBM bandwidth of benchCastA's cast floor
std::string variants = "row,fp8,precise,block"; ///< --variants: the epilogue variants to time
bool aTransposedToo = false; ///< --a-transposed: each epilogue config also with A MN-major
std::vector<bench::GemmRow> jsonRows; ///< --json: the plain and epilogue sections' rows

void addRow(const Shape &s, const std::string &epilogue, const std::string &backend,
            const std::string &config, bool heuristic, double ms, double flop, double ltMs) {
  bench::GemmRow r;
  r.m = s.m;
  r.k = s.k;
  r.n = s.n;
  r.epilogue = epilogue;
  r.backend = backend;
  r.config = config;
  r.heuristic = heuristic;
  r.us = ms * 1e3;
  r.tflops = flop / ms / 1e9;
  r.vsCublasLt = ltMs > 0 && backend != "cublaslt" ? ltMs / ms : 0;
  jsonRows.push_back(r);
}

bool wantVariant(const char *key) {
  return ("," + variants + ",").find(std::string(",") + key + ",") != std::string::npos;
}

/// The persistent blocks `k` runs with at most, for the label (its error when unknown).
std::string residentBlocks(GemmSm90Runner &g, const GemmSm90Spec &k) {
  Expected<int> n = g.maxResidentBlocks(k);
  return n ? std::to_string(*n) : n.error();
}

std::vector<float> downloadBf16(const DeviceBuffer &d, size_t n) {
  std::vector<uint16_t> h(n);
  if (Status st = d.download(h.data(), n * 2); !st)
    die(st.message());
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i)
    f[i] = bf16ToFloat(h[i]);
  return f;
}

double relDiff(const std::vector<float> &x, const std::vector<float> &ref) {
  double e = 0, n = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(ref[i]))
      return NAN;
    e += double(x[i] - ref[i]) * double(x[i] - ref[i]);
    n += double(ref[i]) * double(ref[i]);
  }
  return std::sqrt(e / n);
}

void benchShape(GemmSm90Runner &g, CublasLtRunner &lt, const Shape &s, bool quick) {
  Operands o = makeOperands(s, g.device());
  const double flop = 2.0 * s.m * s.n * s.k;
  const int reps = repsFor(s);
  GemmSm90Problem prob{s.m, s.n, s.k, s.k, s.k, s.n};
  auto ptrs = [&](int i, DeviceBuffer &d) {
    GemmSm90Pointers p;
    p.a = o.a.data();
    p.b = o.b[size_t(i) % o.b.size()].data();
    p.d = d.data();
    p.invScaleA = static_cast<const float *>(o.sa.data());
    p.invScaleB = static_cast<const float *>(o.sb.data());
    return p;
  };

  // cuBLASLt first: its output is the reference of the comparison.
  const CublasLtGemmConfig c = plainLtConfig(s);
  auto ltPtrs = [&](int i) { return plainLtPointers(o, i, o.sa); };
  const double ltMs = timeMs(reps, [&](int i) { return lt.run(c, ltPtrs(i), nullptr); });
  std::printf("\n[t=%.1fs] M=%lld K=%lld N=%lld (%d B sets, %d launches per batch)\n", elapsedS(),
              (long long)s.m,
              (long long)s.k, (long long)s.n, int(o.b.size()), reps);
  std::printf("  %-44s %9.1f us %7.0f TFLOP/s\n", "cuBLASLt e4m3 bf16 fast-accum", ltMs * 1e3,
              flop / ltMs / 1e9);
  addRow(s, "plain", "cublaslt", "e4m3 bf16 fast-accum", false, ltMs, flop, 0);

  // cuBLASLt's output on B set 0: the reference of every candidate's.
  if (Status st = lt.run(c, ltPtrs(0), nullptr); !st)
    die(st.message());
  drv->cuCtxSynchronize();
  const size_t n = size_t(s.m * s.n);
  const std::vector<float> ref = downloadBf16(o.dRef, n);

  GemmSm90Spec base;
  std::vector<std::pair<GemmSm90Spec, int>> cands; // kernel, groupM (0 = auto)
  auto add = [&](int bn, int st, bool ov, int gm = 0, int bm = 128,
                 GemmSchedule sched = GemmSchedule::Cooperative, int cm = 1) {
    if (sched == GemmSchedule::Cooperative ? !wantCoop : !wantPingPong)
      return;
    GemmSm90Spec k = base;
    k.bm = bm;
    k.bn = bn;
    k.stages = st;
    k.overlap = ov;
    k.schedule = sched;
    k.clusterM = cm;
    cands.push_back({k, gm});
  };
  auto addPP = [&](int bm, int bn, int st, bool ov = true, int gm = 0, int cm = 1) {
    add(bn, st, ov, gm, bm, GemmSchedule::PingPong, cm);
  };
  GemmSm90Spec chosen = chooseGemmSm90Tiles(base, prob, g.device());
  cands.push_back({chosen, 0});
  if (s.m <= 64) {
    if (!quick) {
      add(256, 5, true, 0, 64);
      add(128, 8, false, 0, 64);
      add(128, 6, true);
      add(256, 4, true);
      add(64, 8, true);
    }
    addPP(64, 128, 8);
    addPP(64, 64, 8);
    add(128, 8, true, 0, 64, GemmSchedule::Cooperative, 2);
  } else {
    if (!quick) {
      add(256, 4, true);
      add(256, 4, true, 8);
      add(256, 4, false);
      add(128, 6, true);
    }
    addPP(128, 128, 6);
    // Clusters of two along M sharing B (TMA multicast).
    addPP(128, 128, 6, true, 0, 2);
    add(256, 4, true, 0, 128, GemmSchedule::Cooperative, 2);
    if (!quick) {
      add(256, 4, true, 16, 128, GemmSchedule::Cooperative, 2);
      addPP(128, 128, 7);
      addPP(128, 128, 7, true, 16);
      addPP(128, 128, 7, false);
      addPP(64, 256, 5);
    }
  }
  double best = 1e30;
  std::string bestName;
  for (size_t ci = 0; ci < cands.size(); ++ci) {
    const GemmSm90Spec &k = cands[ci].first;
    const int gm = cands[ci].second;
    if (ci > 0 && k.name() == chosen.name() && gm == 0)
      continue; // the heuristic's config, timed first
    dumpCubin(g, k);
    const double ms =
        timeMs(reps, [&](int i) { return g.run(k, prob, ptrs(i, o.d), nullptr, gm); });
    // Same inputs (B set 0) as the reference.
    if (Status st = g.run(k, prob, ptrs(0, o.d), nullptr, gm); !st)
      die(st.message());
    drv->cuCtxSynchronize();
    const double diff = relDiff(downloadBf16(o.d, n), ref);
    const std::string label =
        std::string(k.schedule == GemmSchedule::PingPong ? "pp " : "coop ") + "m" +
        std::to_string(k.bm) + " n" + std::to_string(k.bn) + " s" + std::to_string(k.stages) +
        (k.overlap ? " overlap" : " wait0") +
        (k.clusterM > 1 ? " c2 (" + residentBlocks(g, k) + " blocks)" : "") +
        " groupM " +
        (gm ? std::to_string(gm)
            : "auto(" + std::to_string(gemmSm90GroupM(k, prob, g.device())) + ")") +
        (ci == 0 ? " [heuristic]" : "");
    std::printf("  generated %-42s %9.1f us %7.0f TFLOP/s  %.3fx cuBLASLt  diff %.1e\n",
                label.c_str(), ms * 1e3, flop / ms / 1e9, ltMs / ms, diff);
    addRow(s, "plain", "generated", label, ci == 0, ms, flop, ltMs);
    if (!(diff < 1e-2))
      die("generated output (" + k.name() + ") differs from cuBLASLt's");
    if (ms < best) {
      best = ms;
      bestName = label;
    }
  }
  // cuBLASLt again: the drift of the clocks over the candidates' timings.
  const double ltMs2 = timeMs(reps, [&](int i) { return lt.run(c, ltPtrs(i), nullptr); });
  std::printf("  %-52s %9.1f us\n", "cuBLASLt again (ratios above use the first)", ltMs2 * 1e3);
  std::printf("  best: %s %.1f us = %.3fx cuBLASLt (diff: relative Frobenius norm of the "
              "difference to cuBLASLt's output)\n",
              bestName.c_str(), best * 1e3, ltMs / best);
}

// Fused epilogues and blockwise scales at one shape against cuBLASLt's nearest equivalent.
void benchEpilogues(GemmSm90Runner &g, CublasLtRunner &lt, const Shape &s) {
  Operands o = makeOperands(s, g.device());
  const double flop = 2.0 * s.m * s.n * s.k;
  const int reps = repsFor(s);
  std::printf("\n[t=%.1fs] epilogues and scale modes, M=%lld K=%lld N=%lld (ratios: cuBLASLt "
              "time / generated)\n",
              elapsedS(), (long long)s.m,
              (long long)s.k, (long long)s.n);
  DeviceBuffer rowA = scalars(std::vector<float>(size_t(s.m), 0.5f));
  DeviceBuffer rowB = scalars(std::vector<float>(size_t(s.n), 0.25f));
  DeviceBuffer bias = alloc(size_t(s.n * 2));
  bias.fill(0x3C); // bf16 0x3C3C = 0.0115
  DeviceBuffer amax = alloc(16), scaleD = scalars({0.5f});
  amax.fill(0);
  const int64_t kb = (s.k + 127) / 128, nb = (s.n + 127) / 128;
  const int64_t ldsa = (s.m + 3) / 4 * 4, ldsb = (kb + 3) / 4 * 4;
  DeviceBuffer blkA = scalars(std::vector<float>(size_t(kb * ldsa), 0.5f));
  DeviceBuffer blkB = scalars(std::vector<float>(size_t(nb * ldsb), 0.25f));
  DeviceBuffer aT; // --a-transposed: A^T, made once

  struct Variant {
    const char *name;
    GemmSm90Spec k;
    CublasLtGemmConfig c;
    const char *peer;
  };
  GemmSm90Problem prob{s.m, s.n, s.k, s.k, s.k, s.n, ldsa, ldsb};
  const CublasLtGemmConfig c0 = plainLtConfig(s);
  std::vector<Variant> vs;
  if (wantVariant("row")) {
    GemmSm90Spec k;
    k.scaleMode = GemmScaleMode::OuterVector;
    k.biasType = DType::BF16;
    k.activation = Activation::GeluTanh;
    k = chooseGemmSm90Tiles(k, prob, g.device());
    CublasLtGemmConfig c = c0;
    c.biasType = DType::BF16;
    c.epilogue = GemmEpilogue::GeluBias;
    vs.push_back({"row scales + bias + gelu(tanh)", k, c, "tensor scales + GELU_BIAS"});
  }
  if (wantVariant("fp8")) {
    GemmSm90Spec k;
    k.dType = DType::F8E4M3FN;
    k.amaxD = true;
    k = chooseGemmSm90Tiles(k, prob, g.device());
    CublasLtGemmConfig c = c0;
    c.dType = DType::F8E4M3FN;
    c.hasScaleD = c.hasAmaxD = true;
    vs.push_back({"e4m3 out + amax", k, c, "e4m3 D + AMAX_D"});
  }
  if (wantVariant("precise")) {
    GemmSm90Spec k;
    k.fastAccum = false;
    k = chooseGemmSm90Tiles(k, prob, g.device());
    CublasLtGemmConfig c = c0;
    c.fastAccum = false;
    vs.push_back({"tensor scales, no fast accumulation", k, c, "no fast accum"});
  }
  if (wantVariant("block")) {
    GemmSm90Spec k;
    k.scaleMode = GemmScaleMode::Block128;
    k = chooseGemmSm90Tiles(k, prob, g.device());
    CublasLtGemmConfig c = c0;
    c.scaleMode = GemmScaleMode::Block128;
    c.fastAccum = false;
    vs.push_back({"block 1x128 / 128x128 scales", k, c, "Block128"});
  }
  for (Variant &v : vs) {
    const bool row = v.k.scaleMode == GemmScaleMode::OuterVector;
    const bool blk = v.k.scaleMode == GemmScaleMode::Block128;
    auto gp = [&](int i) {
      GemmSm90Pointers p;
      p.a = o.a.data();
      p.b = o.b[size_t(i) % o.b.size()].data();
      p.d = o.d.data();
      p.invScaleA = static_cast<const float *>((row ? rowA : blk ? blkA : o.sa).data());
      p.invScaleB = static_cast<const float *>((row ? rowB : blk ? blkB : o.sb).data());
      p.bias = bias.data();
      p.amaxD = static_cast<float *>(amax.data());
      p.scaleD = static_cast<const float *>(scaleD.data());
      return p;
    };
    auto lp = [&](int i) {
      CublasLtGemmPointers p;
      p.a = o.a.data();
      p.b = o.b[size_t(i) % o.b.size()].data();
      p.d = o.dRef.data();
      p.invScaleA = static_cast<const float *>((blk ? blkA : o.sa).data());
      p.invScaleB = static_cast<const float *>((blk ? blkB : o.sb).data());
      p.bias = bias.data();
      p.amaxD = static_cast<float *>(amax.data());
      p.scaleD = static_cast<const float *>(scaleD.data());
      return p;
    };
    Status probe = lt.run(v.c, lp(0), nullptr);
    double lms = 0;
    if (probe)
      if (std::optional<CublasLtRunner::TuneResult> t = lt.tuneResult(v.c)) {
        // --cublaslt-tune: the first call timed the heuristic's algorithms sustained.
        std::printf("  %-36s cuBLASLt algorithms timed sustained: %d, the heuristic's %.1f us, "
                    "kept #%d %.1f us; each:",
                    v.name, t->candidates, t->heuristicUs, t->chosen, t->chosenUs);
        for (double us : t->candidateUs)
          std::printf(" %.1f", us);
        std::printf("\n");
      }
    if (probe) {
      lms = timeMs(reps, [&](int i) { return lt.run(v.c, lp(i), nullptr); });
      std::printf("  %-36s cuBLASLt %-26s %9.1f us\n", v.name, v.peer, lms * 1e3);
      addRow(s, v.name, "cublaslt", v.peer, false, lms, flop, 0);
      if (soakS > 0)
        soak(std::string("cuBLASLt ") + v.peer, soakS,
             [&](int i) { return lt.run(v.c, lp(i), nullptr); });
    } else {
      std::printf("  %-36s (cuBLASLt %s: %s)\n", v.name, v.peer, probe.message().c_str());
    }
    // The heuristic's config, then cooperative 128 x 256 x 4 and ping-pong 128 x 128 x 6 / 7,
    // and the clusters of two (B multicast) of cooperative 128 x 256 x 4 / 128 x 128 x 6 and
    // ping-pong 128 x 128 x 6, where the mode takes them and --schedule asks for them.
    std::vector<GemmSm90Spec> ks{v.k};
    // overlap: on for the fast-accumulating modes (promotion ignores it).
    auto add = [&](GemmSchedule sched, int bn, int stages, int cm = 1,
                   bool overlap = true) {
      GemmSm90Spec k = v.k;
      k.schedule = sched;
      k.clusterM = cm;
      k.bm = 128;
      k.bn = bn;
      k.stages = stages;
      k.overlap = overlap;
      const bool wanted = sched == GemmSchedule::PingPong ? wantPingPong : wantCoop;
      if (wanted && checkGemmSm90Spec(k).isOk() &&
          std::none_of(ks.begin(), ks.end(), [&](const GemmSm90Spec &o) { return o.name() == k.name(); }))
        ks.push_back(k);
    };
    add(GemmSchedule::Cooperative, 256, 4);
    add(GemmSchedule::PingPong, 128, 6);
    add(GemmSchedule::PingPong, 128, 7);
    add(GemmSchedule::Cooperative, 256, 4, 2);
    add(GemmSchedule::PingPong, 128, 6, 2);
    add(GemmSchedule::Cooperative, 128, 6, 2); // the promoting modes' tile
    // Promotion fits 192 columns (blockwise: with alternating warpgroups).
    add(GemmSchedule::Cooperative, 192, 5, 1, !v.k.promotes());
    if (v.k.promotes()) {
      add(GemmSchedule::Cooperative, 192, 4, 1, false);
      add(GemmSchedule::Cooperative, 128, 6, 1, false);
    }
    const size_t dBytes = size_t(s.m * s.n) * size_t(dtypeBytes(v.k.dType));
    std::vector<uint8_t> first;
    // --a-transposed: every config of ks that takes it again with A MN-major (aTransposed),
    // reading A^T [K, M] made on the host from A, so D must equal the first config's.
    std::vector<GemmSm90Spec> all;
    for (const GemmSm90Spec &k : ks) {
      all.push_back(k);
      GemmSm90Spec t = k;
      t.aTransposed = true;
      if (aTransposedToo && checkGemmSm90(t, GemmSm90Problem{s.m, s.n, s.k, s.m, s.k, s.n}).isOk())
        all.push_back(t);
    }
    if (aTransposedToo && !aT.data()) {
      std::vector<uint8_t> a(size_t(s.m * s.k)), t(a.size());
      if (Status st = o.a.download(a.data(), a.size()); !st)
        die(st.message());
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t c = 0; c < s.k; ++c)
          t[size_t(c * s.m + r)] = a[size_t(r * s.k + c)];
      aT = alloc(t.size());
      if (Status st = aT.upload(t.data(), t.size()); !st)
        die(st.message());
    }
    for (const GemmSm90Spec &k : all) {
      dumpCubin(g, k);
      GemmSm90Problem kp = prob;
      auto kgp = [&](int i) {
        GemmSm90Pointers p = gp(i);
        if (k.aTransposed)
          p.a = aT.data();
        return p;
      };
      if (k.aTransposed)
        kp.lda = s.m;
      const double ms = timeMs(reps, [&](int i) { return g.run(k, kp, kgp(i), nullptr); });
      // Every config's D on B set 0, byte for byte against the first config's.
      if (Status st = g.run(k, kp, kgp(0), nullptr); !st)
        die(st.message());
      drv->cuCtxSynchronize();
      std::vector<uint8_t> out(dBytes);
      if (Status st = o.d.download(out.data(), dBytes); !st)
        die(st.message());
      std::string same;
      if (first.empty()) {
        first = std::move(out);
      } else {
        size_t diff = 0;
        for (size_t i = 0; i < dBytes; ++i)
          diff += out[i] != first[i];
        same = diff == 0 ? "  D identical to the first" : "  D differs from the first in " + std::to_string(diff) + " bytes";
      }
      const std::string cfg = std::string(k.schedule == GemmSchedule::PingPong ? "pp" : "coop") +
                              " m" + std::to_string(k.bm) + " n" + std::to_string(k.bn) + " s" +
                              std::to_string(k.stages) + (k.clusterM > 1 ? " c2" : "") +
                              (k.promotes() ? " promote" : "") + (k.aTransposed ? " A^T" : "") +
                              (&k == &all[0] ? " [heur]" : "");
      std::printf("  %-36s generated %-26s %9.1f us %7.0f TFLOP/s", v.name, cfg.c_str(),
                  ms * 1e3, flop / ms / 1e9);
      if (probe)
        std::printf("  %.3fx cuBLASLt", lms / ms);
      std::printf("%s\n", same.c_str());
      addRow(s, v.name, "generated", cfg, &k == &all[0], ms, flop, lms);
      if (soakS > 0)
        soak(k.name(), soakS, [&](int i) { return g.run(k, kp, kgp(i), nullptr); });
    }
  }
}

} // namespace


int main(int argc, char **argv) {
  bool probe = false, quick = false, noPlain = false, noCast = false, prologue = true,
       cublasLtTune = false;
  std::string json;
  std::vector<Shape> shapes, epilogueShapes, castShapes, dgeluShapes;
  auto shapeArg = [&](int &i) {
    if (i + 3 >= argc)
      die(std::string(argv[i]) + " takes M K N");
    Shape s{std::atoll(argv[i + 1]), std::atoll(argv[i + 2]), std::atoll(argv[i + 3])};
    if (s.m < 1 || s.k < 16 || s.n < 1 || s.k % 16 != 0)
      die(std::string(argv[i]) + ": M, N >= 1 and K a multiple of 16");
    i += 3;
    return s;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--shape")
      shapes.push_back(shapeArg(i));
    else if (a == "--epilogue-shape")
      epilogueShapes.push_back(shapeArg(i));
    else if (a == "--dgelu-shape")
      dgeluShapes.push_back(shapeArg(i));
    else if (a == "--cast-shape")
      castShapes.push_back(shapeArg(i));
    else if (a == "--hbm-tbs" && i + 1 < argc)
      hbmTBs = std::atof(argv[++i]);
    else if (a == "--soak" && i + 1 < argc)
      soakS = std::atof(argv[++i]);
    else if (a == "--cublaslt-tune")
      cublasLtTune = true;
    else if (a == "--dump-cubin" && i + 1 < argc)
      dumpDir = argv[++i];
    else if (a == "--accum-probe")
      probe = true;
    else if (a == "--quick")
      quick = true;
    else if (a == "--no-plain")
      noPlain = true;
    else if (a == "--no-cast")
      noCast = true;
    else if (a == "--no-prologue")
      prologue = false;
    else if (a == "--variants" && i + 1 < argc)
      variants = argv[++i];
    else if (a == "--a-transposed")
      aTransposedToo = true;
    else if (a == "--json" && i + 1 < argc)
      json = argv[++i];
    else if (a == "--schedule" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v != "cooperative" && v != "pingpong" && v != "both")
        die("--schedule takes cooperative, pingpong or both (got " + v + ")");
      wantCoop = v != "pingpong";
      wantPingPong = v != "cooperative";
    } else
      die("unknown argument " + a +
          " (usage: fp8c-gemm-bench [--dump-cubin DIR] [--quick] [--schedule "
          "cooperative|pingpong|both] [--accum-probe] [--shape M K N]... [--epilogue-shape M K "
          "N]... "
          "[--cast-shape M K N]... [--hbm-tbs TB/s] [--soak SECONDS] [--no-plain] [--no-cast] "
          "[--no-prologue] [--variants row,fp8,precise,block] [--a-transposed] [--cublaslt-tune] "
          "[--dgelu-shape M K N]... [--json FILE])");
  }
  Expected<CudaDriver *> d = CudaDriver::get();
  if (!d)
    die(d.error());
  drv = *d;
  if (Status st = drv->makeCurrent(0); !st)
    die(st.message());
  Expected<std::unique_ptr<GemmSm90Runner>> g = GemmSm90Runner::create();
  if (!g)
    die(g.error());
  Expected<std::unique_ptr<CublasLtRunner>> lt = CublasLtRunner::create();
  if (!lt)
    die(lt.error());
  if (cublasLtTune)
    (*lt)->setAutotune(true);
  std::printf("device: %s\n", (*g)->device().str().c_str());
  double copyGBs = 0;
  if (!json.empty()) {
    Expected<bench::CopyRate> c = bench::measureCopyRate(drv, nullptr, size_t(1) << 30, {});
    if (!c)
      die("the copy rate: " + c.error());
    copyGBs = c->gbs;
    std::printf("device-to-device copy: %.2f TB/s (bytes read + written, 1 GiB)\n", copyGBs / 1e3);
  }
  if (shapes.empty())
    shapes = {{8192, 8192, 8192}, {8192, 4096, 14336}, {8192, 14336, 4096}, {16, 4096, 14336}};
  if (epilogueShapes.empty())
    epilogueShapes = {{8192, 4096, 14336}};
  if (probe)
    accumProbe(**g, **lt);
  if (noPlain)
    shapes.clear();
  for (const Shape &s : shapes)
    benchShape(**g, **lt, s, quick);
  for (const Shape &s : epilogueShapes)
    benchEpilogues(**g, **lt, s);
  if (castShapes.empty())
    castShapes = {{8192, 4096, 14336}, {8192, 14336, 4096}};
  if (noCast)
    castShapes.clear();
  for (const Shape &s : castShapes)
    benchCastA(**g, **lt, s, hbmTBs, prologue, soakS);
  for (const Shape &s : dgeluShapes)
    benchGeluGrad(**g, s);
  if (!json.empty()) {
    std::ofstream f(json);
    f << bench::gemmJson(bench::recordRun(drv, (*g)->device(), argc, argv), copyGBs, jsonRows);
    if (!f)
      die("cannot write " + json);
    std::printf("wrote %s\n", json.c_str());
  }
  return 0;
}
