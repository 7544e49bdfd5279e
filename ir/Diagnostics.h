// Diagnostics: located errors, warnings and notes collected while parsing, verifying and
// running passes. User errors are diagnostics; broken invariants are internal errors (the
// CLI exits 2 for those). Libraries collect; only tools/ prints.
#pragma once

#include "ir/Location.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace fp8c {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  Location loc;
  std::string message;
  /// `file:line:col: error: message`.
  std::string str() const;
};

/// Collects diagnostics in the order they were emitted.
class DiagnosticEngine {
public:
  void emit(Severity s, const Location &loc, std::string message);
  void error(const Location &loc, std::string message) {
    emit(Severity::Error, loc, std::move(message));
  }
  void warning(const Location &loc, std::string message) {
    emit(Severity::Warning, loc, std::move(message));
  }
  void note(const Location &loc, std::string message) {
    emit(Severity::Note, loc, std::move(message));
  }
  template <typename... Args>
  void error(const Location &loc, fmt::format_string<Args...> f, Args &&...args) {
    error(loc, fmt::format(f, std::forward<Args>(args)...));
  }

  bool hasErrors() const { return numErrors_ > 0; }
  unsigned numErrors() const { return numErrors_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  /// All diagnostics, one per line.
  std::string str() const;
  /// The first error's text, or "" when there is none.
  std::string firstError() const;
  void clear() {
    diags_.clear();
    numErrors_ = 0;
  }

private:
  std::vector<Diagnostic> diags_;
  unsigned numErrors_ = 0;
};

} // namespace fp8c
