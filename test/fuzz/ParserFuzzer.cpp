// libFuzzer entry point for the text-format parser. Properties checked on every input:
//   - parsing never crashes, hangs or trips a sanitizer, whatever the bytes;
//   - a failed parse reports at least one error, and the first error has a file:line:col;
//   - a successful parse prints text that parses again into the same IR (kinds, attributes,
//     types, names, use-def edges, regions, signatures) and prints identically
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
#include <unordered_map>

namespace {

using namespace fp8c;

/// Structural equality of two modules, up to locations. Names are compared too: parsed names
/// are unique and valid, so the printer keeps them.
class SameIr {
public:
  std::string mismatch;

  bool modules(const Module &a, const Module &b) {
    if (a.graphs().size() != b.graphs().size())
      return fail("number of functions");
    for (size_t i = 0; i < a.graphs().size(); ++i)
      if (!graph(*a.graphs()[i], *b.graphs()[i]))
        return false;
    return true;
  }

private:
  bool fail(std::string what) {
    mismatch = std::move(what);
    return false;
  }
  bool def(const Value *a, const Value *b) {
    if (a->type() != b->type() || a->name() != b->name())
      return fail("value %" + a->name() + " vs %" + b->name());
    map_[a] = b;
    return true;
  }
  bool graph(const Graph &a, const Graph &b) {
    map_.clear();
    if (a.name() != b.name() || a.numInputs() != b.numInputs() ||
        a.resultTypes() != b.resultTypes() || !(a.resultAttrs() == b.resultAttrs()))
      return fail("signature of @" + a.name());
    for (unsigned i = 0; i < a.numInputs(); ++i)
      if (!(a.inputAttrs(i) == b.inputAttrs(i)))
        return fail("input attributes of @" + a.name());
    return block(a.body(), b.body());
  }
  bool block(const Block &a, const Block &b) {
    if (a.numArguments() != b.numArguments() || a.ops().size() != b.ops().size())
      return fail("block shape");
    for (unsigned i = 0; i < a.numArguments(); ++i)
      if (!def(a.argument(i), b.argument(i)))
        return false;
    for (size_t i = 0; i < a.ops().size(); ++i)
      if (!op(*a.ops()[i], *b.ops()[i]))
        return false;
    return true;
  }
  bool op(const Op &a, const Op &b) {
    if (a.kind() != b.kind() || !(a.attrs() == b.attrs()) || a.numOperands() != b.numOperands() ||
        a.numResults() != b.numResults() || !a.body() != !b.body())
      return fail("op " + std::string(a.name()));
    for (unsigned i = 0; i < a.numOperands(); ++i) {
      auto it = map_.find(a.operand(i));
      if (it == map_.end() || it->second != b.operand(i))
        return fail("operand #" + std::to_string(i) + " of " + std::string(a.name()));
    }
    if (a.body() && !block(*a.body(), *b.body()))
      return false;
    for (unsigned i = 0; i < a.numResults(); ++i)
      if (!def(a.result(i), b.result(i)))
        return false;
    return true;
  }

  std::unordered_map<const Value *, const Value *> map_;
};

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
  SameIr same;
  if (!same.modules(*m, *m2))
    fail("printing lost information", same.mismatch + "\n--- printed:\n" + printed);
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
