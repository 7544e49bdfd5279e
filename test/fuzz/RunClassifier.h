// How fp8c-graph-fuzz judges one fp8c run on a generated graph.
//
//   exit 0            ok; with --compare, every output's relative Frobenius error must be
//                     within the recipe's bound (errorBound) and finite
//   exit 1            ok when stderr holds a located diagnostic (`file:line:col: error: ...`),
//                     unless it is a backend stage refusing what the planner produced: a message
//                     with "codegen:" (a limit of the fuser is the planner's to decide) or naming
//                     an internal limit; an `fp8c: error:` on options that fp8c-graph-fuzz passes
//                     for every graph is a finding too
//   exit 2, any other status, a signal, a timeout: a finding
// A finding's signature is the mode (run, cuda, ptx, train, verify) and the first error line with its
// location, numbers, SSA names and tensor types replaced, so that one bug counts once.
#pragma once

#include "ChildPool.h"
#include "GraphGenerator.h"

#include <string>

namespace fp8c::fuzz {

struct RunSetting {
  std::string mode;    ///< verify, run, cuda, ptx, train
  std::string recipe;  ///< "" when none
  std::string backend; ///< "" when none
  std::vector<std::string> args;
  double timeout = 60;
  std::string label() const; ///< e.g. "cuda/tensorwise/generated"
};

struct Verdict {
  enum Kind { Ok, Rejected, Finding } kind = Ok;
  std::string signature; ///< a Finding's (Rejected: the normalized message)
  std::string message;   ///< the first error line as printed
};

/// The bound of an output's relative error under `recipe` ("" none) for a generated output.
double errorBound(const std::string &recipe, const GeneratedOutput &o);

Verdict classify(const RunSetting &s, const ChildResult &r, const std::string &out,
                 const std::string &err, const GeneratedGraph &g);

/// `message` with location, numbers, SSA names and tensor types replaced.
std::string normalizeMessage(const std::string &message);

} // namespace fp8c::fuzz
