// fp8c-train-bench: the time of one training step (forward + backward, training/TrainingGpu.h)
// of each given graph per recipe, against the same step compiled with recipe none (its GEMMs
// are cuBLASLt bf16 GEMMs), in one process. CUDA events around each step, warm-up first,
// median of at least --reps steps (bench/Timing.h); inputs random, never all zero.
//
//   fp8c-train-bench [--tokens=8192] [--recipes=none,tensorwise,...] [--reps=20]
//   (a recipe may carry quantize options after '+': delayed+bwd_fast_accum=true, and the FP8
//   GEMM backend after '@': delayed@generated, tensorwise+bwd_fast_accum=true@cublaslt; a
//   final '%no_fp8_tables' turns the FP8 tables of the elementwise launches off,
//   '%no_byte_transpose' keeps the one-pass cast-transposes in their general form (not the
//   byte-staged transpose_bytes.cuh), '%checked_tiles' keeps its bounds checks on every tile
//   (ElementwiseTuning::insideTiles = 0), '%side' runs a
//   cast-transpose beside the GEMM before it: CompileOptions::sideLaunches, '%no_grad_epilogue'
//   keeps the backward's gelu_grad out of the dgrad GEMM: TrainingOptions::gradEpilogue,
//   '%reuse_weights' adds weights=static and times the later micro-batches of a gradient
//   accumulation: every forward after the first reuses the FP8 weight copies, WeightCasts::Reuse;
//   'delayed+weights=static' alone casts the weights in every forward, as the first micro-batch;
//   '%cublaslt_tune' tunes cuBLASLt's algorithm per GEMM under a sustained load,
//   CompileOptions::cublasLtAutotune)
//                    [--json=FILE] [--profile] [--interleave] [--sustain=MS] [--cuda-graph]
//                    GRAPH.mlir...
//
// Prints one line per graph x recipe: median, p10, p90 in microseconds, the speed-up against
// recipe none, and the bytes the forward saves for the backward. --json writes the same rows.
// By default each recipe's steps run back to back (median of --reps steps). --interleave
// compiles every recipe of a graph first and then times them round-robin, --reps rounds of one
// sample each (the median of 3 steps after 3 warm-up steps): clock and power drift over the run
// then falls on every recipe alike, and the speed-up is the median of the per-round ratios.
// --sustain=MS also goes round-robin, but each round runs every recipe's steps back to back
// for a block of MS milliseconds, as a training run does (bench/SustainedTiming.h): the first
// third settles the clocks under the power cap and is left out, the sample is the median of
// the rest, and NVML gives the block's joules per step, mean power and SM clock (the energy
// ratio against recipe none is printed beside the time ratio).
// --cuda-graph times the steps replayed from a CUDA graph (bench/Timing.h; each sample captures
// one step after two eager ones), so the host's enqueueing stays out of the times.
// --profile adds, per graph x recipe, each step's median time over 7 more profiled steps
// (Executable::setProfiling: an event after every launch), forward and backward, with their
// sum beside the unprofiled median; with --sustain, over one profiled step right after each
// block instead, at the block's settled clocks. Beside each launch that is not a GEMM it prints
// the bytes of its buffers (bytesTouched: the fewest it can move) and their rate at its median;
// per recipe, the bound with only the GEMMs and the floor with every other launch at the
// device-to-device copy rate (measured first, at the start). A launch a GEMM step runs itself
// (a cuBLASLt fallback's epilogue launch) counts as that GEMM step's time in both.
#include "bench/BenchDevice.h"
#include "bench/CopyRate.h"
#include "bench/DeviceFill.h"
#include "bench/SustainedTiming.h"
#include "bench/Timing.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "training/TrainingGpu.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace fp8c;
using namespace fp8c::bench;

namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "fp8c-train-bench: error: %s\n", msg.c_str());
  return 1;
}

