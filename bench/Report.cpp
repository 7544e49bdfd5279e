// The benches' tables and JSON documents, and where their files go: see Report.h.
#include "bench/Report.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fp8c::bench {
namespace {

std::string num(double v) { return jsonNumber(v); }

std::string statsJson(const Stats &s) {
  return fmt::format("\"median_us\": {}, \"p10_us\": {}, \"p90_us\": {}, \"min_us\": {}, "
                     "\"max_us\": {}, \"reps\": {}, \"cuda_graph\": {}",
                     num(s.medianUs), num(s.p10Us), num(s.p90Us), num(s.minUs), num(s.maxUs),
                     s.reps, s.cudaGraph ? "true" : "false");
}

const char *jsonBool(bool b) { return b ? "true" : "false"; }

} // namespace

std::string jsonString(const std::string &s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
    case '"': o += "\\\""; break;
    case '\\': o += "\\\\"; break;
    case '\n': o += "\\n"; break;
    case '\t': o += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        o += fmt::format("\\u{:04x}", c);
      else
        o += c;
    }
  }
  return o + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  return fmt::format("{:.6g}", v);
}

std::string runRecordJson(const RunRecord &r) {
  return fmt::format("\"device\": {}, \"device_info\": {}, \"driver\": {}, "
                     "\"power_limit_w\": {}, \"date\": {}, \"command\": {}",
                     jsonString(r.device), jsonString(r.deviceInfo), jsonString(r.driver),
                     r.powerLimitW > 0 ? num(r.powerLimitW) : "null", jsonString(r.date),
                     jsonString(r.command));
}

Expected<std::string> benchOutputPath(const std::string &name) {
  const char *out = std::getenv("OUT");
  const std::filesystem::path dir =
      out && *out ? std::filesystem::path(out) : std::filesystem::path("build-gpu") / "results";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error("cannot create " + dir.string() + ": " + ec.message());
  return (dir / name).string();
}

std::string trainJson(const TrainRunInfo &info, const std::vector<TrainRow> &rows) {
  std::string o = "{\n";
  o += fmt::format("  \"tool\": \"fp8c-train-bench\",\n  {},\n", runRecordJson(info.run));
  o += fmt::format("  \"tokens\": {}, \"mode\": {}, \"sustain_ms\": {}, \"reps\": {}, "
                   "\"cuda_graph\": {}, \"copy_gbs\": {},\n  \"rows\": [\n",
                   info.tokens, jsonString(info.mode), num(info.sustainMs), info.reps,
                   jsonBool(info.cudaGraph), info.copyGBs > 0 ? num(info.copyGBs) : "null");
  auto opt = [](double v) { return v > 0 ? num(v) : std::string("null"); };
  for (size_t i = 0; i < rows.size(); ++i) {
    const TrainRow &r = rows[i];
    const bool profiled = r.gemmUs > 0;
    o += fmt::format(
        "    {{\"graph\": {}, \"recipe\": {}, \"median_us\": {}, \"p10_us\": {}, \"p90_us\": {}, "
        "\"reps\": {}, \"saved_bytes\": {}, \"speedup_vs_none\": {}, \"joules_per_step\": {}, "
        "\"energy_ratio_vs_none\": {}, \"mean_watts\": {}, \"sm_mhz\": {}, "
        "\"capped_fraction\": {}, \"gemm_us\": {}, \"rest_us\": {}, \"rest_bytes\": {}, "
        "\"bound_speedup\": {}, \"floor_speedup\": {}}}{}\n",
        jsonString(r.graph), jsonString(r.recipe), num(r.stats.medianUs), num(r.stats.p10Us),
        num(r.stats.p90Us), r.stats.reps, r.savedBytes, opt(r.speedup), opt(r.joulesPerStep),
        opt(r.energyRatio), opt(r.meanWatts), opt(r.smMhz),
        r.meanWatts > 0 ? num(r.cappedFraction) : "null", profiled ? num(r.gemmUs) : "null",
        profiled ? num(r.restUs) : "null",
        profiled ? std::to_string(r.restBytes) : std::string("null"), opt(r.boundSpeedup),
        opt(r.floorSpeedup), i + 1 < rows.size() ? "," : "");
  }
  return o + "  ]\n}\n";
}

std::string gemmJson(const RunRecord &run, double copyGBs, const std::vector<GemmRow> &rows) {
  std::string o = "{\n";
  o += fmt::format("  \"tool\": \"fp8c-gemm-bench\",\n  {},\n  \"copy_gbs\": {},\n  \"rows\": [\n",
                   runRecordJson(run), copyGBs > 0 ? num(copyGBs) : "null");
  for (size_t i = 0; i < rows.size(); ++i) {
    const GemmRow &r = rows[i];
    o += fmt::format("    {{\"m\": {}, \"k\": {}, \"n\": {}, \"epilogue\": {}, \"backend\": {}, "
                     "\"config\": {}, \"heuristic\": {}, \"us\": {}, \"tflops\": {}, "
                     "\"vs_cublaslt\": {}}}{}\n",
                     r.m, r.k, r.n, jsonString(r.epilogue), jsonString(r.backend),
                     jsonString(r.config), jsonBool(r.heuristic), num(r.us), num(r.tflops),
                     r.vsCublasLt > 0 ? num(r.vsCublasLt) : "null", i + 1 < rows.size() ? "," : "");
  }
  return o + "  ]\n}\n";
}

