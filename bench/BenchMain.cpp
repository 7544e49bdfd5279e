// fp8c-bench: fp8c against its peers on the shapes of bench/shapes.txt, side by side in one
// process on the same inputs (Variants.h lists what runs), with the roofline floor of each row
// from ceilings measured at the start of the same run. Prints a progress line per row and the
// table at the end, and writes the JSON that bench/report.py merges and plots (--json=FILE, or
// <device>-<date>.json under $OUT, else under build-gpu/results/).
//
//   fp8c-bench [--shapes=FILE] [--only=NAME,...] [--recipes=R,...] [--variants=V,...]
//              [--json=FILE] [--jobs=N] [--quick] [--target-ms=MS] [--lower-only] [--profile]
//              [--interleave=ROUNDS]
// --profile prints, under each fp8c row, every step's median over 7 profiled runs and what it
// ran (a GEMM step: its backend and the measured choice behind it).
// --interleave adds, per shape after its rows, ROUNDS rounds that time every row once each
// (each round in its own shuffled order; a sample is the median of 3 runs after 3 warm-up
// runs), and prints each row's
// median sample and the median over rounds of its ratio to the same recipe's fp8-gemm sample
// of that round: clock and power drift (the board runs these GEMMs at its power cap) then
// fall on both sides of each ratio alike.
#include "bench/BenchDevice.h"
#include "bench/CopyRate.h"
#include "bench/DeviceFill.h"
#include "bench/Report.h"
#include "bench/Variants.h"
#include "ir/Parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace fp8c;
using namespace fp8c::bench;

namespace {

struct Args {
  std::string shapes = "bench/shapes.txt";
  std::vector<std::string> only, recipes = {"tensorwise", "delayed", "rowwise", "blockwise"},
                                 variants;
  std::string json;
  int jobs = 8;
  bool lowerOnly = false; ///< passes and lowering of every graph variant, no GPU
  bool profile = false;   ///< per-step medians of every fp8c row (Prepared::profileLines)
  int interleave = 0;     ///< rounds of round-robin samples per shape (0: none)
  TimingOptions timing;
};

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    if (!t.empty())
      out.push_back(t);
  return out;
}

bool parseArgs(int argc, char **argv, Args &a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&](const char *key) -> const char * {
      size_t n = std::strlen(key);
      return s.compare(0, n, key) == 0 ? s.c_str() + n : nullptr;
    };
    if (const char *v = val("--shapes="))
      a.shapes = v;
    else if (const char *v = val("--only="))
      a.only = splitList(v);
    else if (const char *v = val("--recipes="))
      a.recipes = splitList(v);
    else if (const char *v = val("--variants="))
      a.variants = splitList(v);
    else if (const char *v = val("--json="))
      a.json = v;
    else if (const char *v = val("--jobs="))
      a.jobs = std::max(1, std::atoi(v));
    else if (const char *v = val("--target-ms="))
      a.timing.targetMs = std::atof(v);
    else if (s == "--profile")
      a.profile = true;
    else if (const char *v = val("--interleave="))
      a.interleave = std::max(0, std::atoi(v));
    else if (s == "--lower-only")
      a.lowerOnly = true;
    else if (s == "--quick") {
      a.timing.targetMs = 20;
      a.timing.warmupMs = 5;
      a.timing.minReps = 5;
    } else {
      std::fprintf(stderr, "fp8c-bench: unknown argument '%s'\n", s.c_str());
      return false;
    }
  }
  return true;
}

bool selected(const std::vector<std::string> &filter, const std::string &name, bool substring) {
  if (filter.empty())
    return true;
  for (const std::string &f : filter)
    if (substring ? name.find(f) != std::string::npos : name == f)
      return true;
  return false;
}

std::string slugOf(std::string name) {
  if (name.rfind("NVIDIA ", 0) == 0)
    name = name.substr(7);
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-';
  return s;
}

double relErr(const std::vector<float> &a, const std::vector<float> &ref) {
  if (a.size() != ref.size() || ref.empty())
    return -1;
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = double(a[i]) - double(ref[i]);
    num += d * d;
    den += double(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0);
}

int fail(const std::string &msg) {
  std::fprintf(stderr, "fp8c-bench: %s\n", msg.c_str());
  return 1;
}

/// The two ceilings: FP8 GEMM 8192^3 through cuBLASLt, and a 1 GiB device-to-device copy.
Expected<Ceilings> measureCeilings(CudaDriver *drv, CUstream stream, int64_t l2,
                                   const TimingOptions &t) {
  Ceilings c;
  Expected<CopyRate> cr = measureCopyRate(drv, stream, size_t(1) << 30, t);
  if (!cr)
    return Error(cr.error());
  c.copyStats = cr->stats;
  c.copyGBs = cr->gbs;

  Shape sq;
  sq.name = "peak";
  sq.m = sq.n = sq.k = 8192;
  Expected<std::unique_ptr<Prepared>> g = prepareGemmOnly(sq, "tensorwise", l2);
  if (!g)
    return Error(g.error());
  Expected<Stats> gs = timeRuns(
      drv, stream, [&](int set) { return (*g)->run(set, stream); }, (*g)->sets(), false, t);
  if (!gs)
    return Error(gs.error());
  c.fp8Stats = *gs;
  c.fp8Tflops = flopsOf(sq) / (gs->medianUs * 1e-6) / 1e12;
  return c;
}

