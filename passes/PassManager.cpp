// Pipeline parsing and the pass manager's run loop.
#include "passes/PassManager.h"

#include "passes/PassRegistry.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <fmt/format.h>

#include <cctype>

namespace fp8c {
namespace {

std::string knownPassList() {
  std::string out;
  for (const PassInfo &p : allPasses())
    out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

} // namespace

Expected<PassOptions> parsePassOptionList(std::string_view passName, std::string_view body) {
  PassOptions opts;
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ' ' || body[i] == ','))
      ++i;
    if (i >= body.size())
      break;
    size_t end = i;
    while (end < body.size() && body[end] != ' ' && body[end] != ',')
      ++end;
    std::string_view item = body.substr(i, end - i);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      return Error("pass '" + std::string(passName) + "': option '" + std::string(item) +
                   "' is not of the form name=value");
    std::string key(item.substr(0, eq));
    if (opts.count(key))
      return Error("pass '" + std::string(passName) + "': option '" + key + "' given twice");
    opts[key] = std::string(item.substr(eq + 1));
    i = end;
  }
  return opts;
}

namespace {

// `quantize` rewrites the linears and matmuls outside fp8.kernel regions: after `fuse` there
// are none (fuse moved them into kernels), and after an earlier `quantize` none is left to
// rewrite, so such a pass would do nothing. Both are errors naming the passes' positions
// (1-based) in the pipeline. Updates the positions seen; "" when `name` may run here.
std::string checkPassOrder(const std::string &name, size_t position, size_t &quantizeAt,
                           size_t &fuseAt) {
  if (name == "quantize") {
    if (quantizeAt)
      return fmt::format("pass {} of the pipeline, 'quantize', would quantize a graph that pass "
                         "{} ('quantize') already quantized; give quantize once",
                         position, quantizeAt);
    if (fuseAt)
      return fmt::format("pass {} of the pipeline, 'quantize', comes after pass {} ('fuse'), "
                         "which leaves no linear or matmul for it to quantize; run quantize "
                         "before fuse",
                         position, fuseAt);
    quantizeAt = position;
  } else if (name == "fuse" && !fuseAt) {
    fuseAt = position;
  }
  return "";
}

} // namespace

Status PassManager::parsePipeline(std::string_view pipeline, const PipelineDefaults &defaults) {
  size_t i = 0;
  std::string_view text = trim(pipeline);
  if (text.empty())
    return Error("empty pass pipeline");
  // 1-based positions in this pipeline of the passes whose order matters (0: not yet seen).
  size_t position = 0, quantizeAt = 0, fuseAt = 0;
  while (i <= text.size()) {
    size_t nameEnd = i;
    while (nameEnd < text.size() && text[nameEnd] != ',' && text[nameEnd] != '{')
      ++nameEnd;
    std::string name(trim(text.substr(i, nameEnd - i)));
    std::string_view body;
    size_t next = nameEnd;
    if (nameEnd < text.size() && text[nameEnd] == '{') {
      size_t close = text.find('}', nameEnd);
      if (close == std::string_view::npos)
        return Error("pass '" + name + "': missing '}' in the pass pipeline");
      body = text.substr(nameEnd + 1, close - nameEnd - 1);
      next = close + 1;
      while (next < text.size() && text[next] == ' ')
        ++next;
      if (next < text.size() && text[next] != ',')
        return Error("expected ',' after '" + std::string(trim(text.substr(i, close + 1 - i))) +
                     "' in the pass pipeline");
    }
    if (name.empty())
      return Error("empty pass name in the pipeline '" + std::string(text) + "'");
    const PassInfo *info = lookupPass(name);
    if (!info)
      return Error("unknown pass '" + name + "'; known passes: " + knownPassList());
    ++position;
    if (std::string e = checkPassOrder(name, position, quantizeAt, fuseAt); !e.empty())
      return Error(e);
    Expected<PassOptions> opts = parsePassOptionList(name, body);
    if (!opts)
      return Error(opts.error());
    if (std::string e = checkPassOptionNames(*info, *opts); !e.empty())
      return Error(e);
    Expected<std::unique_ptr<Pass>> pass = info->create(*opts, defaults);
    if (!pass)
      return Error(pass.error());
    passes_.push_back(pass.take());
    if (next >= text.size())
      break;
    i = next + 1;
    if (i >= text.size())
      return Error("trailing ',' in the pass pipeline");
  }
  return Status::ok();
}

bool PassManager::contains(std::string_view name) const {
  for (const auto &p : passes_)
    if (p->name() == name)
      return true;
  return false;
}

std::string PassManager::str() const {
  std::string out;
  for (const auto &p : passes_) {
    out += (out.empty() ? "" : ",") + std::string(p->name());
    if (std::string o = p->optionsString(); !o.empty())
      out += "{" + o + "}";
  }
  return out;
}

bool PassManager::run(Graph &g, DiagnosticEngine &diag) {
  PassContext ctx{diag, analysis_};
  for (const auto &pass : passes_) {
    unsigned errorsBefore = diag.numErrors();
    bool ok = pass->run(g, ctx);
    if (!ok || diag.numErrors() > errorsBefore) {
      if (diag.numErrors() == errorsBefore)
        diag.error(g.loc(), "pass '" + std::string(pass->name()) + "' failed on @" + g.name());
      return false;
    }
    if (verifyEach_ && !verifyGraph(g, diag)) {
      diag.note(g.loc(), "the graph was invalid after pass '" + std::string(pass->name()) +
                             "' (--verify-each)");
      return false;
    }
    if (dump_ && (printAfterAll_ || printAfter_.count(pass->name()))) {
      *dump_ << "// -----// IR Dump After " << pass->name() << " (@" << g.name() << ") //----- //\n";
      printGraph(g, *dump_);
      *dump_ << "\n";
    }
  }
  return true;
}

bool PassManager::run(Module &m, DiagnosticEngine &diag) {
  for (const auto &g : m.graphs())
    if (!run(*g, diag))
      return false;
  return true;
}

void addDefaultPipeline(PassManager &pm, const std::optional<Recipe> &recipe,
                        const FuseOptions &fuse) {
  pm.addPass(createShapeInferPass());
  pm.addPass(createCanonicalizePass());
  if (recipe) {
    pm.addPass(createQuantizePass(*recipe));
    pm.addPass(createCanonicalizePass());
  }
  pm.addPass(createCsePass());
  pm.addPass(createFusePass(fuse));
  pm.addPass(createDcePass());
}

} // namespace fp8c
