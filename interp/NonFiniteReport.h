// What a run saw of non-finite values (docs/numerics.md, "Reporting"): per output, how many of
// its elements are NaN or +-inf; per amax history, how many non-finite amaxes fp8.history_push
// skipped (the history and with it the next scale stay as they were). The CPU interpreter fills
// one (InterpretOptions::report), an Executable keeps one on the device (Executable.h,
// nonFiniteReport), the training steps add theirs up (Training.h, TrainingGpu.h); the fp8c CLI
// prints warnings() and, under --check, fails when the report is not clean.
#pragma once

#include "interp/HostTensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fp8c {

struct NonFiniteReport {
  struct Output {
    std::string name;
    int64_t count = 0; ///< NaN and +-inf elements; -1: not counted
  };
  struct History {
    std::string key;     ///< the fp8.state key (else the history input's name)
    int64_t skipped = 0; ///< non-finite amaxes not pushed
  };
  std::vector<Output> outputs;
  std::vector<History> histories;

  /// No output counted a non-finite value and no history skipped an amax.
  bool clean() const;
  /// One line per output with non-finite values and per history that skipped an amax:
  ///   warning: output 'y' has 3 non-finite values
  ///   warning: history 'x_amax_history': non-finite amax skipped at this step, previous scale kept
  /// (a history that skipped n > 1: "n non-finite amaxes skipped, previous scales kept").
  std::vector<std::string> warnings() const;
  /// The skipped count of history `key` (0 when absent).
  int64_t skippedOf(const std::string &key) const;
  /// Adds `other`'s counts into this one, by output name and history key (new ones appended;
  /// an uncounted output, -1, stays uncounted only where both are).
  void add(const NonFiniteReport &other);
};

/// The NaN and +-inf elements of `t`.
int64_t countNonFinite(const HostTensor &t);

} // namespace fp8c