std::vector<std::string> splitComma(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty())
      out.push_back(x);
  return out;
}

struct Row {
  std::string graph, recipe;
  Stats stats;
  int64_t savedBytes = 0;
  double speedup = 0; ///< against recipe none (0: none measured)
  double joulesPerStep = 0, energyRatio = 0; ///< --sustain with NVML (0: not measured)
};

// --sustain's second line per recipe: the blocks' energy per step (median), mean power and SM
// clock, and the energy ratio against recipe none's blocks (the median of per-round ratios).
void printBlocks(const std::vector<SustainedBlock> &blocks, const std::vector<SustainedBlock> *none,
                 Row &row) {
  std::vector<double> joules, ratios;
  double watts = 0, mhz = 0, capped = 0;
  int steps = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const SustainedBlock &b = blocks[k];
    steps += b.kept.reps;
    watts += b.meanWatts;
    mhz += b.sampledSmMhz;
    capped += b.cappedFraction;
    if (b.joulesPerStep > 0) {
      joules.push_back(b.joulesPerStep);
      if (none && k < none->size() && (*none)[k].joulesPerStep > 0)
        ratios.push_back((*none)[k].joulesPerStep / b.joulesPerStep);
    }
  }
  const double n = double(blocks.size());
  if (joules.empty()) {
    std::printf("    sustained: %d steps timed over %zu blocks; energy not measured\n", steps,
                blocks.size());
    return;
  }
  row.joulesPerStep = statsOf(joules).medianUs;
  if (!ratios.empty())
    row.energyRatio = statsOf(ratios).medianUs;
  std::printf(
      "    sustained: %d steps timed over %zu blocks; %.4f J/step, %.0f W, SM %.0f MHz, "
      "power-capped in %.0f %% of samples%s\n",
      steps, blocks.size(), row.joulesPerStep, watts / n, mhz / n, 100.0 * capped / n,
      row.energyRatio > 0
          ? ("; energy x" + std::to_string(row.energyRatio).substr(0, 5) + " vs none").c_str()
          : "");
}

// Buffers of one step: a device buffer per binding name.
struct StepBuffers {
  std::map<std::string, DeviceBuffer> bufs;
  Bindings in, out, dy, grads;
};

Status bindAll(const std::map<std::string, TensorType> &names, const std::string &prefix,
               bool random, uint64_t seed, StepBuffers &sb, Bindings &into) {
  for (const auto &[name, type] : names) {
    const int64_t elems = type.numElements();
    Expected<DeviceBuffer> b =
        allocateFor(static_cast<size_t>(elems) * dtypeBytes(type.dtype()), prefix + name);
    if (!b)
      return Error(b.error());
    if (random)
      if (Status s = fillRandom(*b, elems, type.dtype(), name.rfind("w", 0) == 0 ? 0.02 : 1.0,
                                seed++);
          !s)
        return s;
    into[name] = {b->data(), type.shape(), type.dtype()};
    sb.bufs.insert_or_assign(prefix + name, b.take());
  }
  return Status::ok();
}

// Profiled steps of a training step: per half (forward, backward), one list of launch times
// per profiled step.
using ProfileRuns = std::array<std::vector<std::vector<StepTime>>, 2>;