std::string tableHeader() {
  return fmt::format("{:<20} {:<10} {:<12} {:>10} {:>19} {:>7} {:>9} {:>6} {:>7} {:>8} {:>3}",
                     "shape", "recipe", "variant", "median us", "p10 - p90 us", "TFLOP/s",
                     "floor us", "floor%", "vs bf16", "err", "ln");
}

std::string formatRow(const Row &r) {
  std::string head = fmt::format("{:<20} {:<10} {:<12}", r.shape, r.recipe, r.variant);
  if (!r.error.empty()) {
    std::string e = r.error.substr(0, r.error.find('\n'));
    if (e.size() > 90)
      e = e.substr(0, 87) + "...";
    return head + " n/a: " + e;
  }
  const Stats &s = r.stats;
  std::string spread = fmt::format("{:.1f} - {:.1f}", s.p10Us, s.p90Us);
  std::string vs = r.speedupVsBf16 > 0 ? fmt::format("{:.2f}x", r.speedupVsBf16) : "-";
  std::string err = r.relErrVsBf16 >= 0 ? fmt::format("{:.1e}", r.relErrVsBf16) : "-";
  return head + fmt::format(" {:>10.1f} {:>19} {:>7.0f} {:>9.1f} {:>5.0f}% {:>7} {:>8} {:>3}{}",
                            s.medianUs, spread, r.tflops(), r.floorUs,
                            100.0 * r.floorUs / s.medianUs, vs, err, r.launches,
                            s.cudaGraph ? " G" : "");
}

std::string toJson(const RunInfo &info, const std::vector<Row> &rows) {
  std::string o = "{\n";
  o += fmt::format("  \"tool\": \"fp8c-bench\",\n  {},\n  \"device_slug\": {},\n",
                   runRecordJson(info.run), jsonString(info.deviceSlug));
  const Ceilings &c = info.ceilings;
  o += fmt::format("  \"ceilings\": {{\"fp8_tflops\": {}, \"copy_gbs\": {}, "
                   "\"fp8_gemm\": \"cuBLASLt FP8 e4m3 8192^3, tensor scales, fast accumulation, "
                   "bf16 out, random data\", \"copy\": \"cuMemcpyDtoDAsync 1 GiB, read + write\", "
                   "\"fp8_stats\": {{{}}}, \"copy_stats\": {{{}}}}},\n",
                   num(c.fp8Tflops), num(c.copyGBs), statsJson(c.fp8Stats), statsJson(c.copyStats));
  const TimingOptions &t = info.timing;
  o += fmt::format("  \"timing\": {{\"warmup_ms\": {}, \"target_ms\": {}, \"min_reps\": {}, "
                   "\"max_reps\": {}, \"runs_per_graph\": {}}},\n",
                   num(t.warmupMs), num(t.targetMs), t.minReps, t.maxReps, t.runsPerGraph);
  o += "  \"variants\": {\n";
  for (size_t i = 0; i < info.variants.size(); ++i)
    o += fmt::format("    {}: {}{}\n", jsonString(info.variants[i].first),
                     jsonString(info.variants[i].second), i + 1 < info.variants.size() ? "," : "");
  o += "  },\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    o += fmt::format("    {{\"source\": \"fp8c-bench\", \"shape\": {}, \"dims\": {}, \"recipe\": {}, "
                     "\"variant\": {}, ",
                     jsonString(r.shape), jsonString(r.dims), jsonString(r.recipe),
                     jsonString(r.variant));
    if (!r.error.empty())
      o += fmt::format("\"error\": {}", jsonString(r.error));
    else
      o += fmt::format("{}, \"tflops\": {}, \"flops\": {}, \"floor_bytes\": {}, \"floor_us\": {}, "
                       "\"launches\": {}, \"input_sets\": {}, \"speedup_vs_bf16\": {}, "
                       "\"rel_err_vs_bf16\": {}",
                       statsJson(r.stats), num(r.tflops()), num(r.flops), num(r.floorBytes),
                       num(r.floorUs), r.launches, r.sets,
                       r.speedupVsBf16 > 0 ? num(r.speedupVsBf16) : "null",
                       r.relErrVsBf16 >= 0 ? num(r.relErrVsBf16) : "null");
    o += i + 1 < rows.size() ? "},\n" : "}\n";
  }
  return o + "  ]\n}\n";
}

} // namespace fp8c::bench
