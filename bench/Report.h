// The benches' results and their renderings: fp8c-bench's rows (one per shape, recipe and
// variant) with the run's ceilings, as the terminal table and the JSON file bench/report.py
// reads; fp8c-train-bench's and fp8c-gemm-bench's rows as JSON; the JSON text helpers and
// where a bench writes a file it names itself.
#pragma once

#include "bench/BenchDevice.h"
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
  RunRecord run;
  std::string deviceSlug;
  Ceilings ceilings;
  TimingOptions timing;
  std::vector<std::pair<std::string, std::string>> variants; ///< name, description
};

/// fp8c-train-bench's row: one graph's training step with one recipe.
struct TrainRow {
  std::string graph, recipe;
  Stats stats;
  int64_t savedBytes = 0;
  double speedup = 0;        ///< against recipe none in the same process (0: none measured)
  double joulesPerStep = 0;  ///< --sustain with NVML (0: not measured)
  double energyRatio = 0;    ///< recipe none's joules per step over this one's (0: n/a)
  double meanWatts = 0, smMhz = 0, cappedFraction = 0; ///< --sustain: over the blocks
  /// --profile: the step's GEMM launches, the other launches and their bytes (0: no profile).
  double gemmUs = 0, restUs = 0;
  int64_t restBytes = 0;
  /// --profile: recipe none's step over this recipe's GEMMs alone (the bound), and over its
  /// GEMMs plus every other launch's bytes at the copy rate (the floor); 0 for none itself.
  double boundSpeedup = 0, floorSpeedup = 0;
};

/// How fp8c-train-bench timed its steps, for its JSON.
struct TrainRunInfo {
  RunRecord run;
  int64_t tokens = 0;
  std::string mode;      ///< "steps", "interleave" or "sustain"
  double sustainMs = 0;  ///< --sustain's block length (0 otherwise)
  int reps = 0;          ///< steps, rounds or blocks
  bool cudaGraph = false;
  double copyGBs = 0;    ///< --profile: the device-to-device copy rate (0: not measured)
};

/// fp8c-train-bench's JSON document.
std::string trainJson(const TrainRunInfo &info, const std::vector<TrainRow> &rows);

/// fp8c-gemm-bench's row: cuBLASLt or one generated kernel config at one shape and epilogue.
struct GemmRow {
  int64_t m = 0, k = 0, n = 0;
  std::string epilogue;  ///< "plain" or the epilogue / scale mode
  std::string backend;   ///< "cublaslt" or "generated"
  std::string config;    ///< the generated kernel's tile config, or cuBLASLt's mode
  bool heuristic = false;///< the generated config the tile heuristic picks
  double us = 0, tflops = 0;
  double vsCublasLt = 0; ///< cuBLASLt's time over this one, same process (0: n/a)
};

/// fp8c-gemm-bench's JSON document; `copyGBs` the device-to-device copy rate (0: not measured).
std::string gemmJson(const RunRecord &run, double copyGBs, const std::vector<GemmRow> &rows);

/// A JSON string literal of `s`, escaped.
std::string jsonString(const std::string &s);
/// A JSON number (6 significant digits), or null where `v` is not finite.
std::string jsonNumber(double v);
/// The run record as JSON members, without braces: "device", "device_info", "driver",
/// "power_limit_w", "date", "command".
std::string runRecordJson(const RunRecord &r);

/// Where a bench writes a file it names itself: $OUT/NAME where OUT is set and not empty, else
/// build-gpu/results/NAME; the folder is created. Never a tracked path.
Expected<std::string> benchOutputPath(const std::string &name);

/// One line per row (the progress line uses the same format).
std::string formatRow(const Row &r);
std::string tableHeader();
/// The JSON document (rows in order).
std::string toJson(const RunInfo &info, const std::vector<Row> &rows);

} // namespace fp8c::bench
