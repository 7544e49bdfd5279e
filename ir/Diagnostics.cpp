// Diagnostic formatting and collection.
#include "ir/Diagnostics.h"

namespace fp8c {

std::string Diagnostic::str() const {
  const char *kind = severity == Severity::Error     ? "error"
                     : severity == Severity::Warning ? "warning"
                                                     : "note";
  return loc.str() + ": " + kind + ": " + message;
}

void DiagnosticEngine::emit(Severity s, const Location &loc, std::string message) {
  if (s == Severity::Error)
    ++numErrors_;
  diags_.push_back({s, loc, std::move(message)});
}

std::string DiagnosticEngine::str() const {
  std::string out;
  for (const Diagnostic &d : diags_)
    out += d.str() + "\n";
  return out;
}

std::string DiagnosticEngine::firstError() const {
  for (const Diagnostic &d : diags_)
    if (d.severity == Severity::Error)
      return d.str();
  return "";
}

} // namespace fp8c
