// The pass interface. A pass rewrites one graph in place; it reports user errors as located
// diagnostics and returns false, and the pass manager then stops: a failed pipeline never
// prints its half-rewritten graph as a success. Analyses that print (--print-fusion-plan)
// write to PassContext::analysisOut.
#pragma once

#include "ir/Diagnostics.h"
#include "ir/IR.h"

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace fp8c {

/// Options of one pass in a pipeline: `quantize{recipe=tensorwise pow2=true}`.
using PassOptions = std::map<std::string, std::string, std::less<>>;

struct PassContext {
  DiagnosticEngine &diag;
  std::ostream *analysisOut = nullptr; ///< where analysis passes print; null = nowhere
};

class Pass {
public:
  virtual ~Pass() = default;
  /// The pipeline name (`cse`, `quantize`).
  virtual std::string_view name() const = 0;
  /// The options as they would be written back into a pipeline string ("" when none).
  virtual std::string optionsString() const { return ""; }
  /// Rewrites `g`; returns false after emitting at least one error.
  virtual bool run(Graph &g, PassContext &ctx) = 0;
};

} // namespace fp8c
