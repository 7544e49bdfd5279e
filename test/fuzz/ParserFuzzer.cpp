// libFuzzer entry point for the text-format parser. Properties checked on every input:
//   - parsing never crashes, hangs or trips a sanitizer, whatever the bytes;
//   - a failed parse reports at least one error, and the first error has a file:line:col;
//   - a successful parse prints text that parses again and prints identically
//     (print(parse(print(parse(x)))) == print(parse(x))), and the verifier (when built in)
//     does not crash on it.
// Any violated property aborts, so libFuzzer (or the corpus replay driver) reports it.
#include "ir/Parser.h"
#include "ir/Printer.h"
#ifdef FP8C_FUZZ_VERIFY
#include "ir/Verifier.h"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "parser fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  fp8c::DiagnosticEngine diag;
  std::unique_ptr<fp8c::Module> m = fp8c::parseModule(text, "fuzz.mlir", diag);
  if (!m) {
    if (!diag.hasErrors())
      fail("parse failed without an error", diag.str());
    for (const fp8c::Diagnostic &d : diag.diagnostics())
      if (d.severity == fp8c::Severity::Error && !d.loc.isKnown())
        fail("parse error without a location", d.str());
    return 0;
  }
  if (diag.hasErrors())
    fail("parse succeeded but reported errors", diag.str());

  std::string printed = fp8c::toString(*m);
  fp8c::DiagnosticEngine diag2;
  std::unique_ptr<fp8c::Module> m2 = fp8c::parseModule(printed, "printed.mlir", diag2);
  if (!m2)
    fail("printed IR does not parse", diag2.str() + "--- printed:\n" + printed);
  std::string reprinted = fp8c::toString(*m2);
  if (reprinted != printed)
    fail("print(parse(print)) differs from print",
         "--- printed:\n" + printed + "--- reprinted:\n" + reprinted);
#ifdef FP8C_FUZZ_VERIFY
  fp8c::DiagnosticEngine vdiag;
  (void)fp8c::verifyModule(*m, vdiag);
#endif
  return 0;
}
