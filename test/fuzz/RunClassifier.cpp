// How one fp8c run is judged (see RunClassifier.h).
#include "RunClassifier.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <regex>
#include <sstream>

namespace fp8c::fuzz {
namespace {

/// One quantized GEMM's relative Frobenius error bound. docs/numerics.md measures ~5 % for two
/// GEMMs of Llama sizes; small K and few elements (a single output element) leave the e4m3
/// rounding of both operands unaveraged (up to 2 x 6.25 %), hence the margin. The first step of
/// `delayed` uses scale 1 (operands far from magnitude 1 are excluded by the generator).
double gemmBound(const std::string &recipe) {
  if (recipe == "delayed")
    return 0.25;
  if (recipe.empty())
    return 0.01;
  return 0.15;
}

constexpr int64_t kMinComparedElements = 8;

std::vector<std::string> lines(const std::string &s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);)
    v.push_back(l);
  return v;
}

bool contains(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

/// Signs of a compiler stage refusing the graph for a limit of its own (not of the input).
bool internalLimit(const std::string &line) {
  for (const char *w : {"codegen:", "internal", "not implemented", "unimplemented",
                        "cannot lower", "nvrtc", "NVRTC"})
    if (contains(line, w))
      return true;
  return false;
}

std::string signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  default:
    return std::to_string(sig);
  }
}

} // namespace

std::string RunSetting::label() const {
  std::string l = mode + "/" + (recipe.empty() ? "none" : recipe);
  if (!backend.empty())
    l += "/" + backend;
  return l;
}

double errorBound(const std::string &recipe, const GeneratedOutput &o) {
  double b = gemmBound(recipe) * std::max(1.0, o.errorWeight);
  if (o.errorWeight == 0)
    b = 0.02; // no GEMM: the passes only regroup (and round once to bf16 at most)
  // A small output leaves the relative error to a few elements, some near zero where a GEMM's
  // sum cancels (one linear of 3 x 3 outputs, K = 129: a median of 4 % over 60 input seeds
  // under tensorwise, 13 % at worst).
  if (o.elements < 128)
    b *= 2;
  if (o.fp8)
    b += 0.3; // one more FP8 rounding, where a one-ulp difference is 12.5 % (e4m3)
  return b;
}

std::string normalizeMessage(const std::string &message) {
  std::string m = message;
  // The location prefix (`file:line:col: `) and the path.
  static const std::regex loc(R"(^\S*:\d+:\d+: )");
  m = std::regex_replace(m, loc, "");
  // The op a diagnostic is located at: one bug often shows at several ops.
  static const std::regex opName(R"('fp8\.[a-z_0-9]+' op )");
  m = std::regex_replace(m, opName, "'fp8.*' op ");
  static const std::regex type(R"(tensor<[^>]*>)");
  m = std::regex_replace(m, type, "T");
  static const std::regex ssa(R"([%@][A-Za-z_][A-Za-z0-9_.$-]*)");
  m = std::regex_replace(m, ssa, "%v");
  static const std::regex quoted(R"('[a-z_][a-z0-9_]*')");
  m = std::regex_replace(m, quoted, "'v'");
  static const std::regex num(R"((?!8\.)\d+(\.\d+)?(e[-+]?\d+)?)");
  m = std::regex_replace(m, num, "N");
  if (m.size() > 160)
    m = m.substr(0, 160);
  return m;
}

Verdict classify(const RunSetting &s, const ChildResult &r, const std::string &out,
                 const std::string &err, const GeneratedGraph &g) {
  Verdict v;
  std::vector<std::string> errLines = lines(err);
  std::string firstError;
  for (const std::string &l : errLines)
    if (contains(l, "error") || contains(l, "Error") || contains(l, "ERROR")) {
      firstError = l;
      break;
    }
  if (firstError.empty() && !errLines.empty())
    firstError = errLines.front();
  auto finding = [&](const std::string &what, const std::string &message) {
    v.kind = Verdict::Finding;
    v.signature = "[" + s.mode + "] " + what;
    v.message = message;
    return v;
  };
  if (r.spawnFailed)
    return finding("could not run fp8c", firstError);
  if (r.timedOut)
    return finding("timeout", firstError);
  if (r.signal)
    return finding("signal " + signalName(r.signal), firstError);
  if (s.mode == "verify" && r.exitCode != 0)
    return finding("generator: fp8c rejects the graph: " + normalizeMessage(firstError),
                   firstError);
  if (r.exitCode == 1) {
    static const std::regex located(R"(^\S+:\d+:\d+: error: )");
    if (firstError.empty())
      return finding("exit 1 without an error message", "");
    if (!std::regex_search(firstError, located))
      return finding("exit 1 without a located error: " + normalizeMessage(firstError),
                     firstError);
    if (internalLimit(firstError))
      return finding(normalizeMessage(firstError), firstError);
    v.kind = Verdict::Rejected;
    v.signature = normalizeMessage(firstError);
    v.message = firstError;
    return v;
  }
  if (r.exitCode != 0)
    return finding("exit " + std::to_string(r.exitCode) + ": " + normalizeMessage(firstError),
                   firstError);
  if (s.mode != "run")
    return v;
  // `output #i 'name' type: stats` then, with --compare, `  vs the graph before the passes:
  // relative Frobenius error E`.
  static const std::regex outLine(R"(^output #(\d+) )");
  static const std::regex errLine(R"(relative Frobenius error (\S+))");
  int current = -1;
  size_t seen = 0;
  for (const std::string &l : lines(out)) {
    std::smatch m;
    if (std::regex_search(l, m, outLine)) {
      current = std::stoi(m[1]);
      ++seen;
      continue;
    }
    if (!std::regex_search(l, m, errLine) || current < 0 ||
        current >= static_cast<int>(g.outputs.size()))
      continue;
    const GeneratedOutput &o = g.outputs[current];
    std::string text = m[1];
    double e = std::strtod(text.c_str(), nullptr);
    if (s.recipe == "delayed" && !o.delayedComparable)
      continue;
    // Fewer independent elements than kMinComparedElements: the error is that of a few sums,
    // any of which may cancel (one 17 x 1 output of a rank-1 product: 36 % under tensorwise,
    // 73 % under blockwise; the 4 x 129 outer product of 4 dot products and a vector: 31 %
    // under blockwise), so only crashes, diagnostics and non-finite values are judged.
    if (o.elements < kMinComparedElements && std::isfinite(e))
      continue;
    double bound = errorBound(s.recipe, o);
    if (!std::isfinite(e))
      return finding("relative error " + text + " (non-finite)",
                     "output #" + std::to_string(current) + " '" + o.name + "': " + l);
    if (e > bound)
      return finding("relative error above the bound",
                     "output #" + std::to_string(current) + " '" + o.name +
                         "': relative Frobenius error " + text + " > bound " +
                         std::to_string(bound));
  }
  if (seen < g.outputs.size())
    return finding("exit 0 but " + std::to_string(seen) + " outputs printed, not " +
                       std::to_string(g.outputs.size()),
                   "");
  return v;
}

} // namespace fp8c::fuzz