// Runs `steps` profiled steps of `T` (Executable::setProfiling: an event after every launch)
// and appends their launch times to `runs`. `casts`: the forwards' (Reuse after a Cast forward
// for '%reuse_weights').
Status collectProfile(GpuTraining &T, StepBuffers &sb, CUstream stream, WeightCasts casts,
                      int steps, ProfileRuns &runs) {
  Executable *halves[2] = {&T.forwardExecutable(), &T.backwardExecutable()};
  for (Executable *e : halves)
    e->setProfiling(true);
  Status st = Status::ok();
  for (int r = 0; r < steps && st; ++r) {
    // Both halves are enqueued before either profile is read (lastProfile waits for the
    // stream), so the GPU does not idle between them while the host enqueues the backward.
    // A step's time still includes any gap before it, and a round's first forward step starts
    // from an idle GPU: per-step times are not launch times (the Linear's dY cast read
    // 195-215 us here and 149-151 us under Nsight Compute inside the step, bench/README.md).
    st = T.forward(sb.in, sb.out, stream, casts);
    if (st)
      st = T.backward(sb.dy, sb.grads, stream);
    for (int h = 0; h < 2 && st; ++h) {
      Expected<std::vector<StepTime>> t = halves[h]->lastProfile();
      if (!t)
        st = Error(t.error());
      else
        runs[size_t(h)].push_back(*t);
    }
  }
  for (Executable *e : halves)
    e->setProfiling(false);
  return st;
}

// What a profile adds up to: the GEMM steps' medians (the step's floor with every other launch
// free), and the other launches' bytes (StepTime::bytes) and medians.
struct ProfileSums {
  double gemmUs = 0, restUs = 0;
  int64_t restBytes = 0;
};

// Prints each launch's median over `runs`, forward then backward, and beside each launch that is
// not a GEMM the bytes of its buffers and the rate that makes at its median.
ProfileSums printProfile(const ProfileRuns &runs) {
  ProfileSums sums;
  for (int h = 0; h < 2; ++h) {
    double sum = 0;
    const auto &half = runs[size_t(h)];
    for (size_t i = 0; !half.empty() && i < half[0].size(); ++i) {
      std::vector<double> us;
      for (const auto &run : half)
        us.push_back(run[i].us);
      std::sort(us.begin(), us.end());
      const double median = us[us.size() / 2];
      const StepTime &st = half[0][i];
      const bool gemm = st.what.rfind("gemm:", 0) == 0;
      char rate[48] = "";
      if (!gemm && st.bytes > 0)
        std::snprintf(rate, sizeof rate, "%8.1f MB %5.2f TB/s", double(st.bytes) / 1e6,
                      median > 0 ? double(st.bytes) / (median * 1e-6) / 1e12 : 0.0);
      std::printf("    %s %8.1f us %-23s  %-28s %s\n", h ? "bwd" : "fwd", median, rate,
                  st.name.substr(0, 28).c_str(),
                  // A GEMM's whole line: its backend and the measured choice behind it.
                  (gemm ? st.what : st.what.substr(0, 110)).c_str());
      sum += median;
      if (gemm) {
        sums.gemmUs += median;
      } else {
        sums.restUs += median;
        sums.restBytes += st.bytes;
      }
    }
    std::printf("    %s total %.1f us\n", h ? "bwd" : "fwd", sum);
  }
  const double total = sums.gemmUs + sums.restUs;
  std::printf("    step total (sum of step medians) %.1f us: GEMMs %.1f us, the rest %.1f us "
              "(%.1f %%, %.1f MB)\n",
              total, sums.gemmUs, sums.restUs, total > 0 ? 100.0 * sums.restUs / total : 0.0,
              double(sums.restBytes) / 1e6);
  std::fflush(stdout);
  return sums;
}

} // namespace

