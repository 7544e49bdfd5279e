// The registry of passes: name -> description, options and factory. The pipeline parser and
// `--help` output come from it, so a pass exists in exactly one place.
#pragma once

#include "passes/Pass.h"
#include "passes/Passes.h"
#include "ir/Status.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace fp8c {

struct PassOptionInfo {
  std::string name;
  std::string values;      ///< accepted values, e.g. "tensorwise|delayed|rowwise|blockwise"
  std::string defaultValue;
  std::string description;
};

struct PassInfo {
  std::string name;
  std::string description;
  std::vector<PassOptionInfo> options;
  /// Creates the pass from validated option names: parses their values into the pass's typed
  /// options once (what they do not say from the PipelineDefaults).
  std::function<Expected<std::unique_ptr<Pass>>(const PassOptions &, const PipelineDefaults &)>
      create;
};

/// Every registered pass, in a stable order.
std::span<const PassInfo> allPasses();
const PassInfo *lookupPass(std::string_view name);

/// Checks option names against `info` (values are the pass's business). "" when fine.
std::string checkPassOptionNames(const PassInfo &info, const PassOptions &opts);

} // namespace fp8c
