// fp8c-bench's results: one Row per (shape, recipe, variant), the run's ceilings, and their
// two renderings, the terminal table and the JSON file that bench/report.py merges and plots.
#pragma once

#include "bench/Timing.h"

#include <cstdio>
#include <string>
#include <vector>

namespace fp8c::bench {

struct Ceilings {
  double fp8Tflops = 0; ///< cuBLASLt FP8 8192^3 (tensor scales, fast accumulation), median
  double copyGBs = 0;   ///< device-to-device copy of 1 GiB, bytes read + written, median
  Stats fp8Stats, copyStats;
};

struct Row {
  std::string shape, dims, recipe, variant;
  std::string error; ///< non-empty: the variant could not run this shape (why)
  Stats stats;
  double flops = 0, floorBytes = 0, floorUs = 0;
  int launches = 0, sets = 0;
  double speedupVsBf16 = 0; ///< 0: unknown
  double relErrVsBf16 = -1; ///< relative Frobenius error of the output's first rows; < 0: n/a
  double tflops() const { return stats.medianUs > 0 ? flops / stats.medianUs / 1e6 : 0; }
};

struct RunInfo {
  std::string device, deviceSlug, date, driver, command;
  Ceilings ceilings;
  TimingOptions timing;
  std::vector<std::pair<std::string, std::string>> variants; ///< name, description
};

/// One line per row (the progress line uses the same format).
std::string formatRow(const Row &r);
std::string tableHeader();
/// The JSON document (rows in order).
std::string toJson(const RunInfo &info, const std::vector<Row> &rows);

} // namespace fp8c::bench
