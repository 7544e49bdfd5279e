// Table and JSON rendering of fp8c-bench's rows: see Report.h.
#include "bench/Report.h"

#include <fmt/format.h>

#include <cmath>

namespace fp8c::bench {
namespace {

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

std::string num(double v) {
  if (!std::isfinite(v))
    return "null";
  return fmt::format("{:.6g}", v);
}

std::string statsJson(const Stats &s) {
  return fmt::format("\"median_us\": {}, \"p10_us\": {}, \"p90_us\": {}, \"min_us\": {}, "
                     "\"max_us\": {}, \"reps\": {}, \"cuda_graph\": {}",
                     num(s.medianUs), num(s.p10Us), num(s.p90Us), num(s.minUs), num(s.maxUs),
                     s.reps, s.cudaGraph ? "true" : "false");
}

} // namespace

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
  o += fmt::format("  \"tool\": \"fp8c-bench\",\n  \"device\": {},\n  \"device_slug\": {},\n"
                   "  \"date\": {},\n  \"driver\": {},\n  \"command\": {},\n",
                   jsonString(info.device), jsonString(info.deviceSlug), jsonString(info.date),
                   jsonString(info.driver), jsonString(info.command));
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