struct Job {
  const Variant *variant;
  std::string recipe;
  Expected<std::unique_ptr<Prepared>> prepared = Error("not prepared");
};

/// --interleave: args.interleave rounds over the shape's prepared jobs, one sample each per
/// round; each job's median sample and its median per-round ratio to fp8-gemm of its recipe.
void printInterleaved(CudaDriver *drv, CUstream stream, const Shape &s, std::vector<Job> &jobs,
                      const Args &args) {
  TimingOptions one;
  one.warmupMs = 0; // and at least 3 runs
  one.targetMs = 0;
  one.minReps = 3;
  one.runsPerGraph = args.timing.runsPerGraph;
  std::vector<std::vector<double>> samples(jobs.size());
  // Each round in its own order (a fixed seed): a sample's clock depends on the samples just
  // before it, so a fixed order would bias some rows against others.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::mt19937 rng(6);
  for (int round = 0; round < args.interleave; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
      if (!jobs[i].prepared)
        continue;
      Prepared &p = **jobs[i].prepared;
      Expected<Stats> st = timeRuns(
          drv, stream, [&](int set) { return p.run(set, stream); }, p.sets(), s.cudaGraph, one);
      samples[i].push_back(st ? st->medianUs : std::nan(""));
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? std::nan("") : v[v.size() / 2];
  };
  std::printf("\n%s: %d interleaved rounds (median sample; median of the per-round ratios to "
              "the recipe's fp8-gemm)\n",
              s.name.c_str(), args.interleave);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (samples[i].empty())
      continue;
    std::string ratio = "";
    for (size_t k = 0; k < jobs.size(); ++k)
      if (k != i && jobs[k].recipe == jobs[i].recipe && jobs[k].variant->name == "fp8-gemm" &&
          samples[k].size() == samples[i].size()) {
        std::vector<double> r;
        for (size_t t = 0; t < samples[i].size(); ++t)
          r.push_back(samples[i][t] / samples[k][t]);
        std::sort(r.begin(), r.end());
        ratio = fmt::format("{:.3f}x fp8-gemm (p10 {:.3f}, p90 {:.3f})", r[r.size() / 2],
                            r[r.size() / 10], r[r.size() * 9 / 10]);
      }
    std::printf("  %-20s %-10s %-12s %9.1f us  %s\n", s.name.c_str(), jobs[i].recipe.c_str(),
                jobs[i].variant->name.c_str(), median(samples[i]), ratio.c_str());
  }
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  Args args;
  if (!parseArgs(argc, argv, args))
    return 1;
  Expected<std::string> text = readSource(args.shapes);
  if (!text)
    return fail(text.error());
  Expected<std::vector<Shape>> parsed = parseShapes(*text, args.shapes);
  if (!parsed)
    return fail(parsed.error());
  std::vector<Shape> shapes;
  for (const Shape &s : *parsed)
    if (selected(args.only, s.name, true))
      shapes.push_back(s);
  std::vector<const Variant *> variants;
  for (const Variant &v : allVariants())
    if (selected(args.variants, v.name, false))
      variants.push_back(&v);
  if (shapes.empty() || variants.empty())
    return fail("nothing selected (check --only and --variants)");

  if (args.lowerOnly) {
    int bad = 0;
    for (const Shape &s : shapes)
      for (const Variant *v : variants)
        for (const std::string &r : v->perRecipe ? args.recipes : std::vector<std::string>{"none"})
          if (v->lower) {
            Expected<std::string> p = v->lower(s, r);
            bad += !p;
            std::printf("%-20s %-10s %-12s %s\n", s.name.c_str(), r.c_str(), v->name.c_str(),
                        p ? p->c_str() : ("FAILS: " + p.error()).c_str());
          }
    return bad ? 1 : 0;
  }
  Expected<BenchDevice> bd = openBenchDevice();
  if (!bd)
    return fail(bd.error());
  CudaDriver *drv = bd->drv;
  const Device *dev = &bd->dev;
  CUstream stream = bd->stream;

  RunInfo info;
  info.run = recordRun(drv, *dev, argc, argv);
  info.deviceSlug = slugOf(dev->name);
  info.timing = args.timing;
  for (const Variant *v : variants)
    info.variants.push_back({v->name, v->description});
  std::printf("fp8c-bench on %s\n", dev->str().c_str());
  std::fflush(stdout);
  Expected<Ceilings> ceil = measureCeilings(drv, stream, dev->l2Bytes, args.timing);
  if (!ceil)
    return fail("measuring the ceilings: " + ceil.error());
  info.ceilings = *ceil;
  std::printf("ceilings: cuBLASLt FP8 8192^3 %.0f TFLOP/s (median %.1f us), copy %.0f GB/s "
              "(1 GiB, read + write)\n",
              ceil->fp8Tflops, ceil->fp8Stats.medianUs, ceil->copyGBs);

  size_t total = 0;
  for (const Variant *v : variants)
    total += shapes.size() * (v->perRecipe ? args.recipes.size() : 1);
  std::printf("%zu shapes x %zu variants x %zu recipes: %zu rows\n\n%s\n", shapes.size(),
              variants.size(), args.recipes.size(), total, tableHeader().c_str());
  std::fflush(stdout);

  std::vector<Row> rows;
  // Written after every shape too, so a run cut short keeps what it measured.
  std::string json = args.json;
  if (json.empty()) {
    Expected<std::string> p = benchOutputPath(info.deviceSlug + "-" + info.run.date + ".json");
    if (!p)
      return fail(p.error());
    json = *p;
  }
  auto writeJson = [&] {
    std::ofstream f(json);
    f << toJson(info, rows);
    return static_cast<bool>(f);
  };
  auto t0 = std::chrono::steady_clock::now();
  for (const Shape &s : shapes) {
    Expected<std::unique_ptr<Graph>> g = shapeGraph(s);
    if (!g)
      return fail(g.error());
    Expected<ShapeInputs> in = makeInputs(**g, s.m, dev->l2Bytes);
    if (!in)
      return fail(in.error());
    std::vector<Job> jobs;
    for (const Variant *v : variants)
      for (const std::string &r : v->perRecipe ? args.recipes : std::vector<std::string>{"none"})
        jobs.push_back({v, r});
    // Compile and allocate in parallel (NVRTC dominates), then time one at a time.
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int w = 0; w < std::min<int>(args.jobs, static_cast<int>(jobs.size())); ++w)
      pool.emplace_back([&] {
        if (Status st = drv->makeCurrent(0); !st)
          return;
        for (size_t i; (i = next++) < jobs.size();)
          jobs[i].prepared = jobs[i].variant->prepare(s, jobs[i].recipe, *in);
      });
    for (std::thread &t : pool)
      t.join();

    std::vector<float> bf16Out;
    double bf16Us = 0;
    for (Job &j : jobs) {
      Row r;
      r.shape = s.name;
      r.dims = s.dims();
      r.recipe = j.recipe;
      r.variant = j.variant->name;
      r.flops = flopsOf(s);
      if (!j.prepared) {
        r.error = j.prepared.error();
      } else {
        Prepared &p = **j.prepared;
        Expected<Stats> st = timeRuns(
            drv, stream, [&](int set) { return p.run(set, stream); }, p.sets(), s.cudaGraph,
            args.timing);
        if (!st) {
          r.error = st.error();
          drv->cuStreamSynchronize(stream);
        } else {
          r.stats = *st;
          r.launches = p.launches();
          r.sets = p.sets();
          r.floorBytes = p.floorBytes();
          r.floorUs = std::max(r.flops / (ceil->fp8Tflops * 1e12),
                               r.floorBytes / (ceil->copyGBs * 1e9)) * 1e6;
          Expected<std::vector<float>> out = p.outputRows(64, stream);
          if (!out)
            r.error = "output check: " + out.error();
          else if (r.variant == "bf16") {
            bf16Out = *out;
            bf16Us = r.stats.medianUs;
          } else if (!out->empty())
            r.relErrVsBf16 = relErr(*out, bf16Out);
          if (bf16Us > 0)
            r.speedupVsBf16 = bf16Us / r.stats.medianUs;
          if (args.profile) {
            Expected<std::vector<std::string>> lines = p.profileLines(stream);
            if (!lines)
              r.error = lines.error();
            else
              for (const std::string &l : *lines)
                std::printf("    %s %s %s\n", r.variant.c_str(), r.recipe.c_str(), l.c_str());
          }
        }
      }
      if (args.interleave == 0 || !r.error.empty())
        j.prepared = Error("done"); // frees its device memory before the next shape
      rows.push_back(r);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s   [%zu/%zu %.0fs]\n", formatRow(r).c_str(), rows.size(), total, secs);
      std::fflush(stdout);
    }
    if (args.interleave > 0)
      printInterleaved(drv, stream, s, jobs, args);
    for (Job &j : jobs)
      j.prepared = Error("done");
    writeJson();
  }

  std::printf("\n%s\n", tableHeader().c_str());
  for (const Row &r : rows)
    std::printf("%s\n", formatRow(r).c_str());
  std::printf("\nfloor = max(FLOPs / %.0f TFLOP/s, bytes / %.0f GB/s), both measured above; "
              "floor%% = floor / median; err = relative error of the output's first 64 rows vs "
              "bf16; ln = launches per run; G = CUDA-graph replays\n",
              ceil->fp8Tflops, ceil->copyGBs);
  if (!writeJson())
    return fail("cannot write " + json);
  std::printf("wrote %s\n", json.c_str());
  int errors = 0;
  for (const Row &r : rows)
    errors += !r.error.empty();
  std::printf("%d of %zu rows did not run (n/a)\n", errors, rows.size());
  return 0;
}