int main(int argc, char **argv) {
  int64_t tokens = 8192;
  int reps = 20;
  std::vector<std::string> recipes = {"none", "tensorwise", "delayed", "rowwise", "blockwise"};
  std::vector<std::string> files;
  std::string json;
  bool profile = false, interleave = false, cudaGraph = false;
  double sustainMs = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--tokens=", 0) == 0)
      tokens = std::stoll(a.substr(9));
    else if (a.rfind("--reps=", 0) == 0)
      reps = std::stoi(a.substr(7));
    else if (a.rfind("--recipes=", 0) == 0)
      recipes = splitComma(a.substr(10));
    else if (a == "--profile")
      profile = true;
    else if (a == "--interleave")
      interleave = true;
    else if (a.rfind("--sustain=", 0) == 0) {
      try {
        sustainMs = std::stod(a.substr(10));
      } catch (...) {
        sustainMs = -1;
      }
      if (!(sustainMs > 0))
        return fail("--sustain wants a block length in milliseconds above 0, not '" + a.substr(10) +
                    "'");
    } else if (a == "--cuda-graph")
      cudaGraph = true;
    else if (a.rfind("--json=", 0) == 0)
      json = a.substr(7);
    else if (a.rfind("--", 0) == 0)
      return fail("unknown option " + a);
    else
      files.push_back(a);
  }
  if (files.empty())
    return fail("no graph file (see the comment at the top of bench/TrainStepBench.cpp)");
  Expected<BenchDevice> bd = openBenchDevice();
  if (!bd)
    return fail(bd.error());
  CudaDriver *drv = bd->drv;
  const Device *dev = &bd->dev;
  CUstream stream = bd->stream;
  if (sustainMs > 0 && (interleave || cudaGraph))
    return fail("--sustain is a round-robin of its own; it takes neither --interleave nor "
                "--cuda-graph");
  const bool roundRobin = interleave || sustainMs > 0;
  std::string mode = "median of >= " + std::to_string(reps) + " steps";
  if (interleave)
    mode = "recipes round-robin, " + std::to_string(reps) + " rounds";
  if (sustainMs > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "recipes round-robin, %d rounds of a %.0f ms block each (the last two thirds "
                  "timed)",
                  reps, sustainMs);
    mode = buf;
  }
  std::printf("fp8c-train-bench on %s, %lld tokens, %s%s\n", dev->str().c_str(),
              static_cast<long long>(tokens), mode.c_str(),
              cudaGraph ? ", steps replayed from CUDA graphs" : "");
  std::unique_ptr<PowerMonitor> monitor;
  if (sustainMs > 0) {
    Expected<std::unique_ptr<PowerMonitor>> m = PowerMonitor::open(drv, dev->ordinal);
    if (m)
      monitor = m.take();
    else
      std::printf("energy per step: not measured (%s)\n", m.error().c_str());
  }
  // --profile: the device's copy rate, for each launch's rate beside it and the step's floor.
  CopyRate copy;
  if (profile) {
    Expected<CopyRate> c = measureCopyRate(drv, stream, size_t(1) << 30, TimingOptions{});
    if (!c)
      return fail("the copy rate: " + c.error());
    copy = *c;
    std::printf("device-to-device copy: %.2f TB/s (bytes read + written, 1 GiB, median of %d)\n",
                copy.gbs / 1e3, copy.stats.reps);
  }
  TimingOptions topt;
  topt.runsPerGraph = 1;
  topt.minReps = reps;
  topt.targetMs = 0; // minReps steps exactly
  std::vector<Row> rows;
  for (const std::string &file : files) {
    std::ifstream f(file);
    std::stringstream text;
    text << f.rdbuf();
    DiagnosticEngine diag;
    std::unique_ptr<Module> mod = parseModule(text.str(), file, diag);
    if (!mod || !verifyModule(*mod, diag))
      return fail(file + ":\n" + diag.str());
    const Graph &g = *mod->graphs()[0];
    // Compile and bind every recipe first, then time them (interleaved: round-robin).
    struct Entry {
      std::string recipe;
      std::unique_ptr<GpuTraining> T;
      StepBuffers sb;
      bool reuseWeights = false; ///< '%reuse_weights': forwards after the first reuse the casts
      bool cast = false;         ///< a forward has cast the weights
      WeightCasts nextCasts() const {
        return reuseWeights && cast ? WeightCasts::Reuse : WeightCasts::Cast;
      }
    };
    std::vector<Entry> entries;
    for (const std::string &recipe : recipes) {
      // "delayed+bwd_fast_accum=true": the recipe with more quantize options
      // (trainingOptionsFor); "delayed@generated": with that FP8 GEMM backend (auto without);
      // "delayed%no_fp8_tables": the FP8 tables off (ElementwiseTuning::fp8Tables = 0);
      // "delayed%no_byte_transpose": the general cast-transpose form only
      // (ElementwiseTuning::byteStagedTranspose = 0);
      // "delayed%checked_tiles": the byte-staged form's checked loops for every tile
      // (ElementwiseTuning::insideTiles = 0);
      // "delayed%side": a launch beside the GEMM before it (TrainingOptions::sideLaunches);
      // "delayed%no_grad_epilogue": gelu_grad a launch of its own (TrainingOptions::gradEpilogue);
      // "delayed%cublaslt_tune": cuBLASLt's algorithms tuned sustained (cublasLtAutotune).
      std::string spec = recipe, flag, backend;
      if (const size_t pct = spec.find('%'); pct != std::string::npos) {
        flag = spec.substr(pct + 1);
        spec = spec.substr(0, pct);
      }
      if (const size_t at = spec.find('@'); at != std::string::npos) {
        backend = spec.substr(at + 1);
        spec = spec.substr(0, at);
      }
      Expected<TrainingOptions> parsed = trainingOptionsFor(spec);
      if (!parsed)
        return fail(parsed.error());
      TrainingOptions o = parsed.take();
      if (!backend.empty()) {
        std::optional<GemmBackend> b = parseGemmBackend(backend);
        if (!b)
          return fail("recipe '" + recipe + "': unknown GEMM backend '@" + backend +
                      "'; backends: " + gemmBackendNames());
        o.gemmBackend = *b;
      }
      bool reuseWeights = false;
      if (flag == "no_fp8_tables")
        o.fp8Tables = 0;
      else if (flag == "no_byte_transpose")
        o.byteStagedTranspose = 0;
      else if (flag == "checked_tiles")
        o.insideTiles = 0;
      else if (flag == "side")
        o.sideLaunches = true;
      else if (flag == "no_grad_epilogue")
        o.gradEpilogue = false;
      else if (flag == "reuse_weights")
        reuseWeights = true;
      else if (flag == "cublaslt_tune")
        o.cublasLtAutotune = true;
      else if (!flag.empty())
        return fail("recipe '" + recipe + "': unknown '%" + flag +
                    "' (known: %no_fp8_tables, %no_byte_transpose, %checked_tiles, %side, "
                    "%no_grad_epilogue, %reuse_weights, %cublaslt_tune)");
      if (reuseWeights && o.recipe)
        o.recipe->staticWeights = true;
      o.tokens = tokens;
      Expected<std::unique_ptr<GpuTraining>> step = compileTraining(g, o);
      if (!step) {
        std::printf("%-12s %-10s FAILS: %s\n", g.name().c_str(), recipe.c_str(),
                    step.error().c_str());
        std::fflush(stdout);
        continue;
      }
      Entry e{recipe, step.take(), {}, reuseWeights};
      GpuTraining &T = *e.T;
      Status s = bindAll(T.forwardInputs(), "in:", true, 1, e.sb, e.sb.in);
      if (s)
        s = bindAll(T.forwardOutputs(), "out:", false, 0, e.sb, e.sb.out);
      if (s)
        s = bindAll(T.outputGrads(), "dy:", true, 77, e.sb, e.sb.dy);
      if (s)
        s = bindAll(T.inputGrads(), "grad:", false, 0, e.sb, e.sb.grads);
      if (!s)
        return fail(s.message());
      entries.push_back(std::move(e));
    }
    auto runOf = [&](Entry &e) {
      return [&e, stream](int) -> Status {
        if (Status a = e.T->forward(e.sb.in, e.sb.out, stream, e.nextCasts()); !a)
          return a;
        e.cast = true;
        return e.T->backward(e.sb.dy, e.sb.grads, stream);
      };
    };
    std::vector<std::vector<double>> samples(entries.size());        // round-robin: one per round
    std::vector<std::vector<SustainedBlock>> blocks(entries.size()); // --sustain's rounds
    std::vector<ProfileRuns> sustainedProfiles(entries.size());      // --sustain --profile
    std::vector<Expected<Stats>> stats;
    TimingOptions one; // a sample: the median of 3 steps after 3 warm-up steps
    one.warmupMs = 0;
    one.minReps = 3;
    one.targetMs = 0;
    one.runsPerGraph = 1;
    if (sustainMs > 0) {
      // Each recipe's step time estimated once (it sizes the blocks), then the rounds.
      std::vector<double> estimateUs;
      for (Entry &e : entries) {
        Expected<Stats> st = timeRuns(drv, stream, runOf(e), 1, false, one);
        if (!st)
          return fail(g.name() + " " + e.recipe + ": " + st.error());
        estimateUs.push_back(st->medianUs);
      }
      SustainedOptions so;
      so.blockMs = sustainMs;
      for (int r = 0; r < reps; ++r)
        for (size_t i = 0; i < entries.size(); ++i) {
          Expected<SustainedBlock> b =
              timeSustained(drv, stream, runOf(entries[i]), estimateUs[i], so, monitor.get());
          if (!b)
            return fail(g.name() + " " + entries[i].recipe + ": " + b.error());
          samples[i].push_back(b->kept.medianUs);
          blocks[i].push_back(*b);
          // With --profile, one profiled step right after the block, at its settled clocks.
          if (profile)
            if (Status ps = collectProfile(*entries[i].T, entries[i].sb, stream,
                                           entries[i].nextCasts(), 1, sustainedProfiles[i]);
                !ps)
              return fail(g.name() + " " + entries[i].recipe + ": " + ps.message());
        }
      for (size_t i = 0; i < entries.size(); ++i) {
        Stats st = statsOf(samples[i]);
        st.reps = reps;
        stats.push_back(st);
      }
    } else if (interleave) {
      for (int r = 0; r < reps; ++r)
        for (size_t i = 0; i < entries.size(); ++i) {
          Expected<Stats> st = timeRuns(drv, stream, runOf(entries[i]), 1, cudaGraph, one);
          if (!st)
            return fail(g.name() + " " + entries[i].recipe + ": " + st.error());
          samples[i].push_back(st->medianUs);
        }
      for (size_t i = 0; i < entries.size(); ++i) {
        Stats st = statsOf(samples[i]);
        st.reps = reps;
        stats.push_back(st);
      }
    } else {
      for (Entry &e : entries)
        stats.push_back(timeRuns(drv, stream, runOf(e), 1, cudaGraph, topt));
    }
    const auto base = std::find_if(entries.begin(), entries.end(),
                                   [](const Entry &e) { return e.recipe == "none"; });
    const size_t baseIdx = size_t(base - entries.begin());
    for (size_t i = 0; i < entries.size(); ++i) {
      Entry &e = entries[i];
      if (!stats[i]) {
        std::printf("%-12s %-10s FAILS: %s\n", g.name().c_str(), e.recipe.c_str(),
                    stats[i].error().c_str());
        std::fflush(stdout);
        continue;
      }
      const Stats &st = *stats[i];
      // The speed-up against recipe none: interleaved, the median of the per-round ratios (each
      // round's two steps ran within milliseconds of each other); else of the two medians.
      double ratio = 0;
      if (base != entries.end() && stats[baseIdx]) {
        if (roundRobin) {
          std::vector<double> r;
          for (int k = 0; k < reps; ++k)
            r.push_back(samples[baseIdx][size_t(k)] / samples[i][size_t(k)]);
          std::sort(r.begin(), r.end());
          ratio = r[r.size() / 2];
        } else {
          ratio = stats[baseIdx]->medianUs / st.medianUs;
        }
      }
      rows.push_back({g.name(), e.recipe, st, e.T->savedBytes(), ratio});
      std::printf("%-12s %-10s median %9.1f us  p10 %9.1f  p90 %9.1f  (%d %s)  %s  saved "
                  "%.1f MiB\n",
                  g.name().c_str(), e.recipe.c_str(), st.medianUs, st.p10Us, st.p90Us, st.reps,
                  roundRobin ? "rounds" : "steps",
                  ratio > 0 ? ("x" + std::to_string(ratio).substr(0, 5) + " vs none (bf16)").c_str()
                            : "",
                  double(e.T->savedBytes()) / (1 << 20));
      if (!blocks[i].empty())
        printBlocks(blocks[i], base != entries.end() && i != baseIdx ? &blocks[baseIdx] : nullptr,
                    rows.back());
      std::fflush(stdout);
    }
    if (profile) {
      std::vector<ProfileSums> sums(entries.size());
      for (size_t i = 0; i < entries.size(); ++i) {
        Entry &e = entries[i];
        ProfileRuns &runs = sustainedProfiles[i];
        if (runs[0].empty())
          if (Status ps = collectProfile(*e.T, e.sb, stream, e.nextCasts(), 7, runs); !ps)
            return fail(ps.message());
        std::printf("%-12s %-10s per-launch profile (%s)\n", g.name().c_str(), e.recipe.c_str(),
                    sustainMs > 0 ? "one step after each block, medians over the blocks"
                                  : "medians of 7 steps");
        sums[i] = printProfile(runs);
      }
      // What the GEMMs alone allow: recipe none's step median over this recipe's GEMMs (every
      // cast, transpose and scale launch free); and the copy-speed floor: the GEMMs as profiled
      // plus every other launch's bytes at the device's copy rate (no launch moves fewer bytes,
      // and none has measured faster than the copy rate).
      if (base != entries.end() && stats[baseIdx])
        for (size_t i = 0; i < entries.size(); ++i) {
          if (i == baseIdx || sums[i].gemmUs <= 0)
            continue;
          const double noneUs = stats[baseIdx]->medianUs;
          std::printf("%-12s %-10s bound: x%.3f vs none with only its GEMMs (%.1f us of GEMMs "
                      "against none's %.1f us step)\n",
                      g.name().c_str(), entries[i].recipe.c_str(), noneUs / sums[i].gemmUs,
                      sums[i].gemmUs, noneUs);
          const double copyUs = double(sums[i].restBytes) / (copy.gbs * 1e3);
          std::printf("%-12s %-10s floor: x%.3f vs none with its GEMMs as profiled and every "
                      "other launch at the copy rate (%.1f MB at %.2f TB/s: %.1f us against "
                      "%.1f us profiled)\n",
                      g.name().c_str(), entries[i].recipe.c_str(),
                      noneUs / (sums[i].gemmUs + copyUs), double(sums[i].restBytes) / 1e6,
                      copy.gbs / 1e3, copyUs, sums[i].restUs);
        }
    }
  }
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\"device\": \"" << dev->name << "\", \"tokens\": " << tokens << ", \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      out << "  {\"graph\": \"" << r.graph << "\", \"recipe\": \"" << r.recipe
          << "\", \"median_us\": " << r.stats.medianUs << ", \"p10_us\": " << r.stats.p10Us
          << ", \"p90_us\": " << r.stats.p90Us << ", \"reps\": " << r.stats.reps
          << ", \"saved_bytes\": " << r.savedBytes << ", \"speedup_vs_none\": " << r.speedup
          << ", \"interleaved\": " << (interleave ? "true" : "false")
          << ", \"sustain_ms\": " << sustainMs << ", \"joules_per_step\": " << r.joulesPerStep
          << ", \"energy_ratio_vs_none\": " << r.energyRatio
          << ", \"cuda_graph\": " << (cudaGraph ? "true" : "false") << "}"
          << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "]}\n";
  }
  return 0;
}
